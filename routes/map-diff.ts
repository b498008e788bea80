// `GET /api/v1/output/map/{id}/diff/{svg|png}/?from=N&to=M` (docs/api.md:
// Diffs): the picture of a map's change, its geographic layers resolved for
// each version as the map's picture resolves them, drawn by
// history/map-diff-picture.ts. Both versions are stored for good, so their
// numbers key the cached picture; the datasets and templates their layers
// read are its dependencies (a layer following a dataset's latest version
// changes with it).
import { Hono } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import { mapDiffSvg, type DiffLayer } from '../history/map-diff-picture.ts';
import { resolveMapLayers } from '../map-output/layers.ts';
import type { Dependencies } from '../render/output-cache.ts';
import type { Maps } from '../resources/maps.ts';
import type { StoredVersion } from '../resources/types.ts';
import type { MapRevision } from '../schema/map.ts';
import { diffPair } from './history.ts';
import { params, parsePictureSize } from './list-query.ts';
import { outputLoaders, type LoaderDeps } from './output-loaders.ts';
import { PICTURE_FORMATS, sizeKey, type OutputSender } from './output-send.ts';
import { pathId } from './versioned.ts';

export interface MapDiffDeps extends LoaderDeps {
  auth: Auth;
  maps: Maps;
  send: OutputSender;
  baseUrl?: string;
}

export function mapDiffRoutes(o: MapDiffDeps) {
  const app = new Hono<AppEnv>({ strict: false });
  /** A version's visible geographic layers, named as its legend names them (a tombstone has none). */
  const layersOf = async (version: StoredVersion, deps: Dependencies): Promise<DiffLayer[]> => {
    if (version.deleted === true) return [];
    const map = version as unknown as MapRevision & StoredVersion;
    const { topologies } = await resolveMapLayers(map, outputLoaders(o, deps), { baseUrl: o.baseUrl });
    return (map.configuration?.layers ?? []).flatMap((layer, i) => {
      const t = topologies[i];
      const logical = layer.layout === 'logical' || t?.pathLayout?.type === 'curveLinear';
      if (!t || layer.visible === false || logical) return [];
      return [{ name: typeof layer.name === 'string' && layer.name ? layer.name : t.name || `Layer ${i + 1}`, topology: t }];
    });
  };
  for (const format of PICTURE_FORMATS) {
    app.get(`/api/v1/output/map/:mapId/diff/${format}`, o.auth.requireScope('read'), async (c) => {
      const id = pathId(c, 'mapId', 'map');
      const size = parsePictureSize(params(c, ['from', 'to', 'width', 'height']).once);
      const { from, to } = await diffPair(c, o.maps.collection, id);
      return o.send.picture(c, format, ['map-diff', id, from.version, to.version, sizeKey(size)].join('\n'), async (deps) => {
        const [before, after] = await Promise.all([layersOf(from, deps), layersOf(to, deps)]);
        return mapDiffSvg(String(to.name ?? from.name ?? 'map'), before, after, size);
      });
    });
  }
  return app;
}
