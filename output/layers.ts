// Map output core: each layer of a map's configuration is resolved into its
// topology and returned as `mapjson` (a JSON string, as Terranova clients
// expect), with the map's overrides applied. The route supplies loaders that
// read the store and datasources; everything else happens here, so the
// route stays a few lines. A layer names its data by (first match wins):
//   1. mapjsonUrl pointing at a dataset output URL (…/output/dataset/<id>/<layout>/<datatype>/…):
//      URL-only clients (Terranova's editor) write it last, so it wins over a datasetId
//      naming another dataset - the editor then shows and edits the dataset drawn
//      - only parsed, never fetched: a URL of another shape is refused
//   2. datasetId (+ datasetVersion, layout, datatype, templateId)
//   3. inline mapjson (string or object), normalized and sanitized
//   4. nothing yet (an editor's new layer): mapjson null, with a warning
// Overrides are keyed by datasetId, so they apply by the dataset a layer draws.
// Outputs add the equivalent mapjsonUrl to datasetId layers that lack one.
import { ServiceError, validationFailed, isServiceError } from '../errors.ts';
import type { EdgeRecord } from '../datasources/types.ts';
import type { DatasetQuery } from '../schema/dataset.ts';
import type { MapConfiguration, MapLayer, MapRevision } from '../schema/map.ts';
import type { Topology } from '../render/types.ts';
import { buildTopology, drawNode } from '../render/topology.ts';
import { DEFAULT_TEMPLATES } from '../svg-safety/template.ts';
import { buildTopologyCached } from '../render/topology-cache.ts';
import { applyOverrides } from './overrides.ts';
import { normalizeTopology } from '../render/normalize.ts';
import { MAX_JSON_DEPTH } from '../schema/json-depth.ts';
import { parseDatasetOutputUrl, type Datatype, type DatasetOutputRef } from '../schema/output-url.ts';
import { datasetIdSource, withLayerUrl } from '../schema/layer-urls.ts';

export type LayerSource =
  | ({ kind: 'dataset' } & DatasetOutputRef)
  | { kind: 'inline'; topology: Topology }
  | { kind: 'none' };

interface DatasetInput {
  name: string;
  query: DatasetQuery;
  records: EdgeRecord[];
  /** Said to the reader when set: snapshot records that were not stored but run live. */
  note?: string;
  /** The stored results' key (the hash of their content) when the records are stored results: their build is shared. */
  resultsKey?: string;
}

export interface LayerLoaders {
  /**
   * The dataset's name, query and records: stored results for `snapshot`, a
   * live query for `dynamic` (and for a snapshot of a version stored without
   * results, with a `note`). Throws ServiceError: not_found for an unknown
   * dataset/version,
   * datasource_unavailable when the sheet cannot be read.
   */
  dataset(datasetId: string, version: number | 'latest', datatype: Datatype): Promise<DatasetInput>;
  /** A stored template's markup; throws ServiceError not_found when unknown. */
  template(templateId: string): Promise<string>;
}

function layerLabel(layer: MapLayer, index: number): string {
  const name = typeof layer.name === 'string' && layer.name.trim() ? ` ("${layer.name.trim().slice(0, 80)}")` : '';
  return `layer ${index + 1}${name}`;
}

/** Decides where a layer's data comes from; throws 422 naming the layer when what it names cannot be used. */
export function layerSource(layer: MapLayer, index: number): LayerSource {
  if (layer.mapjsonUrl) {
    const parsed = parseDatasetOutputUrl(layer.mapjsonUrl);
    if (parsed && 'problem' in parsed) throw validationFailed(`${layerLabel(layer, index)}: mapjsonUrl: ${parsed.problem}`);
    if (parsed) return { kind: 'dataset', ...parsed, templateId: parsed.templateId ?? layer.templateId ?? null };
    if (layer.mapjson == null && !layer.datasetId) {
      throw validationFailed(`${layerLabel(layer, index)}: mapjsonUrl is not a dataset output URL (…/output/dataset/<id>/<layout>/<datatype>/; other URLs are not fetched)`);
    }
  }
  if (layer.datasetId) return { kind: 'dataset', ...datasetIdSource({ ...layer, datasetId: layer.datasetId }) };
  if (layer.mapjson != null) {
    const topology = normalizeTopology(layer.mapjson, typeof layer.name === 'string' ? layer.name : '');
    if (!topology) throw validationFailed(`${layerLabel(layer, index)}: mapjson is not topology JSON (an object with nodes and edges, nested at most ${MAX_JSON_DEPTH} levels deep)`);
    return { kind: 'inline', topology };
  }
  return { kind: 'none' };
}

