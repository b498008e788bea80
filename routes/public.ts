// GET /api/v1/public/maps/: no authentication; the maps that are public now,
// and of those only versions stored as public (docs/api.md: Public routes). Same
// parameters as the maps list except `public`. The public output routes are
// routes/output.ts's.
import { listQuery, type ListSpec } from '../http/list-query.ts';
import { declarer, listed, listParams, type Operation } from '../http/operation.ts';
import { sendList } from '../http/versioned.ts';
import { MAP_DESCRIPTOR, type Maps } from '../resources/maps.ts';
import { MAP_ROUTES } from './maps.ts';

type Deps = { maps: Maps };
const route = declarer<Deps>();

const PUBLIC_MAP_LIST: ListSpec = {
  resource: MAP_DESCRIPTOR,
  filters: { mapId: 'string', name: 'string', lastUpdatedBy: 'string' },
};

export const PUBLIC_MAPS: Operation<Deps> = route({
  method: 'get', path: '/api/v1/public/maps/', tag: 'public', summary: 'List public maps', description: 'Maps whose latest version is public; only their versions stored as public are shown.', scope: null,
  query: listParams(PUBLIC_MAP_LIST), effects: ['versions'], answers: { 200: listed('public maps', MAP_ROUTES.item) },
  handle: ({ maps }) => (c, { query }) => sendList(c, maps.publicList(listQuery(PUBLIC_MAP_LIST, query))),
});
