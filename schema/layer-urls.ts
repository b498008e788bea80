// The dataset output URL a layer's source is equivalent to, in the form
// Terranova's editor writes and reads (`mapjsonUrl`). The editor reads only
// that URL and fills in its own defaults (first dataset, first template) for a
// layer without one, so every presentation of a map (outputs, GET by ID,
// version lists) adds it to the layers that name their data by `datasetId`.
import { DATATYPE_MEANING, type MapConfiguration, type MapLayer } from './map.ts';
import type { DatasetOutputRef } from './output-url.ts';

/** The output URL of a dataset source: `static`/`live` as the editor names them, `version` and `template` only when set. */
function datasetOutputUrl(base: string, source: DatasetOutputRef): string {
  const query = new URLSearchParams();
  if (source.version !== 'latest') query.set('version', String(source.version));
  if (source.templateId) query.set('template', source.templateId);
  const datatype = source.datatype === 'snapshot' ? 'static' : 'live';
  const tail = query.size > 0 ? `?${query}` : '';
  return `${base}/api/v1/output/dataset/${source.datasetId}/${source.layout}/${datatype}/${tail}`;
}

/** The source a `datasetId` layer names (its own fields, with the defaults outputs use). */
export function datasetIdSource(layer: MapLayer & { datasetId: string }): DatasetOutputRef {
  return {
    datasetId: layer.datasetId,
    version: layer.datasetVersion ?? 'latest',
    layout: layer.layout ?? 'geographic',
    datatype: DATATYPE_MEANING[layer.datatype ?? 'snapshot'],
    templateId: layer.templateId ?? null,
  };
}

/** The layer with its equivalent `mapjsonUrl` when it names a dataset by ID and has none; otherwise as it is. */
export function withLayerUrl(layer: MapLayer, base: string): MapLayer {
  if (layer.mapjsonUrl || typeof layer.datasetId !== 'string' || !layer.datasetId) return layer;
  return { ...layer, mapjsonUrl: datasetOutputUrl(base, datasetIdSource(layer as MapLayer & { datasetId: string })) };
}

/** A configuration whose `datasetId` layers all carry their `mapjsonUrl`; the same object when none lacks one. */
export function withLayerUrls(configuration: MapConfiguration | undefined, base: string): MapConfiguration | undefined {
  const layers = configuration?.layers;
  if (!Array.isArray(layers)) return configuration;
  const shown = layers.map((layer) => withLayerUrl(layer, base));
  return shown.every((layer, i) => layer === layers[i]) ? configuration : { ...configuration, layers: shown };
}
