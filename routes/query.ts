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
import { declarer, fails, json, queryParam, type Operation } from '../http/operation.ts';
import { rawQuery } from '../http/parameters.ts';
import { buildTopology } from '../render/topology.ts';
import type { Templates } from '../resources/templates.ts';
import { idParamSchema } from '../schema/common.ts';
import { DatasetRevisionSchema, type DatasetQuery } from '../schema/dataset.ts';
import { LAYOUTS } from '../schema/map.ts';
import { pageParams } from './history.ts';

type Deps = { datasources: DatasourceRegistry; templates: Templates };
const route = declarer<Deps>();

/** Parameters that page an answer; never filters (a column of that name is filtered as `<name>_equal=`). */
const PAGING = ['limit', 'offset'];
const PREVIEWS = ['raw', ...LAYOUTS] as const;

/** `limit` and `offset`, each at most once, whole numbers from 0 (empty: absent); limit absent means all. */
const editorPaging = pageParams.map((p) => ({ ...p, blankIsAbsent: true }) as const);

function page<T>(c: Context, items: readonly T[], { limit, offset = 0 }: { limit?: number; offset?: number }) {
  const total = String(items.length);
  c.header('X-Result-Count', total);
  c.header('X-Total-Count', total);
  c.header('Cache-Control', 'no-store');
  return items.slice(offset, limit === undefined ? undefined : offset + limit);
}

const liveQuery = (endpoint: string, filters: DatasetQuery['filters'], columns: DatasetQuery['columns']): DatasetQuery =>
  ({ endpoint, filters, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null, ...(columns ? { columns } : {}) });

type SheetPath = { sheet_id: string; sheet_name: string };

/** The spreadsheet endpoint a path names, from its parameters named as the endpoint's. */
const endpointOf = ({ sheet_id, sheet_name }: SheetPath) => formatEndpoint('spreadsheet', { sheet_id, sheet_name });

/** The endpoint's columns, as the query's own column names read them, and the filters of the query string (422/503 as a query run). */
async function filtered(datasources: DatasourceRegistry, c: Context, path: SheetPath) {
  const endpoint = endpointOf(path);
  datasources.checkEndpoint(endpoint);
  const raw = rawQuery(c.req.url);
  const mapping = columnsFromQuery(raw);
  const columns = await datasources.columns(endpoint, mapping);
  return { columns, query: liveQuery(endpoint, filtersFromQuery(raw, columns, PAGING).filters, mapping) };
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
    handle: ({ datasources }) => async (c, { params }) => {
      const endpoint = endpointOf(params);
      datasources.checkEndpoint(endpoint);
      c.header('Cache-Control', 'no-store');
      return c.json(fieldList(await datasources.columns(endpoint, columnsFromQuery(rawQuery(c.req.url)))));
    },
  }),
  route({
    // `wide`: a field may hold a `/` (the editor puts it in the path as it is).
    method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/distinct/{field}/', wide: ['field'], tag: 'datasources', summary: 'Distinct values of a field among the rows the filters select', description: `The \`distinct_values_endpoint\` of a datasource entry plus \`/<field>/\`. ${FILTER_PARAMS}`, scope: 'read', pathParams: { ...sheetPath, field: v.pipe(v.string(), v.description('a field of the field list; may hold a /')) }, query: editorPaging, effects: ['datasource'], answers: { 200: { description: 'the non-empty values, sorted naturally', schema: v.string(), list: true, headers: ['X-Result-Count', 'X-Total-Count'] }, 404: fails('not_found', 'the sheet has no such field') },
    handle: ({ datasources }) => async (c, { params, query }) => {
      const { columns, query: live } = await filtered(datasources, c, params);
      const field = params.field.trim().toLowerCase();
      if (!columns.includes(field)) {
        throw notFound(`no field ${JSON.stringify(params.field)} to list values of; fields: ${columns.join(', ')}`);
      }
      const { records } = await datasources.run(live);
      return c.json(page(c, distinctValues(records, field), query));
    },
  }),
  route({
    method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/query/', tag: 'datasources', summary: 'Rows the filters select, and their count', description: `The \`query_endpoint\` of a datasource entry; the editor asks \`?limit=0&…\` for the count alone. ${FILTER_PARAMS}`, scope: 'read', pathParams: sheetPath, query: editorPaging, effects: ['datasource'], answers: { 200: { description: 'the records; X-Result-Count (and X-Total-Count) is their number before limit/offset', schema: v.looseObject({}), list: true, headers: ['X-Result-Count', 'X-Total-Count'] } },
    handle: ({ datasources }) => async (c, { params, query }) => {
      const { query: live } = await filtered(datasources, c, params);
      const { records } = await datasources.run(live);
      return c.json(page(c, records, query));
    },
  }),
  route({
    method: 'patch', path: '/api/v1/output/query/{layout}/', tag: 'output', summary: 'Preview an unsaved dataset query (records or topology)', description: 'Body: a DatasetRevision `{name, query}`; the query runs live and nothing is stored. `raw` answers the records, `logical` and `geographic` the topology. 422 and 503 as a dataset update answers them; a geographic preview in which no node has coordinates is 422 naming the fix.', scope: 'write', pathParams: { layout: v.picklist(PREVIEWS, `no such output: layout must be one of ${PREVIEWS.join(', ')}`) },
    query: [queryParam({ name: 'template', schema: v.pipe(idParamSchema('template'), v.description('template ID for node rendering (logical, geographic)')), blankIsAbsent: true, names: true })], body: { name: 'DatasetRevision', schema: DatasetRevisionSchema }, effects: ['versions', 'datasource', 'render'], answers: { 200: json('raw: the records (X-Result-Count is their number); logical and geographic: topology {name, layer, pathLayout, nodes, edges}') },
    handle: ({ datasources, templates }) => async (c, { body, params: { layout }, query: { template } }) => {
      const revision = await body();
      datasources.checkEndpoint(revision.query.endpoint);
      const markup = layout !== 'raw' && template !== undefined ? String(templates.get(template).template) : null;
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
