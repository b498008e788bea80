// The table of every operation the service offers (docs/api.md, route by route; Terranova's routes and our
// additions), each pointing at the valibot schemas its route validates with.
// routes/openapi.ts turns it into the OpenAPI document. Owners of a route keep
// its row here in step with the route.
import * as v from 'valibot';
import type { ScopeKind } from '../auth/types.ts';
import type { ErrorCode } from '../errors.ts';
import { IdSchema } from '../schema/common.ts';
import { TokenRequestSchema } from '../schema/auth.ts';
import { DatasetRevisionSchema } from '../schema/dataset.ts';
import {
  BooleanParamSchema, documentedAs, fieldsParamSchema, integerSchema, LimitParamSchema, OffsetParamSchema, OneVersionParamSchema,
  StringFilterSchema, VERSION_NUMBER, VersionParamSchema,
} from '../schema/list.ts';
import { DATATYPES, LAYOUTS, MapRevisionSchema } from '../schema/map.ts';
import { HeightParamSchema, WidthParamSchema } from '../schema/picture.ts';
import {
  DatasetSchema, DatasourceEntrySchema, MapSchema, TemplateSchema, TokenErrorSchema, TokenResponseSchema, UserSchema,
} from '../schema/records.ts';
import { TemplateRevisionSchema } from '../schema/template.ts';
import { UserDataSchema } from '../schema/userdata.ts';
import { SetPasswordSchema, UserCreateSchema, UsernameSchema, UserUpdateSchema } from '../schema/users.ts';
import { DATASET_LIST } from './datasets.ts';
import type { ListSpec } from './list-query.ts';
import { MAP_LIST } from './maps.ts';
import { PUBLIC_MAP_LIST } from './public.ts';
import { TEMPLATE_LIST } from './templates.ts';
import { MAX_USER_LIMIT } from './users.ts';

interface QueryParam {
  name: string;
  schema: v.GenericSchema;
  /** Repeatable (form style, exploded). */
  list?: boolean;
  /** The route refuses a request without it (400). */
  required?: boolean;
  description?: string;
}

export interface Answer {
  description: string;
  /** JSON body schema; `list` wraps it in an array. */
  schema?: v.GenericSchema;
  list?: boolean;
  /** Non-JSON media type (the schema is then ignored). */
  mediaType?: string;
  headers?: string[];
  /** An error answer particular to this route: its code (the body is then the shared Error schema unless `schema` says otherwise). */
  code?: ErrorCode;
}

/**
 * What a route does beyond reading its parameters and body. Each effect adds
 * the failures it can meet to the route's answers (routes/openapi.ts,
 * ANSWER_RULES), so a route's row names what it does, not every status:
 * - versions: reads stored versions (or a dataset's stored results), whose files may be unreadable: 503 resource_unavailable
 * - write: stores something: 409 changed_on_disk (its file was changed under the service), 507 storage_unavailable
 * - ifMatch: honours If-Match: 412 when it names another version than the latest
 * - datasource: runs a dataset query: 422 when the query does not fit its sheet, 503 datasource_unavailable
 * - render: builds topology: 422 (geographic with no coordinates, logical over its limits, a template that fails)
 * - layers: resolves a map's layers: 404 for a layer's dataset, version or template, 422 for a layer it cannot use,
 *   and the versions, datasource and render effects of its datasets
 */
export type Effect = 'versions' | 'write' | 'ifMatch' | 'datasource' | 'render' | 'layers';

export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template, as docs/api.md writes it; the service also answers without the trailing slash. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** Required scope; null: no authentication. */
  scope: ScopeKind | null;
  pathParams?: Record<string, v.GenericSchema>;
  query?: QueryParam[];
  /** Named request body schema (the one the route validates with). */
  body?: { name: string; schema: v.GenericSchema; form?: boolean };
  /** The successful answers, and the failures particular to this route; the rest follow from the row (routes/openapi.ts). */
  answers: Record<number, Answer>;
  effects?: Effect[];
  /** Which of a body's failures (400, 415, 422) the route answers as such (default all); the token endpoint answers them with its own 400. */
  bodyErrors?: number[];
  /** Only with auth.backend basic. */
  basicOnly?: boolean;
}

