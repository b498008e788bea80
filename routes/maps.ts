// Map routes (docs/api.md: Maps), unpublish included. Thin: parse, call
// resources/maps.ts, send. Create is 201 + Location; update, publish and
// unpublish answer 200 with the new version; every answer carries its ETag.
import { Hono } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import type { Maps } from '../resources/maps.ts';
import { MAP_DESCRIPTOR } from '../resources/maps.ts';
import { MapRevisionSchema, unknownKeyWarnings } from '../schema/map.ts';
import { readBody } from './body.ts';
import { parseListQuery, parseVersionQuery, type ListSpec } from './list-query.ts';
import { actingUser, ifMatch, pathId, sendList, sendVersion, sendSerialized, sendWritten } from './versioned.ts';

export const MAP_LIST: ListSpec = {
  resource: MAP_DESCRIPTOR,
  filters: { mapId: 'string', name: 'string', lastUpdatedBy: 'string', public: 'boolean' },
};

export function mapRoutes(o: { auth: Auth; maps: Maps; baseUrl: string }) {
  const { auth, maps } = o;
  const app = new Hono<AppEnv>({ strict: false });
  const id = (c: Parameters<typeof pathId>[0]) => pathId(c, 'mapId', 'map');
  const location = (mapId: string) => `${o.baseUrl}/api/v1/map/id/${mapId}/`;

  app.get('/api/v1/maps', auth.guard('read', (c) => sendList(c, maps.list(parseListQuery(c, MAP_LIST)))));

  app.get('/api/v1/map/id/:mapId', auth.guard('read', (c) => sendVersion(c, maps.collection, id(c), parseVersionQuery(c))));

  app.post('/api/v1/map', auth.requireScope('write'), async (c) => {
    const revision = await readBody(c, MapRevisionSchema);
    const created = await maps.create(actingUser(c), revision);
    return sendWritten(c, maps.serialized(created), 201, unknownKeyWarnings(revision.configuration), { Location: location(created.mapId as string) });
  });

  app.put('/api/v1/map/id/:mapId', auth.requireScope('write'), async (c) => {
    const mapId = id(c);
    maps.get(mapId); // unknown map: 404 before reading the body
    const revision = await readBody(c, MapRevisionSchema);
    return sendWritten(c, maps.serialized(await maps.update(mapId, actingUser(c), revision, ifMatch(c))), 200, unknownKeyWarnings(revision.configuration));
  });

  app.post('/api/v1/map/id/:mapId/publish', auth.requireScope('publish'), async (c) =>
    sendSerialized(c, maps.serialized(await maps.publish(id(c), actingUser(c), ifMatch(c)))));

  app.post('/api/v1/map/id/:mapId/unpublish', auth.requireScope('publish'), async (c) =>
    sendSerialized(c, maps.serialized(await maps.unpublish(id(c), actingUser(c), ifMatch(c)))));

  return app;
}
