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
import type { Context } from 'hono';
import * as v from 'valibot';
import { distinctValues, fieldList, filtersFromQuery } from '../datasources/editor.ts';
import { columnsFromQuery } from '../datasources/editor-columns.ts';
import { formatEndpoint } from '../datasources/endpoint.ts';
import type { DatasourceRegistry } from '../datasources/types.ts';
import { notFound } from '../errors.ts';
import { params, parseParam } from '../http/list-query.ts';
import { declarer, fails, json, type Operation } from '../http/operation.ts';
import { buildTopology } from '../render/topology.ts';
import type { Templates } from '../resources/templates.ts';
import { ID_PATTERN, IdSchema } from '../schema/common.ts';
import { DatasetRevisionSchema, type DatasetQuery } from '../schema/dataset.ts';
import { LimitParamSchema, OffsetParamSchema } from '../schema/list.ts';
import { LAYOUTS } from '../schema/map.ts';
import { pageParams } from './history.ts';

type Deps = { datasources: DatasourceRegistry; templates: Templates };
const route = declarer<Deps>();

/** Parameters that page an answer; never filters (a column of that name is filtered as `<name>_equal=`). */
const PAGING = ['limit', 'offset'];
const PREVIEWS = ['raw', ...LAYOUTS] as const;

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

const liveQuery = (endpoint: string, filters: DatasetQuery['filters'], columns: DatasetQuery['columns']): DatasetQuery =>
  ({ endpoint, filters, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null, ...(columns ? { columns } : {}) });

/** The spreadsheet endpoint a path names, from its parameters named as the endpoint's. */
const endpointOf = (c: Context) =>
  formatEndpoint('spreadsheet', { sheet_id: c.req.param('sheet_id') ?? '', sheet_name: c.req.param('sheet_name') ?? '' });

/** The endpoint's columns, as the query's own column names read them, and the filters of the query string (422/503 as a query run). */
async function filtered(datasources: DatasourceRegistry, c: Context) {
  const endpoint = endpointOf(c);
  datasources.checkEndpoint(endpoint);
  const mapping = columnsFromQuery(rawQuery(c));
  const columns = await datasources.columns(endpoint, mapping);
  return { endpoint, columns, query: liveQuery(endpoint, filtersFromQuery(rawQuery(c), columns, PAGING).filters, mapping) };
}

const sheetPath = {
  sheet_id: v.pipe(v.string(), v.description('the spreadsheet file name without extension')),
  sheet_name: v.pipe(v.string(), v.description('the tab (a CSV: its sheet_id)')),
};
const FieldChoiceSchema = v.object({ label: v.string(), field: v.string(), placeholder: v.string() });
const COLUMN_PARAMS = 'A query\'s own column names (query.columns) are `columns.<field>=<header>` parameters (form-encoded), never filters.';
const FILTER_PARAMS = 'Filters are query parameters as Terranova\'s editor writes them: `<field>=<value>` (equal) or ' +
  '`<field>_<operator>=<value>` (like, not_like, not_equal, equal), one per value; values of one field and operator OR together, ' +
  'filters AND. Values are not form-encoded: `+` is itself (and also matches a space), a space is `%20`. Parameters that name no field are ignored. ' +
  COLUMN_PARAMS;

export const EDITOR_OPERATIONS: Operation<Deps>[] = [
  route({
    method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/filterable_columns/', tag: 'datasources', summary: 'Fields a dataset filter may name, as the dataset editor lists them', description: `The \`filterable_columns_endpoint\` of a datasource entry (relative to /api/v1): row columns and \`endpoints.<field>\`. ${COLUMN_PARAMS}`, scope: 'read', pathParams: sheetPath, effects: ['datasource'], answers: { 200: { description: '[{label, field, placeholder}]', schema: FieldChoiceSchema, list: true } },
    handle: ({ datasources }) => async (c) => {
      const endpoint = endpointOf(c);
      datasources.checkEndpoint(endpoint);
      c.header('Cache-Control', 'no-store');
      return c.json(fieldList(await datasources.columns(endpoint, columnsFromQuery(rawQuery(c)))));
    },
  }),
  route({
    // `wide`: a field may hold a `/` (the editor puts it in the path as it is).
    method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/distinct/{field}/', wide: ['field'], tag: 'datasources', summary: 'Distinct values of a field among the rows the filters select', description: `The \`distinct_values_endpoint\` of a datasource entry plus \`/<field>/\`. ${FILTER_PARAMS}`, scope: 'read', pathParams: { ...sheetPath, field: v.pipe(v.string(), v.description('a field of the field list; may hold a /')) }, query: pageParams, effects: ['datasource'], answers: { 200: { description: 'the non-empty values, sorted naturally', schema: v.string(), list: true, headers: ['X-Result-Count', 'X-Total-Count'] }, 404: fails('not_found', 'the sheet has no such field') },
    handle: ({ datasources }) => async (c) => {
      const { columns, query } = await filtered(datasources, c);
      const field = (c.req.param('field') ?? '').trim().toLowerCase();
      if (!columns.includes(field)) {
        throw notFound(`no field ${JSON.stringify(c.req.param('field'))} to list values of; fields: ${columns.join(', ')}`);
      }
      const { records } = await datasources.run(query);
      return c.json(page(c, distinctValues(records, field)));
    },
  }),
  route({
    method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/query/', tag: 'datasources', summary: 'Rows the filters select, and their count', description: `The \`query_endpoint\` of a datasource entry; the editor asks \`?limit=0&…\` for the count alone. ${FILTER_PARAMS}`, scope: 'read', pathParams: sheetPath, query: pageParams, effects: ['datasource'], answers: { 200: { description: 'the records; X-Result-Count (and X-Total-Count) is their number before limit/offset', schema: v.looseObject({}), list: true, headers: ['X-Result-Count', 'X-Total-Count'] } },
    handle: ({ datasources }) => async (c) => {
      const { query } = await filtered(datasources, c);
      const { records } = await datasources.run(query);
      return c.json(page(c, records));
    },
  }),
  route({
    method: 'patch', path: '/api/v1/output/query/{layout}/', tag: 'output', summary: 'Preview an unsaved dataset query (records or topology)', description: 'Body: a DatasetRevision `{name, query}`; the query runs live and nothing is stored. `raw` answers the records, `logical` and `geographic` the topology. 422 and 503 as a dataset update answers them; a geographic preview in which no node has coordinates is 422 naming the fix.', scope: 'write', pathParams: { layout: v.picklist(PREVIEWS) }, query: [{ name: 'template', schema: v.pipe(IdSchema, v.description('template ID for node rendering (logical, geographic)')) }], body: { name: 'DatasetRevision', schema: DatasetRevisionSchema }, effects: ['versions', 'datasource', 'render'], answers: { 200: json('raw: the records (X-Result-Count is their number); logical and geographic: topology {name, layer, pathLayout, nodes, edges}') },
    handle: ({ datasources, templates }) => async (c, input) => {
      const layout = c.req.param('layout') as (typeof PREVIEWS)[number];
      if (!PREVIEWS.includes(layout)) throw notFound(`no such output: layout must be one of ${PREVIEWS.join(', ')}`);
      const templateId = params(c, ['template']).once('template');
      const revision = await input.body();
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
    },
  }),
];
