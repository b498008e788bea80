// Maps: versioned display configurations that can be published.
// Create stores version 1 with public: false. Update keeps the map's current
// public flag (editing a published map keeps it published). Publish and
// unpublish each store a new version that copies the latest content with
// public set to true / false. A map is public when its latest version is;
// the public views then show only versions that were stored as public. A
// deleted map is public nowhere.
import { notFound } from '../errors.ts';
import { withLayerUrls } from '../schema/layer-urls.ts';
import type { MapConfiguration, MapRevision } from '../schema/map.ts';
import { MAP_FIELDS } from '../schema/objects.ts';
import type { Store } from '../store/types.ts';
import { contentOf } from './collection.ts';
import type { ListQuery, ResourceDescriptor, StoredMap, Visibility } from './types.ts';
import { describeResource, versionedResource } from './versioned-resource.ts';

export const MAP_DESCRIPTOR = describeResource('map', MAP_FIELDS);

/**
 * What clients see of a map: each `datasetId` layer also shows its equivalent
 * `mapjsonUrl`, exactly as the outputs do (schema/layer-urls.ts), so an
 * editor that reads only the URL keeps the layer's own dataset. Lists that
 * include `configuration` show it the same way.
 */
function mapDescriptor(baseUrl: string): ResourceDescriptor {
  return {
    ...MAP_DESCRIPTOR,
    computedFields: ['configuration'],
    present: (version) => {
      const configuration = withLayerUrls(version.configuration as MapConfiguration | undefined, baseUrl);
      return configuration === version.configuration ? version : { ...version, configuration };
    },
  };
}

const PUBLIC_ONLY: Visibility = {
  name: 'public',
  resource: (latest) => latest.public === true,
  version: (version) => version.public === true,
};

/** A map that is not public, or not in that version: the same answer as for a missing one. */
const hidden = (id: string, which: 'latest' | number) => notFound(`no public map with ID ${id}${which === 'latest' ? '' : ` and version ${which}`}`);

/** Maps over `store`; `baseUrl` (server.baseUrl) prefixes the `mapjsonUrl` shown for `datasetId` layers. */
export function createMaps(store: Store, now: () => Date, baseUrl = '') {
  const maps = versionedResource<MapRevision, StoredMap>(store, now, {
    descriptor: mapDescriptor(baseUrl),
    created: (revision) => ({ ...revision, public: false }),
    updated: (revision, latest) => ({ ...revision, public: latest.public === true }),
  });
  const { collection } = maps;
  const setPublic = (id: string, by: string, value: boolean, ifMatch?: string) =>
    collection.appendLive(id, by, (latest) => ({ content: { ...contentOf(latest), public: value }, change: value ? 'published' : 'unpublished' }), { ifMatch });

  return {
    ...maps,
    publish: (id: string, by: string, ifMatch?: string) => setPublic(id, by, true, ifMatch),
    unpublish: (id: string, by: string, ifMatch?: string) => setPublic(id, by, false, ifMatch),

    /** The public list: maps public now, and of those only versions stored as public. */
    publicList: (query: ListQuery) => collection.list(query, PUBLIC_ONLY),
    /**
     * A version readable without authentication (for the public output
     * routes): 404 unless the map is public now and that version was stored
     * as public. The message is the same as for a missing map on purpose.
     * At once for the latest version (one look-up in memory); an older one is read first.
     */
    getPublic(id: string, which: 'latest' | number = 'latest'): StoredMap | Promise<StoredMap> {
      const latest = collection.head(id);
      if (!latest || latest.deleted === true || latest.public !== true) throw hidden(id, which);
      if (which === 'latest' || which === latest.version) return latest;
      return collection.at(id, which).catch(() => undefined).then((version) => {
        if (version?.public !== true) throw hidden(id, which);
        return version;
      });
    },
  };
}

export type Maps = ReturnType<typeof createMaps>;
