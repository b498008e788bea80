// The picture of a map's change (docs/api.md: Diffs): each version's visible
// geographic layers resolved as the map's picture resolves them (datasets,
// templates, overrides; output/layers.ts), drawn by
// history/map-diff-picture.ts on one frame. Both versions are stored for
// good, so their numbers key the cached picture; the datasets and templates
// their layers read are its dependencies.
import { mapDiffPicture as unionOfMaps, type DiffLayer } from '../history/map-diff-picture.ts';
import type { PictureJob } from '../pool/jobs.ts';
import type { StoredMap, Tombstone } from '../resources/types.ts';
import { layerTopologies, type LayerLoaders } from './layers.ts';
import { sizeKey } from './map.ts';

export const mapDiffKey = (id: string, from: StoredMap | Tombstone, to: StoredMap | Tombstone, size: { width?: number; height?: number }) =>
  ['map-diff', id, from.version, to.version, sizeKey(size)].join('\n');

/** A version's visible geographic layers, named as its legend names them (a tombstone has none; logical layers are each their own layout). */
async function layersOf(version: StoredMap | Tombstone, loaders: LayerLoaders): Promise<DiffLayer[]> {
  if (version.deleted === true) return [];
  const { topologies } = await layerTopologies(version, loaders);
  return (version.configuration?.layers ?? []).flatMap((layer, i) => {
    const t = topologies[i];
    const logical = layer.layout === 'logical' || t?.pathLayout?.type === 'curveLinear';
    if (!t || layer.visible === false || logical) return [];
    return [{ name: typeof layer.name === 'string' && layer.name ? layer.name : t.name || `Layer ${i + 1}`, topology: t }];
  });
}

export async function mapDiffPicture(from: StoredMap | Tombstone, to: StoredMap | Tombstone, loaders: LayerLoaders, size: { width?: number; height?: number }) {
  const [before, after] = await Promise.all([layersOf(from, loaders), layersOf(to, loaders)]);
  // Drawn on the render pool (output/send.ts).
  return { kind: 'diff', ...unionOfMaps(String(to.name ?? from.name ?? 'map'), before, after, size) } satisfies PictureJob;
}
