// GET /api/v1/datasources/: the datasource endpoints a dataset query can use
// (docs/api.md: Datasources and the dataset editor), with no token. Thin: the registry builds
// the body; files changed since the last call are re-read there. Each entry
// also carries what Terranova's dataset editor reads (display_name and the
// paths of its query, field-list and distinct-value routes, which
// routes/query.ts serves with the read scope).
import * as v from 'valibot';
import type { DatasourceRegistry } from '../datasources/types.ts';
import { declarer, type Operation } from '../http/operation.ts';
import { DatasourceListingSchema } from '../schema/objects.ts';

type Deps = { datasources: DatasourceRegistry };
const route = declarer<Deps>();

export const DATASOURCE_LIST: Operation<Deps> = route({
  method: 'get', path: '/api/v1/datasources/', tag: 'datasources', summary: 'Datasource endpoints a dataset query can use', scope: null,
  answers: { 200: { description: 'object keyed by endpoint string, e.g. spreadsheet?sheet_id=...&sheet_name=...', schema: v.record(v.string(), DatasourceListingSchema) } },
  handle: ({ datasources }) => async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await datasources.list());
  },
});
