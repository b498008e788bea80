// MapRevision: the request body of map create, map update and the in-progress
// map output (PATCH /api/v1/output/map/); docs/api.md: Maps. For the layer and override
// structure we keep the shapes ESnet Terranova (terranova/models.py)
// and its clients (the web editor, esnet-networkmap-panel) already send, so a
// map exported from Terranova is accepted here unchanged:
//
//   configuration: { initialViewStrategy, viewport: {center: {lat, lng}, zoom,
//     top?, left?, bottom?, right?}, background, tileset, editMode, showSidebar,
//     showViewControls, showLegend, enableScrolling, enableEditing,
//     enableNodeAnimation, enableEdgeAnimation, zIndexBase, layers: [Layer],
//     + Terranova extras (latitudeVar, legendPosition, thresholds, ...) }
//   Layer: { name, visible, color, nodeWidth, edgeWidth, pathOffset,
//     jsonFromUrl, mapjson (JSON string), mapjsonUrl, endpointId,
//     inboundValueField, outboundValueField, srcField, dstField, legend,
//     nodeHighlight } and our additions (docs/api.md: Map layers) that name a dataset
//     directly: datasetId, datasetVersion, layout, datatype, templateId.
//   overrides: { <datasetId>: { nodes: { <node name>: Rule },
//                               edges: { <edge name>: Rule } } }
//   Rule: { operation: 'add' | 'delete' | 'override', state: <a topology node
//     {name, coordinate, meta} or edge {name, coordinates, meta}>, render }
//
// Differences from Terranova, on purpose: every configuration field is optional
// (a map can be created with a name only), unknown configuration, layer and
// rule keys are kept as sent (looseObject), and a rule with `render` missing
// or null is active (Terranova skips it); only `render: false` disables a rule.
// `state` may be omitted for `delete` only, as in Terranova.
import * as v from 'valibot';
import { belongIn, revisionSchema } from './revision.ts';
import { ID_PATTERN, NameSchema } from './common.ts';
import { TrafficBindingSchema } from './traffic.ts';

/** Colours reach SVG attributes, so only plain CSS colour forms are accepted. */
export const COLOR_PATTERN =
  /^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|(rgb|rgba|hsl|hsla)\(\s*[0-9.%\s,/+-]{1,60}\)|[a-zA-Z]{1,30})$/;
const ColorSchema = v.pipe(v.string('expected a colour string'), v.trim(), v.regex(COLOR_PATTERN, 'expected a CSS colour such as #1f77b4'));

const Num = (min: number, max: number) =>
  v.pipe(v.number('expected a number'), v.minValue(min, `must be at least ${min}`), v.maxValue(max, `must be at most ${max}`));
const Bool = v.optional(v.nullable(v.boolean('expected true or false')));
const Str = (max = 200) => v.optional(v.nullable(v.pipe(v.string('expected a string'), v.maxLength(max, `must be at most ${max} characters`))));

const LatLng = v.tuple([Num(-90, 90), Num(-180, 180)], 'expected [latitude, longitude]');

export const LAYOUTS = ['geographic', 'logical'] as const;
export const DATATYPES = ['snapshot', 'static', 'dynamic', 'live'] as const;
/** What each datatype name means: `static` and `live` are what Terranova's editor writes, `snapshot` (stored results) and `dynamic` (the query run now) our names. */
export const DATATYPE_MEANING: Readonly<Record<(typeof DATATYPES)[number], 'snapshot' | 'dynamic'>> = { snapshot: 'snapshot', static: 'snapshot', dynamic: 'dynamic', live: 'dynamic' };
const OVERRIDE_OPERATIONS = ['add', 'delete', 'override'] as const;
/** Bounded so that one map output cannot fan out into unbounded dataset reads. */
const MAX_LAYERS = 10;