export interface ResolvedMap<T> {
  /** The map object with each layer's `mapjson` set (JSON string, or null for a layer with no data yet); everything else as sent. */
  output: T;
  /** The same topologies, parsed, for the SVG renderer (null for a layer with no data). */
  topologies: Array<Topology | null>;
  /** What a reader should know: layers with no data yet. */
  warnings: string[];
}

/** Resolves every layer; errors from loaders keep their code and gain the layer's name. */
export async function resolveMapLayers<T extends Pick<MapRevision, 'configuration' | 'overrides'>>(map: T, loaders: LayerLoaders,
  options: { baseUrl?: string } = {}): Promise<ResolvedMap<T>> {
  const { topologies, warnings } = await layerTopologies(map, loaders);
  const layers: MapLayer[] = map.configuration?.layers ?? [];
  const configuration: MapConfiguration = {
    ...map.configuration,
    layers: layers.map((layer, i) => ({ ...withLayerUrl(layer, options.baseUrl ?? ''), mapjson: topologies[i] === null ? null : JSON.stringify(topologies[i]) })),
  };
  return { output: { ...map, configuration }, topologies, warnings };
}

/**
 * Each layer's topology (null for a layer with no data), and the warnings:
 * what a picture needs, without the `mapjson` strings and URLs the JSON
 * outputs add.
 */
export async function layerTopologies(map: Pick<MapRevision, 'configuration' | 'overrides'>, loaders: LayerLoaders) {
  const warnings: string[] = [];
  const layers: MapLayer[] = map.configuration?.layers ?? [];
  // One read per dataset version/datatype and one build per distinct layer source, however many layers share them.
  const reads = new Map<string, Promise<DatasetInput>>();
  const builds = new Map<string, Promise<{ topology: Topology; markup: string; note?: string }>>();
  const topologies = await Promise.all(layers.map(async (layer, i) => {
    const source = layerSource(layer, i);
    if (source.kind === 'none') {
      warnings.push(`${layerLabel(layer, i)} names no data yet (set datasetId or mapjsonUrl): its mapjson is null`);
      return null;
    }
    if (source.kind === 'inline') return source.topology;
    const readKey = `${source.datasetId}:${source.version}:${source.datatype}`;
    if (!reads.has(readKey)) reads.set(readKey, loaders.dataset(source.datasetId, source.version, source.datatype));
    const key = JSON.stringify(source);
    let p = builds.get(key);
    if (!p) {
      p = (async () => {
        const [input, template] = await Promise.all([
          reads.get(readKey)!,
          source.templateId ? loaders.template(source.templateId) : Promise.resolve(null),
        ]);
        // Stored results are immutable: built once (topology-cache.ts). Live data, and records run live for want of stored ones, are built fresh.
        const options = { name: input.name, layout: source.layout, query: input.query, template };
        const topology = await (input.resultsKey ? buildTopologyCached(input.resultsKey, input.records, options) : buildTopology(input.records, options));
        return { topology, markup: template ?? DEFAULT_TEMPLATES[source.layout].template, note: input.note };
      })();
      builds.set(key, p);
    }
    try {
      const built = await p;
      if (built.note) warnings.push(`${layerLabel(layer, i)}: ${built.note}`);
      return applyOverrides(built.topology, map.overrides?.[source.datasetId], (node) => drawNode(node, built.markup));
    } catch (e) {
      if (isServiceError(e)) throw new ServiceError(e.code, `${layerLabel(layer, i)}: ${e.message}`, { errors: e.errors, headers: e.headers, cause: e });
      throw e;
    }
  }));
  return { topologies, warnings };
}
