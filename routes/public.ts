// GET /api/v1/public/maps/: no authentication; the maps that are public now,
// and of those only versions stored as public (docs/api.md: Public routes). Same
// parameters as the maps list except `public`. The public output routes are
// mounted by the render routes.
import { Hono } from 'hono';
import type { Maps } from '../resources/maps.ts';
import { MAP_DESCRIPTOR } from '../resources/maps.ts';
import { parseListQuery, type ListSpec } from './list-query.ts';
import { sendList } from './versioned.ts';

export const PUBLIC_MAP_LIST: ListSpec = {
  resource: MAP_DESCRIPTOR,
  filters: { mapId: 'string', name: 'string', lastUpdatedBy: 'string' },
};

export function publicRoutes(o: { maps: Maps }) {
  const app = new Hono({ strict: false });
  app.get('/api/v1/public/maps', (c) => sendList(c, o.maps.publicList(parseListQuery(c, PUBLIC_MAP_LIST))));
  return app;
}