const mapId = { mapId: IdSchema };
const datasetId = { datasetId: IdSchema };
const templateId = { templateId: IdSchema };
const username = { username: UsernameSchema };
const oneVersion: QueryParam = { name: 'version', schema: OneVersionParamSchema };

/** The query parameters of a list endpoint, from the same spec and schemas its route parses with. */
function listParams(spec: ListSpec): QueryParam[] {
  return [
    { name: 'version', schema: VersionParamSchema },
    { name: 'fields', schema: fieldsParamSchema(spec.kind.fields), list: true, description: `default: ${spec.kind.defaultFields.join(', ')}` },
    ...Object.entries(spec.filters).map(([name, type]): QueryParam => ({
      name,
      schema: type === 'boolean' ? BooleanParamSchema : StringFilterSchema,
      list: true,
      description: type === 'boolean' ? `filter by ${name}` : `filter by ${name}; repeat to accept several values`,
    })),
    { name: 'limit', schema: LimitParamSchema },
    { name: 'offset', schema: OffsetParamSchema },
    { name: 'sort', schema: v.pipe(v.string(), v.description(`a field to order by, "-" in front for descending (e.g. -lastUpdatedOn); repeat or comma-separate for more keys; one of ${spec.kind.fields.join(', ')}`)), list: true },
  ];
}

const MapItem = v.partial(MapSchema);
const DatasetItem = v.partial(DatasetSchema);
const TemplateItem = v.partial(TemplateSchema);

/** Response schemas that become named components (referenced, not repeated). */
export const NAMED_SCHEMAS = new Map<v.GenericSchema, string>([
  [MapSchema, 'Map'], [DatasetSchema, 'Dataset'], [TemplateSchema, 'Template'],
  [MapItem, 'MapListItem'], [DatasetItem, 'DatasetListItem'], [TemplateItem, 'TemplateListItem'],
  [UserSchema, 'User'], [TokenResponseSchema, 'TokenResponse'], [TokenErrorSchema, 'TokenError'],
]);

const ok = (description: string, schema?: v.GenericSchema, extra: Partial<Answer> = {}): Answer => ({ description, schema, ...extra });
const listed = (what: string, item: v.GenericSchema): Answer =>
  ({ description: `${what} with the selected fields, ordered by ID then version; X-Total-Count is the number before limit/offset`, schema: item, list: true, headers: ['X-Total-Count'] });
const created = (what: string, schema: v.GenericSchema): Answer =>
  ({ description: `the created ${what} (version 1)`, schema, headers: ['Location', 'ETag'] });
const version = (what: string, schema: v.GenericSchema): Answer => ({ description: what, schema, headers: ['ETag'] });
const json = (description: string): Answer => ({ description, schema: v.looseObject({}) });
const fails = (code: ErrorCode, description: string): Answer => ({ description, code });
// GET outputs carry an ETag of their bytes (If-None-Match gives 304) and Cache-Control: no-cache.
const rendered = (a: Answer): Answer => ({ ...a, headers: ['ETag', 'Cache-Control'] });
const svg = rendered({ description: 'SVG picture', mediaType: 'image/svg+xml' });
/** The picture routes' size (docs/api.md: Picture size). */
const pictureSize: QueryParam[] = [{ name: 'width', schema: WidthParamSchema }, { name: 'height', schema: HeightParamSchema }];

const versionNumber = v.pipe(v.string(), v.regex(VERSION_NUMBER), v.description('a version number from 1'), documentedAs(integerSchema(1)));
const diffParams: QueryParam[] = [
  { name: 'from', schema: versionNumber, description: 'default: the version before `to`' },
  { name: 'to', schema: versionNumber, description: 'default: the latest version' },
];
const pageParams: QueryParam[] = [{ name: 'limit', schema: LimitParamSchema }, { name: 'offset', schema: OffsetParamSchema }];
const HistoryItemSchema = v.object({
  version: v.pipe(v.number(), v.integer(), v.minValue(1)), lastUpdatedBy: v.string(), lastUpdatedOn: v.string(),
  public: v.optional(v.boolean()), deleted: v.optional(v.literal(true)), summary: v.string(),
});

