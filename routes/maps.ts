// The map resource's routes (docs/api.md: Maps), declared for
// routes/resource-routes.ts: list, get, create and update as every resource has
// them, with the unknown configuration keys a write kept as `warnings`;
// publish and unpublish (a new version with public: true / false, the publish
// scope); a restored map comes back unpublished and a revert keeps the map's
// public flag, since publishing takes the publish scope. PATCH applies a JSON
// merge patch (RFC 7396) to the latest version; a PUT that leaves out a
// configuration the map had says so in `warnings`.
import * as v from 'valibot';
import { MAP_DESCRIPTOR } from '../resources/maps.ts';
import { contentOf } from '../resources/collection.ts';
import type { StoredMap } from '../resources/types.ts';
import { MapRevisionSchema, unknownKeyWarnings, type MapRevision } from '../schema/map.ts';
import { MapSchema } from '../schema/objects.ts';
import { declarer, version, type Operation } from '../http/operation.ts';
import { validate } from '../http/body.ts';
import { mergePatch } from '../http/merge-patch.ts';
import { actingUser, ifMatch, sendSerialized, sendWritten } from '../http/versioned.ts';
import type { RouteDeps } from './index.ts';
import { resourceRoutes, type ResourcePaths } from './resource-routes.ts';
import { checkTrafficBindings } from './traffic-check.ts';

const route = declarer<RouteDeps>();

/** A merge patch body: any JSON object (what it makes is checked as a MapRevision). */
const MergePatchSchema = v.pipe(v.record(v.string(), v.unknown(), 'expected a JSON object (a merge patch)'),
  v.description('JSON merge patch (RFC 7396) of the map: members replace, null removes, objects merge, arrays replace whole'));

function patching(paths: ResourcePaths): Operation<RouteDeps> {
  return route({
    method: 'patch', path: '/api/v1/map/id/{mapId}/', tag: paths.tag, summary: 'Change part of a map (JSON merge patch, RFC 7396)',
    description: 'Applied to the latest version (or to the one If-Match names, 412 when it is not the latest); the result must be a valid map.',
    scope: 'write', pathParams: paths.idParam, body: { name: 'MapMergePatch', schema: MergePatchSchema },
    effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', MapSchema) },
    handle: ({ maps }) => async (c, input) => {
      const id = paths.id(input.params);
      const latest = maps.get(id);
      const patch = await input.body();
      const revision = validate(MapRevisionSchema, mergePatch(contentOf(latest), patch), 'the patched map');
      // Without If-Match, the patch still applies only to the version it was merged into.
      const stored = await maps.update(id, actingUser(c), revision, ifMatch(c) ?? maps.collection.etag(latest));
      return sendWritten(c, maps.serialized(stored), 200, unknownKeyWarnings(revision.configuration));
    },
  });
}

/** A PUT without the configuration (or layers) the map had: kept as sent, but said. */
function droppedWarnings(revision: MapRevision, replaced: StoredMap): string[] {
  // Empty: no key but `layers`, and no layer (the schema fills in `layers: []` when none is sent).
  const empty = (config: Record<string, unknown> | undefined) =>
    Object.entries(config ?? {}).every(([key, value]) => key === 'layers' && Array.isArray(value) && value.length === 0);
  const before: { layers?: unknown[] } = replaced.configuration ?? {};
  if (empty(before) || !empty(revision.configuration)) return [];
  const layers = Array.isArray(before.layers) && before.layers.length > 0
    ? ` and its ${before.layers.length} layer${before.layers.length === 1 ? '' : 's'} are` : ' is';
  return [`configuration was not sent: version ${replaced.version}'s configuration${layers} not in the new version; ` +
    'send the whole map as GET returns it, or PATCH only the fields that change'];
}

function publishing(paths: ResourcePaths, path: string, action: 'publish' | 'unpublish', summary: string): Operation<RouteDeps> {
  return route({
    method: 'post', path, tag: paths.tag, summary, scope: 'publish', pathParams: paths.idParam,
    effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', MapSchema) },
    handle: ({ maps }) => async (c, { params }) => sendSerialized(c, maps.serialized(await maps[action](paths.id(params), actingUser(c), ifMatch(c)))),
  });
}

export const MAP_ROUTES = resourceRoutes<MapRevision, StoredMap>({
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
  updateWarnings: droppedWarnings,
  check: (revision, deps) => checkTrafficBindings(revision, deps),
  more: (paths) => [
    patching(paths),
    publishing(paths, '/api/v1/map/id/{mapId}/publish/', 'publish', 'Publish a map (new version with public: true)'),
    publishing(paths, '/api/v1/map/id/{mapId}/unpublish/', 'unpublish', 'Unpublish a map (new version with public: false)'),
  ],
  history: {
    onRestore: (content) => ({ ...content, public: false }),
    onRevert: (content, latest) => ({ ...content, public: latest.public === true }),
  },
}, v.partial(MapSchema));
