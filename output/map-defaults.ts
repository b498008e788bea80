// Terranova's defaults for a map configuration and its layers, filled into
// every configuration an output returns where the stored one lacks them
// (docs/api.md: Map output). ESnet's map component dereferences these fields without
// checking: a missing `thresholds` or `tileset` throws in its legend and tile
// code, and a layer without `visible` is not drawn. The stored configuration
// stays as sent. Values as Terranova's editor writes them for a new map,
// except the tileset: none by default, so a map drawn offline fetches no tiles
// (set `tileset.geographic` to use one).

const CONFIGURATION: Readonly<Record<string, unknown>> = Object.freeze({
  initialViewStrategy: 'static',
  latitudeVar: null,
  longitudeVar: null,
  viewport: { center: { lat: 39.0, lng: -98.0 }, zoom: 3 },
  background: '#DDDDDD',
  editMode: false,
  showSidebar: false,
  showViewControls: true,
  showLegend: false,
  legendColumnLength: 3,
  legendPosition: 'bottomLeft',
  legendDefaultBehavior: 'minimized',
  enableScrolling: true,
  enableEditing: false,
  enableNodeAnimation: true,
  enableEdgeAnimation: true,
  thresholds: [],
  zIndexBase: 10,
});

const TILESET: Readonly<Record<string, unknown>> = Object.freeze({ geographic: null, boundaries: null, labels: null });

const LAYER: Readonly<Record<string, unknown>> = Object.freeze({
  visible: true,
  jsonFromUrl: false,
  color: '#AAAAFF',
  nodeWidth: 5,
  edgeWidth: 1.5,
  pathOffset: 1,
  endpointId: 'names',
  nodeHighlight: '#AAFFAA',
  srcFieldLabel: 'Source:',
  dstFieldLabel: 'Destination:',
  dataFieldLabel: 'Volume:',
  srcField: 'src',
  dstField: 'dst',
  inboundValueField: 'atoz',
  outboundValueField: 'ztoa',
  nodeValueField: 'node',
  legend: true,
});

type Obj = Record<string, unknown>;
const isObject = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);

/** `value` with each of `defaults`' keys that it lacks (absent or null) set; a fresh object. */
function fill(value: Obj, defaults: Readonly<Obj>): Obj {
  const out: Obj = { ...value };
  for (const [key, fallback] of Object.entries(defaults)) {
    if (out[key] === undefined || (out[key] === null && fallback !== null)) out[key] = structuredClone(fallback);
  }
  return out;
}

/** A configuration with Terranova's defaults filled in, every layer's too. */
export function withTerranovaDefaults(configuration: unknown): Obj {
  const config = fill(isObject(configuration) ? configuration : {}, CONFIGURATION);
  config.tileset = fill(isObject(config.tileset) ? config.tileset : {}, TILESET);
  const layers = Array.isArray(config.layers) ? config.layers : [];
  config.layers = layers.map((layer) => fill(isObject(layer) ? layer : {}, LAYER));
  return config;
}
