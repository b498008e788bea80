// Which live maps use a dataset or a template, so that deleting one still in
// use is refused (409 naming the maps) instead of breaking their pictures. A
// layer uses a dataset by `datasetId` or by a `mapjsonUrl` naming it, and a
// template by `templateId` or the URL's `template`.
import { parseDatasetOutputUrl } from '../schema/output-url.ts';
import type { VersionedCollection } from './collection.ts';

type Layer = { datasetId?: unknown; templateId?: unknown; mapjsonUrl?: unknown };

export function mapsUsing(maps: VersionedCollection, what: 'dataset' | 'template', id: string): string[] {
  const users: string[] = [];
  for (const map of maps.live()) {
    const layers = (map.configuration as { layers?: unknown } | null)?.layers;
    if (!Array.isArray(layers)) continue;
    const uses = layers.some((layer: Layer | null) => {
      if (!layer || typeof layer !== 'object') return false;
      const direct = what === 'dataset' ? layer.datasetId : layer.templateId;
      if (direct === id) return true;
      const parsed = typeof layer.mapjsonUrl === 'string' ? parseDatasetOutputUrl(layer.mapjsonUrl) : null;
      if (!parsed || 'problem' in parsed) return false;
      return (what === 'dataset' ? parsed.datasetId : parsed.templateId) === id;
    });
    if (uses) users.push(String(map.mapId));
  }
  return users;
}
