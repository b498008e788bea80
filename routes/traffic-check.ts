// A map's traffic bindings checked when it is saved (docs/traffic.md:
// Binding): each names a metrics source the settings have, and every field
// its templates name is a field of the layer's dataset records; otherwise
// 422 naming the layer's field. A layer whose dataset has no stored results
// yet cannot be checked against them and is saved as is.
import { validationFailed } from '../errors.ts';
import type { MapRevision } from '../schema/map.ts';
import { parseDatasetOutputUrl } from '../schema/output-url.ts';
import { missingFields } from '../traffic/circuits.ts';
import type { RouteDeps } from './index.ts';

/** The dataset a layer draws: its mapjsonUrl's, else its datasetId (map-output/layers.ts gives the URL precedence). */
function datasetOf(layer: { datasetId?: string | null; datasetVersion?: number | null; mapjsonUrl?: string | null }) {
  const url = layer.mapjsonUrl ? parseDatasetOutputUrl(layer.mapjsonUrl) : null;
  if (url && 'datasetId' in url) return { id: url.datasetId, version: url.version };
  return layer.datasetId ? { id: layer.datasetId, version: layer.datasetVersion ?? ('latest' as const) } : null;
}

export async function checkTrafficBindings(revision: MapRevision, deps: Pick<RouteDeps, 'traffic' | 'datasets'>): Promise<void> {
  const layers = revision.configuration?.layers ?? [];
  const problems: { path: string; message: string }[] = [];
  for (const [i, layer] of layers.entries()) {
    const binding = layer.traffic;
    if (!binding) continue;
    const at = `configuration.layers.${i}.traffic`;
    if (!deps.traffic.sources.has(binding.source)) {
      problems.push({ path: `${at}.source`, message: `no metrics source named ${binding.source}; the settings have ${[...deps.traffic.sources.keys()].join(', ')}` });
    }
    const dataset = datasetOf(layer);
    if (!dataset) continue;
    const results = await deps.datasets.results(dataset.id, dataset.version).catch(() => null);
    if (!results || results.records.length === 0) continue;
    for (const { path, field } of missingFields(binding, results.records as Record<string, unknown>[])) {
      problems.push({ path: `${at}.${path}`, message: `names the field {${field}}, which the records of dataset ${dataset.id} do not have` });
    }
  }
  if (problems.length > 0) throw validationFailed(`traffic binding: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, problems);
}
