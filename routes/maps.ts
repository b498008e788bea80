// The map resource's routes (docs/api.md: Maps), declared for
// routes/resource-routes.ts: list, get, create and update as every resource has
// them, with the unknown configuration keys a write kept as `warnings`;
// publish and unpublish (a new version with public: true / false, the publish
// scope); a restored map comes back unpublished and a revert keeps the map's
// public flag, since publishing takes the publish scope.
import * as v from 'valibot';
import { MAP_DESCRIPTOR } from '../resources/maps.ts';
import { MapRevisionSchema, unknownKeyWarnings, type MapRevision } from '../schema/map.ts';
import { MapSchema } from '../schema/objects.ts';
import { declarer, version, type Operation } from '../http/operation.ts';
import { actingUser, ifMatch, sendSerialized } from '../http/versioned.ts';
import type { RouteDeps } from './index.ts';
import { resourceRoutes, type ResourcePaths } from './resource-routes.ts';
import { checkTrafficBindings } from './traffic-check.ts';

const route = declarer<RouteDeps>();

function publishing(paths: ResourcePaths, path: string, action: 'publish' | 'unpublish', summary: string): Operation<RouteDeps> {
  return route({
    method: 'post', path, tag: paths.tag, summary, scope: 'publish', pathParams: paths.idParam,
    effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', MapSchema) },
    handle: ({ maps }) => async (c) => sendSerialized(c, maps.serialized(await maps[action](paths.id(c), actingUser(c), ifMatch(c)))),
  });
}

export const MAP_ROUTES = resourceRoutes<MapRevision>({
  segment: 'map',
  paths: {
    list: '/api/v1/maps/', create: '/api/v1/map/', object: '/api/v1/map/id/{mapId}/',
    history: '/api/v1/map/id/{mapId}/history/', diff: '/api/v1/map/id/{mapId}/diff/',
    restore: '/api/v1/map/id/{mapId}/restore/', revert: '/api/v1/map/id/{mapId}/revert/',
  },
  descriptor: MAP_DESCRIPTOR,
  moreFilters: { public: 'boolean' },
  revision: { name: 'MapRevision', schema: MapRevisionSchema },
  object: MapSchema,
  resource: (deps) => deps.maps,
  text: {
    get: 'Get a map (latest version, or ?version=)',
    updateDescription: 'Send If-Match with the ETag you edited to get 412 instead of overwriting a newer version.',
  },
  warnings: (revision) => unknownKeyWarnings(revision.configuration),
  check: (revision, deps) => checkTrafficBindings(revision, deps),
  more: (paths) => [
    publishing(paths, '/api/v1/map/id/{mapId}/publish/', 'publish', 'Publish a map (new version with public: true)'),
    publishing(paths, '/api/v1/map/id/{mapId}/unpublish/', 'unpublish', 'Unpublish a map (new version with public: false)'),
  ],
  history: {
    onRestore: (content) => ({ ...content, public: false }),
    onRevert: (content, latest) => ({ ...content, public: latest.public === true }),
  },
}, v.partial(MapSchema));