const ViewportSchema = v.looseObject({
  center: v.optional(v.nullable(v.looseObject({ lat: Num(-90, 90), lng: Num(-180, 180) }))),
  zoom: v.optional(v.nullable(Num(0, 30))),
  top: v.optional(v.nullable(Num(-90, 90))),
  bottom: v.optional(v.nullable(Num(-90, 90))),
  left: v.optional(v.nullable(Num(-360, 360))),
  right: v.optional(v.nullable(Num(-360, 360))),
});

const LayerSchema = v.looseObject({
  name: Str(),
  visible: Bool,
  color: v.optional(v.nullable(ColorSchema)),
  nodeWidth: v.optional(v.nullable(Num(0, 200))),
  edgeWidth: v.optional(v.nullable(Num(0, 100))),
  pathOffset: v.optional(v.nullable(Num(0, 200))),
  /** Colour circuits by this field of theirs, a legend entry per value (docs/api.md: Map layers). */
  edgeColorBy: Str(100),
  /** Our way to name the data (docs/api.md: Map layers). */
  datasetId: v.optional(v.nullable(v.pipe(v.string(), v.regex(ID_PATTERN, 'expected 7 letters or digits')))),
  datasetVersion: v.optional(v.nullable(v.pipe(v.number('expected an integer'), v.integer('expected an integer'), v.minValue(1, 'must be at least 1')))),
  layout: v.optional(v.nullable(v.picklist(LAYOUTS, 'expected geographic or logical'))),
  datatype: v.optional(v.nullable(v.picklist(DATATYPES, 'expected snapshot (or static), dynamic (or live)'))),
  templateId: v.optional(v.nullable(v.pipe(v.string(), v.regex(ID_PATTERN, 'expected 7 letters or digits')))),
  /** Terranova's ways: a dataset output URL, or inline topology (a JSON string; an object is accepted too). */
  jsonFromUrl: Bool,
  mapjsonUrl: Str(2000),
  mapjson: v.optional(v.nullable(v.union([v.string(), v.looseObject({})], 'expected a JSON string or an object'))),
  endpointId: Str(),
  inboundValueField: Str(),
  outboundValueField: Str(),
  srcField: Str(),
  dstField: Str(),
  legend: Bool,
  nodeHighlight: Str(),
  /** Live traffic of the layer's circuits (docs/traffic.md: Binding). */
  traffic: v.optional(v.nullable(TrafficBindingSchema)),
});

const ConfigurationSchema = v.looseObject({
  initialViewStrategy: Str(50),
  viewport: v.optional(v.nullable(ViewportSchema)),
  background: v.optional(v.nullable(ColorSchema)),
  tileset: v.optional(v.nullable(v.looseObject({}))),
  editMode: Bool,
  showSidebar: Bool,
  showViewControls: Bool,
  showLegend: Bool,
  enableScrolling: Bool,
  enableEditing: Bool,
  enableNodeAnimation: Bool,
  enableEdgeAnimation: Bool,
  zIndexBase: v.optional(v.nullable(v.pipe(v.number('expected an integer'), v.integer('expected an integer')))),
  /** Utilisation colours of live traffic (docs/traffic.md: Colours): bands in ascending order, or a named scale. */
  trafficScale: v.optional(v.nullable(v.union([
    v.picklist(['weathermap', 'colorblind'], 'expected "weathermap", "colorblind" or a list of {upTo, color}'),
    v.pipe(v.array(v.strictObject({ upTo: Num(0, 10_000), color: ColorSchema }), 'expected a list of {upTo, color}'),
      v.minLength(1, 'expected at least one band'), v.maxLength(20, 'at most 20 bands'),
      v.check((bands) => bands.every((b, i) => i === 0 || b.upTo > bands[i - 1].upTo), 'expected bands in ascending order of upTo')),
  ], 'expected "weathermap", "colorblind" or a list of {upTo, color}'))),
  layers: v.optional(v.pipe(v.array(LayerSchema, 'expected a list of layers'), v.maxLength(MAX_LAYERS, `at most ${MAX_LAYERS} layers`)), []),
});

