// The table of every operation the service offers (docs/api.md, route by route; Terranova's routes and our
// additions), each a declaration (routes/operation.ts) pointing at the valibot schemas its route validates with.
// routes/openapi.ts turns it into the OpenAPI document and GET /api/v1/. The versioned resources' rows are
// declared by their resources (routes/maps.ts, datasets.ts, templates.ts through routes/resource-routes.ts) with
// their handlers, and the router registers them from the same rows; the other rows' owners keep them in step
// with their route files (test/routes/operations.test.ts checks that the router and the table agree).
import * as v from 'valibot';
import { IdSchema } from '../schema/common.ts';
import { TokenRequestSchema } from '../schema/auth.ts';
import { DatasetRevisionSchema } from '../schema/dataset.ts';
import { documentedAs, integerSchema, LimitParamSchema, OffsetParamSchema, VERSION_NUMBER } from '../schema/list.ts';
import { DATATYPES, LAYOUTS, MapRevisionSchema } from '../schema/map.ts';
import { DatasourceListingSchema, TokenErrorSchema, TokenResponseSchema, UserSchema } from '../schema/objects.ts';
import { DATASET_ROUTES } from './datasets.ts';
import { MAP_ROUTES } from './maps.ts';
import { HeightParamSchema, WidthParamSchema } from '../schema/picture.ts';
import {
  fails, json, listed, listParams, ok, oneVersion, rendered, svg, version, type Answer, type Operation, type QueryParam,
} from './operation.ts';
import { PUBLIC_MAP_LIST } from './public.ts';
import type { ResourceRoutes } from './resource-routes.ts';
import { TEMPLATE_ROUTES } from './templates.ts';
import { TRAFFIC_OPERATIONS, TRAFFIC_ROW_OPERATIONS } from './traffic.ts';
import { USERDATA_OPERATIONS } from './userdata.ts';
import { USER_OPERATIONS } from './users.ts';

/** The versioned resource resources, in the document's order. */
export const RESOURCE_ROUTES: readonly ResourceRoutes[] = [MAP_ROUTES, DATASET_ROUTES, TEMPLATE_ROUTES];

const mapId = MAP_ROUTES.idParam;
const datasetId = DATASET_ROUTES.idParam;
export const NAMED_SCHEMAS = new Map<v.GenericSchema, string>([
  ...RESOURCE_ROUTES.flatMap((kind): Array<[v.GenericSchema, string]> => [[kind.object.schema, kind.object.name], [kind.item, `${kind.object.name}ListItem`]]),
  [UserSchema, 'User'], [TokenResponseSchema, 'TokenResponse'], [TokenErrorSchema, 'TokenError'],
]);

const png = rendered({ description: 'PNG picture: the SVG picture of the same route and parameters, rasterized with the shipped font', mediaType: 'image/png' });
const pngTooLarge = fails('validation_failed', 'png: the picture is larger than a PNG may be (output.pngMaxSide a side, output.pngMaxPixels in all); the detail gives its size');
/** The picture routes' size (docs/api.md: Picture size). */
const pictureSize: QueryParam[] = [{ name: 'width', schema: WidthParamSchema }, { name: 'height', schema: HeightParamSchema }];

/** Live traffic of pictures and rows (docs/traffic.md: Time travel). */
const trafficParams: QueryParam[] = [
  { name: 'at', schema: v.pipe(v.string(), v.description('an instant, RFC 3339 or unix seconds: the map version current then, with the traffic of then')) },
  { name: 'range', schema: v.pipe(v.string(), v.description('a window ending at `at` (default now), 1m to 7d, such as 1h: the busiest values over it')) },
  { name: 'stat', schema: v.pipe(v.picklist(['max', 'p95']), v.description('with range: the maximum (default) or the 95th percentile')) },
];
const TRAFFIC_PICTURE = 'A map with a layer bound to traffic is drawn with each bound circuit\'s live utilisation (docs/traffic.md); its ETag names the step bucket and Cache-Control gives the seconds left in it.';