/** History, diff, delete, restore and revert of one kind of resource (routes/history.ts). */
function historyOperations(segment: string, tag: string, idParam: Record<string, v.GenericSchema>, schema: v.GenericSchema): Operation[] {
  const [name] = Object.keys(idParam);
  const base = `/api/v1/${segment}/id/{${name}}/`;
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
const lastAdmin = fails('conflict', 'refused: no user would be left with the admin scope');
const noUserData = fails('not_found', 'none stored yet: POST it first');
// GET /api/v1/user/ reads these itself (routes/users.ts intParam): the document types them as the integers they are.
const UserLimitSchema = v.pipe(v.string(), documentedAs({ ...integerSchema(1, MAX_USER_LIMIT), default: 10 }));
const UserOffsetSchema = v.pipe(v.string(), documentedAs({ ...integerSchema(0, Number.MAX_SAFE_INTEGER), default: 0 }));
const FieldChoiceSchema = v.object({ label: v.string(), field: v.string(), placeholder: v.string() });
const FILTER_PARAMS = 'Filters are query parameters as Terranova\'s editor writes them: `<field>=<value>` (equal) or ' +
  '`<field>_<operator>=<value>` (like, not_like, not_equal, equal), one per value; values of one field and operator OR together, ' +
  'filters AND. Values are not form-encoded: `+` is itself (and also matches a space), a space is `%20`. Parameters that name no field are ignored.';

export function operations(): Operation[] {
  return [
    // Maps
    { method: 'get', path: '/api/v1/maps/', tag: 'maps', summary: 'List maps', scope: 'read', query: listParams(MAP_LIST), effects: ['versions'], answers: { 200: listed('maps', MapItem) } },
    { method: 'get', path: '/api/v1/map/id/{mapId}/', tag: 'maps', summary: 'Get a map (latest version, or ?version=)', scope: 'read', pathParams: mapId, query: [oneVersion], effects: ['versions'], answers: { 200: version('the full map object', MapSchema) } },
    { method: 'post', path: '/api/v1/map/', tag: 'maps', summary: 'Create a map', scope: 'write', body: { name: 'MapRevision', schema: MapRevisionSchema }, effects: ['write'], answers: { 201: created('map', MapSchema) } },
    { method: 'put', path: '/api/v1/map/id/{mapId}/', tag: 'maps', summary: 'Save a new version of a map', description: 'Send If-Match with the ETag you edited to get 412 instead of overwriting a newer version.', scope: 'write', pathParams: mapId, body: { name: 'MapRevision', schema: MapRevisionSchema }, effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', MapSchema) } },
    { method: 'post', path: '/api/v1/map/id/{mapId}/publish/', tag: 'maps', summary: 'Publish a map (new version with public: true)', scope: 'publish', pathParams: mapId, effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', MapSchema) } },
    { method: 'post', path: '/api/v1/map/id/{mapId}/unpublish/', tag: 'maps', summary: 'Unpublish a map (new version with public: false)', scope: 'publish', pathParams: mapId, effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', MapSchema) } },
    { method: 'get', path: '/api/v1/public/maps/', tag: 'public', summary: 'List public maps', description: 'Maps whose latest version is public; only their versions stored as public are shown.', scope: null, query: listParams(PUBLIC_MAP_LIST), effects: ['versions'], answers: { 200: listed('public maps', MapItem) } },

    // Datasets
    { method: 'get', path: '/api/v1/datasets/', tag: 'datasets', summary: 'List datasets', scope: 'read', query: listParams(DATASET_LIST), effects: ['versions'], answers: { 200: listed('datasets', DatasetItem) } },
    { method: 'get', path: '/api/v1/dataset/id/{datasetId}/', tag: 'datasets', summary: 'Get a dataset with its stored results', scope: 'read', pathParams: datasetId, query: [oneVersion], effects: ['versions'], answers: { 200: version('the full dataset object', DatasetSchema) } },
    { method: 'post', path: '/api/v1/dataset/', tag: 'datasets', summary: 'Create a dataset (the query is saved, not run)', scope: 'write', body: { name: 'DatasetRevision', schema: DatasetRevisionSchema }, effects: ['write'], answers: { 201: created('dataset', DatasetSchema) } },
    { method: 'put', path: '/api/v1/dataset/id/{datasetId}/', tag: 'datasets', summary: 'Save a new version; the query runs live and its results are stored (no filters: every row)', scope: 'write', pathParams: datasetId, body: { name: 'DatasetRevision', schema: DatasetRevisionSchema }, effects: ['versions', 'write', 'ifMatch', 'datasource'], answers: { 200: version('the new version with results and problems', DatasetSchema) } },

    // Templates
    { method: 'get', path: '/api/v1/templates/', tag: 'templates', summary: 'List node templates', scope: 'read', query: listParams(TEMPLATE_LIST), effects: ['versions'], answers: { 200: listed('templates', TemplateItem) } },
    { method: 'get', path: '/api/v1/template/id/{templateId}/', tag: 'templates', summary: 'Get a node template', scope: 'read', pathParams: templateId, query: [oneVersion], effects: ['versions'], answers: { 200: version('the full template object', TemplateSchema) } },
    { method: 'post', path: '/api/v1/template/', tag: 'templates', summary: 'Create a node template', scope: 'write', body: { name: 'NewTemplate', schema: TemplateRevisionSchema }, effects: ['write'], answers: { 201: created('template', TemplateSchema) } },
    { method: 'put', path: '/api/v1/template/id/{templateId}/', tag: 'templates', summary: 'Save a new version of a node template', scope: 'write', pathParams: templateId, body: { name: 'NewTemplate', schema: TemplateRevisionSchema }, effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', TemplateSchema) } },

    // History (one set per kind)
    ...historyOperations('map', 'maps', mapId, MapSchema),
    ...historyOperations('dataset', 'datasets', datasetId, DatasetSchema),
    ...historyOperations('template', 'templates', templateId, TemplateSchema),
    {
      method: 'get', path: '/api/v1/output/dataset/{datasetId}/diff/{layout}/svg/', tag: 'output', summary: 'Picture of the change between two versions of a dataset', description: 'Added in green, removed dashed red, changed in amber, unchanged grey, with a legend. Default: the latest version against the one before it.', scope: 'read',
      pathParams: { ...datasetId, layout: v.picklist(LAYOUTS) }, query: [...diffParams, ...pictureSize], effects: ['versions', 'render'], answers: { 200: svg },
    },

    // Output
    {
      method: 'get', path: '/api/v1/output/dataset/{datasetId}/{layout}/{datatype}/{output_type}/', tag: 'output', summary: 'Render a dataset as topology JSON or SVG', scope: 'read',
      pathParams: { ...datasetId, layout: v.picklist(LAYOUTS), datatype: v.pipe(v.picklist(DATATYPES), v.description('snapshot (or static): stored results; dynamic (or live): run the query now')), output_type: v.picklist(['json', 'svg']) },
      query: [oneVersion, { name: 'template', schema: v.pipe(IdSchema, v.description('template ID for node rendering')) }, ...pictureSize.map((q) => ({ ...q, description: 'svg only' }))],
      effects: ['versions', 'datasource', 'render'],
      answers: { 200: rendered(json('topology {name, layer, pathLayout, nodes, edges}, or SVG when output_type is svg')), 404: fails('not_found', 'snapshot: that version has no stored results (a dataset only created has none yet)') },
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
    { method: 'get', path: '/api/v1/output/map/{mapId}/svg/', tag: 'output', summary: 'Map as SVG', scope: 'write', pathParams: mapId, query: [oneVersion, ...pictureSize], effects: ['versions', 'layers'], answers: { 200: svg } },
    { method: 'patch', path: '/api/v1/output/map/', tag: 'output', summary: 'Preview an unsaved map configuration', scope: 'write', body: { name: 'MapRevision', schema: MapRevisionSchema }, effects: ['layers'], answers: { 200: json('normalized map output') } },
    { method: 'get', path: '/api/v1/public/output/map/{mapId}/', tag: 'public', summary: 'Public map output (only versions stored as public)', scope: null, pathParams: mapId, query: [oneVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('as the authenticated map output, for public maps only')) } },
    { method: 'get', path: '/api/v1/public/output/map/{mapId}/json/', tag: 'public', summary: 'The whole public map with its layers resolved', scope: null, pathParams: mapId, query: [oneVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('as the authenticated json/ output, for public maps only')) } },
    { method: 'get', path: '/api/v1/public/output/map/{mapId}/svg/', tag: 'public', summary: 'Public map as SVG', scope: null, pathParams: mapId, query: [oneVersion, ...pictureSize], effects: ['versions', 'layers'], answers: { 200: svg } },

    // Datasources
    { method: 'get', path: '/api/v1/datasources/', tag: 'datasources', summary: 'Datasource endpoints a dataset query can use', scope: null, answers: { 200: { description: 'object keyed by endpoint string, e.g. spreadsheet?sheet_id=...&sheet_name=...', schema: v.record(v.string(), DatasourceEntrySchema) } } },
    { method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/filterable_columns/', tag: 'datasources', summary: 'Fields a dataset filter may name, as the dataset editor lists them', description: 'The `filterable_columns_endpoint` of a datasource entry (relative to /api/v1): row columns and `endpoints.<field>`.', scope: 'read', pathParams: sheetPath, effects: ['datasource'], answers: { 200: { description: '[{label, field, placeholder}]', schema: FieldChoiceSchema, list: true } } },
    { method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/distinct/{field}/', tag: 'datasources', summary: 'Distinct values of a field among the rows the filters select', description: `The \`distinct_values_endpoint\` of a datasource entry plus \`/<field>/\`. ${FILTER_PARAMS}`, scope: 'read', pathParams: { ...sheetPath, field: v.pipe(v.string(), v.description('a field of the field list; may hold a /')) }, query: pageParams, effects: ['datasource'], answers: { 200: { description: 'the non-empty values, sorted naturally', schema: v.string(), list: true, headers: ['X-Result-Count', 'X-Total-Count'] }, 404: fails('not_found', 'the sheet has no such field') } },
    { method: 'get', path: '/api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/query/', tag: 'datasources', summary: 'Rows the filters select, and their count', description: `The \`query_endpoint\` of a datasource entry; the editor asks \`?limit=0&…\` for the count alone. ${FILTER_PARAMS}`, scope: 'read', pathParams: sheetPath, query: pageParams, effects: ['datasource'], answers: { 200: { description: 'the records; X-Result-Count (and X-Total-Count) is their number before limit/offset', schema: v.looseObject({}), list: true, headers: ['X-Result-Count', 'X-Total-Count'] } } },
    { method: 'patch', path: '/api/v1/output/query/{layout}/', tag: 'output', summary: 'Preview an unsaved dataset query (records or topology)', description: 'Body: a DatasetRevision `{name, query}`; the query runs live and nothing is stored. `raw` answers the records, `logical` and `geographic` the topology. 422 and 503 as a dataset update answers them; a geographic preview in which no node has coordinates is 422 naming the fix.', scope: 'write', pathParams: { layout: v.picklist(['raw', ...LAYOUTS]) }, query: [{ name: 'template', schema: v.pipe(IdSchema, v.description('template ID for node rendering (logical, geographic)')) }], body: { name: 'DatasetRevision', schema: DatasetRevisionSchema }, effects: ['versions', 'datasource', 'render'], answers: { 200: json('raw: the records (X-Result-Count is their number); logical and geographic: topology {name, layer, pathLayout, nodes, edges}') } },

    // Users and tokens
    { method: 'post', path: '/api/v1/auth/token', tag: 'auth', summary: 'Get an access token (password grant, RFC 6749 section 4.3)', scope: null, basicOnly: true, body: { name: 'TokenRequest', schema: TokenRequestSchema, form: true }, bodyErrors: [], answers: { 200: ok('the token', TokenResponseSchema), 400: { ...ok('an OAuth 2.0 error (RFC 6749 section 5.2), also for a body that cannot be read', TokenErrorSchema), code: 'bad_request' }, 429: { ...fails('rate_limited', 'too many failed logins for this username or address; Retry-After says when to try again'), headers: ['Retry-After'] } } },
    { method: 'get', path: '/api/v1/current_user/', tag: 'users', summary: 'The calling user', scope: 'read', answers: { 200: ok('username, name, email and scope', UserSchema) } },
    { method: 'get', path: '/api/v1/user/', tag: 'users', summary: 'List users', scope: 'admin', basicOnly: true, query: [{ name: 'limit', schema: UserLimitSchema, description: 'at most this many users (default 10)' }, { name: 'offset', schema: UserOffsetSchema }], answers: { 200: { description: 'users', schema: UserSchema, list: true, headers: ['X-Total-Count'] } } },
    { method: 'post', path: '/api/v1/user', tag: 'users', summary: 'Create a user', scope: 'admin', basicOnly: true, body: { name: 'UserCreate', schema: UserCreateSchema }, effects: ['write'], answers: { 201: ok('the created user', UserSchema, { headers: ['Location'] }), 409: fails('conflict', 'the username exists') } },
    { method: 'put', path: '/api/v1/user/{username}/', tag: 'users', summary: 'Update a user\'s name, email and scope', scope: 'admin', basicOnly: true, pathParams: username, body: { name: 'UserUpdate', schema: UserUpdateSchema }, effects: ['write'], answers: { 200: ok('the user', UserSchema), 409: lastAdmin } },
    { method: 'put', path: '/api/v1/user/{username}/set_password/', tag: 'users', summary: 'Set a user\'s password', scope: 'admin', basicOnly: true, pathParams: username, body: { name: 'SetPassword', schema: SetPasswordSchema }, effects: ['write'], answers: { 200: ok('the user', UserSchema) } },
    { method: 'delete', path: '/api/v1/user/{username}/', tag: 'users', summary: 'Delete a user for good', scope: 'admin', basicOnly: true, pathParams: username, effects: ['write'], answers: { 200: ok('the deleted user', UserSchema), 409: lastAdmin } },

    // The signed-in user's own data (Terranova's editor: favourites and recently edited)
    { method: 'get', path: '/api/v1/userdata/', tag: 'users', summary: 'The signed-in user\'s favourites and recently edited lists', scope: 'read', answers: { 200: json('{username, favorites: {maps, datasets, templates}, lastEdited: {…}}'), 404: noUserData } },
    { method: 'post', path: '/api/v1/userdata/', tag: 'users', summary: 'Store the signed-in user\'s data', scope: 'read', body: { name: 'UserData', schema: UserDataSchema }, effects: ['write'], answers: { 200: json('the stored data, which replaced earlier data'), 201: json('the stored data (the first time)') } },
    { method: 'put', path: '/api/v1/userdata/', tag: 'users', summary: 'Replace the signed-in user\'s data', scope: 'read', body: { name: 'UserData', schema: UserDataSchema }, effects: ['write'], answers: { 200: json('the stored data'), 404: noUserData } },

    // Service
    { method: 'get', path: '/healthz', tag: 'service', summary: 'Health: 200 once the data folder is loaded', scope: null, answers: { 200: json('{status: "ok"}, or "degraded" with the stored files that cannot be served (the rest is served)') } },
    { method: 'get', path: '/openapi.json', tag: 'service', summary: 'This document', scope: null, answers: { 200: json('OpenAPI 3.1') } },
    { method: 'get', path: '/api/v1/openapi.json', tag: 'service', summary: 'This document, beside the API', scope: null, answers: { 200: json('OpenAPI 3.1') } },
    { method: 'get', path: '/api/v1/', tag: 'service', summary: 'The routes of the API', scope: null, answers: { 200: json('{name, openapi, docs, routes: [{method, path, summary, scope}]}') } },
    { method: 'get', path: '/api/v1/docs', tag: 'service', summary: 'Interactive API documentation, beside the API', scope: null, answers: { 200: { description: 'HTML page', mediaType: 'text/html' } } },
    { method: 'get', path: '/docs', tag: 'service', summary: 'Interactive API documentation (served offline)', scope: null, answers: { 200: { description: 'HTML page', mediaType: 'text/html' } } },
  ];
}