/** What an add/override rule puts in place of the node or edge (Terranova: `state`). */
const NodeState = v.looseObject({
  name: v.optional(v.pipe(v.string(), v.maxLength(500))),
  coordinate: v.optional(LatLng),
  meta: v.optional(v.looseObject({})),
  children: v.optional(v.nullable(v.array(v.string()))),
});
const EdgeState = v.looseObject({
  name: v.optional(v.pipe(v.string(), v.maxLength(500))),
  coordinates: v.optional(v.pipe(v.array(LatLng), v.minLength(2, 'an edge needs at least 2 coordinates'), v.maxLength(1000))),
  meta: v.optional(v.looseObject({})),
});

const rule = <S extends typeof NodeState | typeof EdgeState>(state: S) =>
  v.pipe(
    v.looseObject({
      operation: v.picklist(OVERRIDE_OPERATIONS, 'expected add, delete or override'),
      state: v.optional(v.nullable(state)),
      render: Bool,
    }),
    v.check((r) => r.operation === 'delete' || r.state != null, 'state is required unless operation is delete'),
  );
const NodeOverrideSchema = rule(NodeState);
const EdgeOverrideSchema = rule(EdgeState);

const Key = v.pipe(v.string(), v.minLength(1), v.maxLength(500));
const DatasetOverridesSchema = v.looseObject({
  nodes: v.optional(v.record(Key, NodeOverrideSchema), {}),
  edges: v.optional(v.record(Key, EdgeOverrideSchema), {}),
});

// Top level: the map object as GET returned it is accepted (mapId, public and the stamps ignored);
// another key is 422, and a configuration key sent at the top level says where it belongs.
export const MapRevisionSchema = revisionSchema({
  name: NameSchema,
  configuration: v.optional(ConfigurationSchema, {}),
  /** Keyed by datasetId, as in Terranova; one set applies to every layer showing that dataset. */
  overrides: v.optional(v.record(Key, DatasetOverridesSchema), {}),
}, ['mapId', 'public'], belongIn('configuration', Object.keys(ConfigurationSchema.entries)));

/** Keys of a configuration and of a layer the service knows; others are kept as sent and reported as warnings. */
const KNOWN_CONFIGURATION_KEYS: ReadonlySet<string> = new Set([...Object.keys(ConfigurationSchema.entries),
  'latitudeVar', 'longitudeVar', 'legendColumnLength', 'legendPosition', 'legendDefaultBehavior', 'thresholds']);
const KNOWN_LAYER_KEYS: ReadonlySet<string> = new Set([...Object.keys(LayerSchema.entries),
  'srcFieldLabel', 'dstFieldLabel', 'dataFieldLabel', 'nodeValueField']);

/** `configuration.<key>` and `configuration.layers.<i>.<key>` for every key kept that the service does not know. */
export function unknownKeyWarnings(configuration: Record<string, unknown> | undefined): string[] {
  if (!configuration) return [];
  const found = Object.keys(configuration).filter((k) => !KNOWN_CONFIGURATION_KEYS.has(k)).map((k) => `configuration.${k}`);
  const layers = Array.isArray(configuration.layers) ? configuration.layers : [];
  layers.forEach((layer, i) => {
    if (layer && typeof layer === 'object') {
      for (const k of Object.keys(layer)) if (!KNOWN_LAYER_KEYS.has(k)) found.push(`configuration.layers.${i}.${k}`);
    }
  });
  return found.map((path) => `${path} is not a field the service knows; it is kept as sent`);
}

export type MapRevision = v.InferOutput<typeof MapRevisionSchema>;
export type MapConfiguration = v.InferOutput<typeof ConfigurationSchema>;
export type MapLayer = v.InferOutput<typeof LayerSchema>;
export type DatasetOverrides = v.InferOutput<typeof DatasetOverridesSchema>;