const versionNumber = v.pipe(v.string(), v.regex(VERSION_NUMBER), v.description('a version number from 1'), documentedAs(integerSchema(1)));
const diffParams: QueryParam[] = [
  { name: 'from', schema: versionNumber, description: 'default: the version before `to`' },
  { name: 'to', schema: versionNumber, description: 'default: the latest version' },
];
/** The dataset output's path; its route also serves the dataset change picture's. */
const DATASET_OUTPUT = '/api/v1/output/dataset/{datasetId}/{layout}/{datatype}/{output_type}/';
const pageParams: QueryParam[] = [{ name: 'limit', schema: LimitParamSchema }, { name: 'offset', schema: OffsetParamSchema }];
const HistoryItemSchema = v.object({
  version: v.pipe(v.number(), v.integer(), v.minValue(1)), lastUpdatedBy: v.string(), lastUpdatedOn: v.string(),
  public: v.optional(v.boolean()), deleted: v.optional(v.literal(true)), summary: v.string(),
});

/** History, diff, delete, restore and revert of one kind of resource (routes/history.ts). */
function historyOperations({ segment, tag, idParam, object: { schema } }: ResourceRoutes): Operation[] {
  const base = `/api/v1/${segment}/id/{${Object.keys(idParam)[0]}}/`;
  const inUse: Record<number, Answer> = segment === 'map' ? {} : { 409: fails('conflict', `the ${segment} is used by a map that is not deleted; the detail names the maps`) };
  return [
    { method: 'get', path: `${base}history/`, tag, summary: `Versions of a ${segment}, newest first`, description: 'Deleted resources keep their history.', scope: 'read', pathParams: idParam, query: pageParams, effects: ['versions'], answers: { 200: { description: 'versions with who, when and a summary of the change', schema: HistoryItemSchema, list: true, headers: ['X-Total-Count'] } } },
    { method: 'get', path: `${base}diff/`, tag, summary: `What changed between two versions of a ${segment}, by meaning`, scope: 'read', pathParams: idParam, query: diffParams, effects: ['versions'], answers: { 200: json('the changes: {path, op, from, to} items; datasets add nodes and edges added, removed and changed; templates add changed lines') } },
    { method: 'delete', path: base, tag, summary: `Delete a ${segment} (a tombstone version; history and restore remain)`, scope: 'write', pathParams: idParam, effects: ['versions', 'write', 'ifMatch'], answers: { 200: json('the tombstone: ID, version, lastUpdatedBy, lastUpdatedOn, deleted: true'), ...inUse } },
    { method: 'post', path: `${base}restore/`, tag, summary: `Bring a deleted ${segment} back as a new version`, scope: 'write', pathParams: idParam, effects: ['versions', 'write'], answers: { 200: version('the new version', schema), 409: fails('conflict', `the ${segment} is not deleted`) } },
    { method: 'post', path: `${base}revert/`, tag, summary: `A new version with the content of version N`, scope: 'write', pathParams: idParam, query: [{ ...oneVersion, schema: versionNumber, required: true }], effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', schema) } },
  ];
}

const sheetPath = {
  sheet_id: v.pipe(v.string(), v.description('the spreadsheet file name without extension')),
  sheet_name: v.pipe(v.string(), v.description('the tab (a CSV: its sheet_id)')),
};
const FieldChoiceSchema = v.object({ label: v.string(), field: v.string(), placeholder: v.string() });
const FILTER_PARAMS = 'Filters are query parameters as Terranova\'s editor writes them: `<field>=<value>` (equal) or ' +
  '`<field>_<operator>=<value>` (like, not_like, not_equal, equal), one per value; values of one field and operator OR together, ' +
  'filters AND. Values are not form-encoded: `+` is itself (and also matches a space), a space is `%20`. Parameters that name no field are ignored.';

export function operations(): Operation[] {
  return [
    // Maps, datasets and templates: list, get, create, update (and a map's publish, unpublish), declared by their resources
    ...MAP_ROUTES.operations,
    { method: 'get', path: '/api/v1/public/maps/', tag: 'public', summary: 'List public maps', description: 'Maps whose latest version is public; only their versions stored as public are shown.', scope: null, query: listParams(PUBLIC_MAP_LIST), effects: ['versions'], answers: { 200: listed('public maps', MAP_ROUTES.item) } },
    ...DATASET_ROUTES.operations,
    ...TEMPLATE_ROUTES.operations,

    // History (one set per kind)
    ...RESOURCE_ROUTES.flatMap(historyOperations),
    {
      method: 'get', path: '/api/v1/output/dataset/{datasetId}/diff/{layout}/svg/', tag: 'output', summary: 'Picture of the change between two versions of a dataset', description: 'Added in green, removed dashed red, changed in amber, unchanged grey, with a legend. Default: the latest version against the one before it.', scope: 'read',
      pathParams: { ...datasetId, layout: v.picklist(LAYOUTS) }, query: [...diffParams, ...pictureSize], effects: ['versions', 'render'], answers: { 200: svg },
      servedBy: DATASET_OUTPUT,
    },
    {
      method: 'get', path: '/api/v1/output/dataset/{datasetId}/diff/{layout}/png/', tag: 'output', summary: 'Picture of the change between two versions of a dataset, as PNG', description: 'The picture of `…/diff/{layout}/svg/` with the same parameters, rasterized.', scope: 'read',
      pathParams: { ...datasetId, layout: v.picklist(LAYOUTS) }, query: [...diffParams, ...pictureSize], effects: ['versions', 'render'], answers: { 200: png, 422: pngTooLarge },
      servedBy: DATASET_OUTPUT,
    },

    // Output
    {
      method: 'get', path: DATASET_OUTPUT, tag: 'output', summary: 'Render a dataset as topology JSON, SVG or PNG', scope: 'read',
      pathParams: { ...datasetId, layout: v.picklist(LAYOUTS), datatype: v.pipe(v.picklist(DATATYPES), v.description('snapshot (or static): stored results; dynamic (or live): run the query now')), output_type: v.pipe(v.picklist(['json', 'svg', 'png']), v.description('json: topology; svg: its picture (image/svg+xml); png: that picture rasterized (image/png)')) },
      query: [oneVersion, { name: 'template', schema: v.pipe(IdSchema, v.description('template ID for node rendering')) }, ...pictureSize.map((q) => ({ ...q, description: 'svg and png only' }))],
      effects: ['versions', 'datasource', 'render'],
      answers: { 200: rendered(json('topology {name, layer, pathLayout, nodes, edges}; the picture (image/svg+xml, image/png) when output_type is svg or png')), 404: fails('not_found', 'snapshot: that version has no stored results (a dataset only created has none yet)'), 422: pngTooLarge },
    },
    {
      method: 'get', path: '/api/v1/output/dataset/{datasetId}/{layout}/{datatype}/', tag: 'output', summary: 'A dataset as topology JSON (the URL Terranova\'s editor writes into a layer\'s mapjsonUrl)', scope: 'read',
      pathParams: { ...datasetId, layout: v.picklist(LAYOUTS), datatype: v.pipe(v.picklist(DATATYPES), v.description('snapshot (or static): stored results; dynamic (or live): run the query now')) },
      query: [oneVersion, { name: 'template', schema: v.pipe(IdSchema, v.description('template ID for node rendering')) }],
      effects: ['versions', 'datasource', 'render'],
      answers: { 200: rendered(json('topology {name, layer, pathLayout, nodes, edges}')), 404: fails('not_found', 'snapshot: that version has no stored results (a dataset only created has none yet)') },
    },
    { method: 'get', path: '/api/v1/output/map/{mapId}/', tag: 'output', summary: 'Map configuration with its layers resolved into topology', description: 'What the map component\'s "configure from URL" loads: the configuration, `layers` at the top level, each with `mapjson` (a JSON string); Terranova\'s defaults filled in where the stored configuration lacks them.', scope: 'write', pathParams: mapId, query: [oneVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('the configuration with each layer\'s mapjson filled in')) } },
    { method: 'get', path: '/api/v1/output/map/{mapId}/json/', tag: 'output', summary: 'The whole map with its layers resolved', scope: 'write', pathParams: mapId, query: [oneVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('the map object (ID, name, version, configuration with each layer\'s mapjson, overrides)')) } },
    { method: 'get', path: '/api/v1/output/map/{mapId}/svg/', tag: 'output', summary: 'Map as SVG', description: TRAFFIC_PICTURE, scope: 'write', pathParams: mapId, query: [oneVersion, ...pictureSize, ...trafficParams], effects: ['versions', 'layers'], answers: { 200: svg } },
    { method: 'get', path: '/api/v1/output/map/{mapId}/png/', tag: 'output', summary: 'Map as PNG (its SVG rasterized)', description: TRAFFIC_PICTURE, scope: 'write', pathParams: mapId, query: [oneVersion, ...pictureSize, ...trafficParams], effects: ['versions', 'layers'], answers: { 200: png, 422: pngTooLarge } },
    ...TRAFFIC_ROW_OPERATIONS(mapId, trafficParams),
    { method: 'patch', path: '/api/v1/output/map/', tag: 'output', summary: 'Preview an unsaved map configuration', scope: 'write', body: { name: 'MapRevision', schema: MapRevisionSchema }, effects: ['layers'], answers: { 200: json('normalized map output') } },
    { method: 'get', path: '/api/v1/public/output/map/{mapId}/', tag: 'public', summary: 'Public map output (only versions stored as public)', scope: null, pathParams: mapId, query: [oneVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('as the authenticated map output, for public maps only')) } },
    { method: 'get', path: '/api/v1/public/output/map/{mapId}/json/', tag: 'public', summary: 'The whole public map with its layers resolved', scope: null, pathParams: mapId, query: [oneVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('as the authenticated json/ output, for public maps only')) } },
    { method: 'get', path: '/api/v1/public/output/map/{mapId}/svg/', tag: 'public', summary: 'Public map as SVG', description: TRAFFIC_PICTURE, scope: null, pathParams: mapId, query: [oneVersion, ...pictureSize, ...trafficParams], effects: ['versions', 'layers'], answers: { 200: svg } },
    { method: 'get', path: '/api/v1/public/output/map/{mapId}/png/', tag: 'public', summary: 'Public map as PNG (its SVG rasterized)', description: TRAFFIC_PICTURE, scope: null, pathParams: mapId, query: [oneVersion, ...pictureSize, ...trafficParams], effects: ['versions', 'layers'], answers: { 200: png, 422: pngTooLarge } },

    // Live traffic
    ...TRAFFIC_OPERATIONS,

    // Datasources
    { method: 'get', path: '/api/v1/datasources/', tag: 'datasources', summary: 'Datasource endpoints a dataset query can use', scope: null, answers: { 200: { description: 'object keyed by endpoint string, e.g. spreadsheet?sheet_id=...&sheet_name=...', schema: v.record(v.string(), DatasourceListingSchema) } } },
    { method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/filterable_columns/', tag: 'datasources', summary: 'Fields a dataset filter may name, as the dataset editor lists them', description: 'The `filterable_columns_endpoint` of a datasource entry (relative to /api/v1): row columns and `endpoints.<field>`.', scope: 'read', pathParams: sheetPath, effects: ['datasource'], answers: { 200: { description: '[{label, field, placeholder}]', schema: FieldChoiceSchema, list: true } } },
    { method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/distinct/{field}/', tag: 'datasources', summary: 'Distinct values of a field among the rows the filters select', description: `The \`distinct_values_endpoint\` of a datasource entry plus \`/<field>/\`. ${FILTER_PARAMS}`, scope: 'read', pathParams: { ...sheetPath, field: v.pipe(v.string(), v.description('a field of the field list; may hold a /')) }, query: pageParams, effects: ['datasource'], answers: { 200: { description: 'the non-empty values, sorted naturally', schema: v.string(), list: true, headers: ['X-Result-Count', 'X-Total-Count'] }, 404: fails('not_found', 'the sheet has no such field') } },
    { method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/query/', tag: 'datasources', summary: 'Rows the filters select, and their count', description: `The \`query_endpoint\` of a datasource entry; the editor asks \`?limit=0&…\` for the count alone. ${FILTER_PARAMS}`, scope: 'read', pathParams: sheetPath, query: pageParams, effects: ['datasource'], answers: { 200: { description: 'the records; X-Result-Count (and X-Total-Count) is their number before limit/offset', schema: v.looseObject({}), list: true, headers: ['X-Result-Count', 'X-Total-Count'] } } },
    { method: 'patch', path: '/api/v1/output/query/{layout}/', tag: 'output', summary: 'Preview an unsaved dataset query (records or topology)', description: 'Body: a DatasetRevision `{name, query}`; the query runs live and nothing is stored. `raw` answers the records, `logical` and `geographic` the topology. 422 and 503 as a dataset update answers them; a geographic preview in which no node has coordinates is 422 naming the fix.', scope: 'write', pathParams: { layout: v.picklist(['raw', ...LAYOUTS]) }, query: [{ name: 'template', schema: v.pipe(IdSchema, v.description('template ID for node rendering (logical, geographic)')) }], body: { name: 'DatasetRevision', schema: DatasetRevisionSchema }, effects: ['versions', 'datasource', 'render'], answers: { 200: json('raw: the records (X-Result-Count is their number); logical and geographic: topology {name, layer, pathLayout, nodes, edges}') } },

    // Users and tokens
    { method: 'post', path: '/api/v1/auth/token', tag: 'auth', summary: 'Get an access token (password grant, RFC 6749 section 4.3)', scope: null, basicOnly: true, body: { name: 'TokenRequest', schema: TokenRequestSchema, form: true }, bodyErrors: [], answers: { 200: ok('the token', TokenResponseSchema), 400: { ...ok('an OAuth 2.0 error (RFC 6749 section 5.2), also for a body that cannot be read', TokenErrorSchema), code: 'bad_request' }, 429: { ...fails('rate_limited', 'too many failed logins for this username or address; Retry-After says when to try again'), headers: ['Retry-After'] } } },

    ...USER_OPERATIONS,

    // The signed-in user's own data (Terranova's editor: favourites and recently edited)
    ...USERDATA_OPERATIONS,

    // Service
    { method: 'get', path: '/healthz', tag: 'service', summary: 'Health: 200 once the data folder is loaded', scope: null, answers: { 200: json('{status: "ok"}, or "degraded" with the stored files that cannot be served (the rest is served)') } },
    { method: 'get', path: '/openapi.json', tag: 'service', summary: 'This document', scope: null, answers: { 200: json('OpenAPI 3.1') } },
    { method: 'get', path: '/api/v1/openapi.json', tag: 'service', summary: 'This document, beside the API', scope: null, answers: { 200: json('OpenAPI 3.1') } },
    { method: 'get', path: '/api/v1/', tag: 'service', summary: 'The routes of the API', scope: null, answers: { 200: json('{name, openapi, docs, routes: [{method, path, summary, scope}]}') } },
    { method: 'get', path: '/api/v1/docs', tag: 'service', summary: 'Interactive API documentation, beside the API', scope: null, answers: { 200: { description: 'HTML page', mediaType: 'text/html' } } },
    { method: 'get', path: '/docs', tag: 'service', summary: 'Interactive API documentation (served offline)', scope: null, answers: { 200: { description: 'HTML page', mediaType: 'text/html' } } },
  ];
}
