// A map's outputs, from one stored version: the configuration a client
// loads (each layer's `mapjson` filled in, Terranova's defaults added), the
// whole map, and the picture, which needs only the layers' topologies. The
// cache keys of a map's outputs are here too: a map version never changes,
// so it keys the output (the public and private routes share it), and what
// its layers read is recorded as dependencies by the loaders (output/loaders.ts).
import type { PictureJob } from '../pool/jobs.ts';
import type { StoredMap } from '../resources/types.ts';
import type { MapRevision } from '../schema/map.ts';
import { layerTopologies, resolveMapLayers, type LayerLoaders } from './layers.ts';
import { withTerranovaDefaults } from './map-defaults.ts';
import { unionLogicalLayers } from '../render/logical-union.ts';
import { layerLogical } from '../render/svg.ts';

/** The part of a picture's cache key that `?width=` / `?height=` give: pictures of other sizes are other outputs. */
export const sizeKey = (size: { width?: number; height?: number }) => `${size.width ?? ''}x${size.height ?? ''}`;

/** The cache key of a map version's output: `what` is configuration, map, or a picture's size key. */
export const mapOutputKey = (version: StoredMap, what: string) => `map\n${version.mapId}\n${version.version}\n${what}`;

/** `value` with the warnings of its resolution, when there are any (a layer with no data yet). */
export const warned = (value: object, warnings: string[]) => (warnings.length > 0 ? { ...value, warnings } : value);

/** The stored map as its outputs show it: without the version's change summary and tombstone flag. */
function asMap(version: StoredMap) {
  const { change: _c, deleted: _d, ...map } = version;
  return map;
}

/** A map (stored, or an unsaved revision) with its layers resolved and Terranova's defaults in its configuration. */
export async function mapJson<T extends Pick<MapRevision, 'configuration' | 'overrides'>>(map: T, loaders: LayerLoaders, baseUrl: string | undefined) {
  const { output, warnings } = await resolveMapLayers(map, loaders, { baseUrl });
  return { map: { ...output, configuration: withTerranovaDefaults(output.configuration) }, warnings };
}

/** The configuration output of a stored version (what the map component's "configure from URL" loads), as JSON text. */
export async function configurationOutput(version: StoredMap, loaders: LayerLoaders, baseUrl: string | undefined) {
  const { map, warnings } = await mapJson(asMap(version), loaders, baseUrl);
  return JSON.stringify(warned(map.configuration, warnings));
}

/** The whole map output of a stored version, as JSON text. */
export async function wholeMapOutput(version: StoredMap, loaders: LayerLoaders, baseUrl: string | undefined) {
  const { map, warnings } = await mapJson(asMap(version), loaders, baseUrl);
  return JSON.stringify(warned(map, warnings));
}

/**
 * The picture of a stored version. Drawn from the configuration as stored:
 * the defaults are for clients (a default viewport would frame every map on
 * North America instead of fitting it to its content).
 */
export async function mapPicture(version: StoredMap, loaders: LayerLoaders, size: { width?: number; height?: number }) {
  const map = asMap(version);
  const { topologies: own } = await layerTopologies(map, loaders);
  // Its visible logical layers are one diagram: laid out together, a router they share drawn once (render/logical-union.ts).
  const layers = map.configuration?.layers ?? [];
  const topologies = await unionLogicalLayers(own, own.map((t, i) => Boolean(t) && layers[i]?.visible !== false && layerLogical(layers[i], t!)));
  // Drawn on the render pool (output/send.ts).
  return { kind: 'map', map: version, topologies, size } satisfies PictureJob;
}
