// The routes Terranova's dataset editor calls while a dataset is being
// edited (docs/api.md: Datasources and the dataset editor, Previews), in Terranova's shapes:
//
// - Per datasource entry of GET /api/v1/datasources/ (its `query_endpoint`,
//   `filterable_columns_endpoint` and `distinct_values_endpoint`, relative to
//   /api/v1), read scope:
//     GET …/datasources/<kind>/<params…>/filterable_columns  -> [{label, field, placeholder}]
//     GET …/datasources/<kind>/<params…>/distinct/<field>     -> ["value", …]
//     GET …/datasources/<kind>/<params…>/query                -> [record, …], X-Result-Count
//   Filters come as query parameters the way the editor writes them
//   (datasources/editor.ts); `limit` and `offset` page the answer (the editor
//   asks `limit=0` for the count alone).
// - Previews of an unsaved DatasetRevision `{name, query}`, write scope as in
//   Terranova (nothing is stored):
//     PATCH /api/v1/output/query/raw/                   -> [record, …]
//     PATCH /api/v1/output/query/{logical|geographic}/  -> topology ({name, layer, pathLayout, nodes, edges})
//   The body is validated with the dataset schema and the query runs live:
//   422 and 503 as a dataset update answers them.
import { Hono, type Context } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import { distinctValues, fieldList, filtersFromQuery } from '../datasources/editor.ts';
import { formatEndpoint } from '../datasources/endpoint.ts';
import type { DatasourceRegistry } from '../datasources/types.ts';
import { notFound } from '../errors.ts';
import { buildTopology } from '../render/topology.ts';
import type { Templates } from '../resources/templates.ts';
import { ID_PATTERN } from '../schema/common.ts';
import { DatasetRevisionSchema, type DatasetQuery } from '../schema/dataset.ts';
import { LimitParamSchema, OffsetParamSchema } from '../schema/list.ts';
import { readBody } from './body.ts';
import { params, parseParam } from './list-query.ts';

export interface QueryDeps {
  auth: Auth;
  datasources: DatasourceRegistry;
  /** For `?template=` on the topology previews. */
  templates: Templates;
}

/** Parameters that page an answer; never filters (a column of that name is filtered as `<name>_equal=`). */
const PAGING = ['limit', 'offset'];
const PREVIEWS = ['raw', 'logical', 'geographic'] as const;

const rawQuery = (c: Context) => {
  const url = c.req.url;
  const mark = url.indexOf('?');
  if (mark < 0) return '';
  const hash = url.indexOf('#', mark);
  return url.slice(mark + 1, hash < 0 ? undefined : hash);
};

/** `limit` and `offset`, each at most once, whole numbers from 0; limit absent means all. */
function paging(c: Context): { limit?: number; offset: number } {
  const { once } = params(c, PAGING);
  const limit = once('limit');
  const offset = once('offset');
  return {
    limit: limit === undefined || limit === '' ? undefined : parseParam(LimitParamSchema, 'limit', limit),
    offset: offset === undefined || offset === '' ? 0 : parseParam(OffsetParamSchema, 'offset', offset),
  };
}

function page<T>(c: Context, items: readonly T[]) {
  const { limit, offset } = paging(c);
  const total = String(items.length);
  c.header('X-Result-Count', total);
  c.header('X-Total-Count', total);
  c.header('Cache-Control', 'no-store');
  return items.slice(offset, limit === undefined ? undefined : offset + limit);
}

const liveQuery = (endpoint: string, filters: DatasetQuery['filters']): DatasetQuery =>
  ({ endpoint, filters, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null });

export function queryRoutes(deps: QueryDeps) {
  const { auth, datasources, templates } = deps;
  const app = new Hono<AppEnv>({ strict: false });
  const read = auth.requireScope('read');

  for (const { kind, params: names } of datasources.pathKinds()) {
    // Path parameters named as the endpoint's (`:sheet_id/:sheet_name`), as the OpenAPI document names them.
    const base = `/api/v1/datasources/${kind}/${names.map((name) => `:${name}`).join('/')}`;
    const endpointOf = (c: Context) =>
      formatEndpoint(kind, Object.fromEntries(names.map((name) => [name, c.req.param(name) ?? ''])));
    /** The endpoint's columns and the filters of the query string (422/503 as a query run). */
    const filtered = async (c: Context) => {
      const endpoint = endpointOf(c);
      datasources.checkEndpoint(endpoint);
      const columns = await datasources.columns(endpoint);
      return { endpoint, columns, filters: filtersFromQuery(rawQuery(c), columns, PAGING).filters };
    };

    app.get(`${base}/filterable_columns`, read, async (c) => {
      const endpoint = endpointOf(c);
      datasources.checkEndpoint(endpoint);
      c.header('Cache-Control', 'no-store');
      return c.json(fieldList(await datasources.columns(endpoint)));
    });

    app.get(`${base}/query`, read, async (c) => {
      const { endpoint, filters } = await filtered(c);
      const { records } = await datasources.run(liveQuery(endpoint, filters));
      return c.json(page(c, records));
    });

    // `{.+}`: a field may hold a `/` (the editor puts it in the path as it is).
    app.get(`${base}/distinct/:field{.+}`, read, async (c) => {
      const { endpoint, columns, filters } = await filtered(c);
      const field = (c.req.param('field') ?? '').trim().toLowerCase();
      if (!columns.includes(field)) {
        throw notFound(`no field ${JSON.stringify(c.req.param('field'))} to list values of; fields: ${columns.join(', ')}`);
      }
      const { records } = await datasources.run(liveQuery(endpoint, filters));
      return c.json(page(c, distinctValues(records, field)));
    });
  }

  app.patch('/api/v1/output/query/:layout', auth.requireScope('write'), async (c) => {
    const layout = c.req.param('layout') as (typeof PREVIEWS)[number];
    if (!PREVIEWS.includes(layout)) throw notFound(`no such output: layout must be one of ${PREVIEWS.join(', ')}`);
    const { once } = params(c, ['template']);
    const templateId = once('template');
    const revision = await readBody(c, DatasetRevisionSchema);
    datasources.checkEndpoint(revision.query.endpoint);
    let markup: string | null = null;
    if (layout !== 'raw' && templateId !== undefined && templateId !== '') {
      if (!ID_PATTERN.test(templateId)) throw notFound('no template with that ID (IDs are 7 letters or digits)');
      markup = String(templates.get(templateId).template);
    }
    const { records } = await datasources.run(revision.query);
    c.header('Cache-Control', 'no-store');
    if (layout === 'raw') {
      c.header('X-Result-Count', String(records.length));
      return c.json(records);
    }
    return c.json(await buildTopology(records, { name: revision.name, layout, query: revision.query, template: markup }));
  });

  return app;
}
