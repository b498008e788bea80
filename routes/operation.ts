// The declaration of an API operation, the one place a route is described:
// its method, path, scope, parameters, body schema and answers. The OpenAPI
// document and GET /api/v1/ are generated from the declarations
// (routes/api-operations.ts, routes/openapi.ts); an operation that carries its
// handler is also registered from its declaration (operationRoutes below), so
// the router, the document and the route-wide tests read the same row.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { Auth } from '../auth/index.ts';
import type { AppEnv, ScopeKind } from '../auth/types.ts';
import type { ErrorCode } from '../errors.ts';
import type { Datasets } from '../resources/datasets.ts';
import type { Maps } from '../resources/maps.ts';
import type { Templates } from '../resources/templates.ts';
import type { UserDataStore } from '../resources/userdata.ts';
import {
  BooleanParamSchema, fieldsParamSchema, LimitParamSchema, OffsetParamSchema, OneVersionParamSchema, StringFilterSchema, VersionParamSchema,
} from '../schema/list.ts';
import type { Store } from '../store/types.ts';
import type { LiveTraffic } from '../traffic/live.ts';
import { readBody } from './body.ts';
import type { ListSpec } from './list-query.ts';

export interface QueryParam {
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
  /**
   * Served by the route of the operation declared at this path, which also
   * matches this one's (the dataset change picture: Hono's fast router refuses
   * two routes that can both match one path, routes/history.ts diffPicture).
   */
  servedBy?: string;
  /**
   * The route's handler, for operations the router registers from this
   * declaration (operationRoutes): the scope guard, the path and the body
   * schema are the declaration's own, so the route cannot drift from its
   * document. Operations without one are registered by their route file.
   */
  handle?: (deps: RouteDeps) => OperationHandler;
}

/** What the declared handlers work with. */
export interface RouteDeps {
  auth: Auth;
  maps: Maps;
  datasets: Datasets;
  templates: Templates;
  userdata: UserDataStore;
  /** server.baseUrl, for Location headers. */
  baseUrl: string;
  store: Store;
  /** Live traffic: the metrics sources and their reads (traffic/live.ts). */
  traffic: LiveTraffic;
}

/** A declared handler: `body()` reads and validates the request body with the declaration's schema (when the handler is ready for it). */
type OperationHandler = (c: Context<AppEnv>, body: () => Promise<unknown>) => Response | Promise<Response>;

export const oneVersion: QueryParam = { name: 'version', schema: OneVersionParamSchema };

/** The query parameters of a list route, from the same spec and schemas its route parses with. */
export function listParams(spec: ListSpec): QueryParam[] {
  return [
    { name: 'version', schema: VersionParamSchema },
    { name: 'fields', schema: fieldsParamSchema(spec.resource.fields), list: true, description: `default: ${spec.resource.defaultFields.join(', ')}` },
    ...Object.entries(spec.filters).map(([name, type]): QueryParam => ({
      name,
      schema: type === 'boolean' ? BooleanParamSchema : StringFilterSchema,
      list: true,
      description: type === 'boolean' ? `filter by ${name}` : `filter by ${name}; repeat to accept several values`,
    })),
    { name: 'limit', schema: LimitParamSchema },
    { name: 'offset', schema: OffsetParamSchema },
    { name: 'sort', schema: v.pipe(v.string(), v.description(`a field to order by, "-" in front for descending (e.g. -lastUpdatedOn); repeat or comma-separate for more keys; one of ${spec.resource.fields.join(', ')}`)), list: true },
  ];
}

export const ok = (description: string, schema?: v.GenericSchema, extra: Partial<Answer> = {}): Answer => ({ description, schema, ...extra });
export const listed = (what: string, item: v.GenericSchema): Answer =>
  ({ description: `${what} with the selected fields, ordered by ID then version; X-Total-Count is the number before limit/offset`, schema: item, list: true, headers: ['X-Total-Count'] });
export const created = (what: string, schema: v.GenericSchema): Answer =>
  ({ description: `the created ${what} (version 1)`, schema, headers: ['Location', 'ETag'] });
export const version = (what: string, schema: v.GenericSchema): Answer => ({ description: what, schema, headers: ['ETag'] });
export const json = (description: string): Answer => ({ description, schema: v.looseObject({}) });
export const fails = (code: ErrorCode, description: string): Answer => ({ description, code });
// GET outputs carry an ETag of their bytes (If-None-Match gives 304) and Cache-Control: no-cache.
export const rendered = (a: Answer): Answer => ({ ...a, headers: ['ETag', 'Cache-Control'] });
export const svg = rendered({ description: 'SVG picture', mediaType: 'image/svg+xml' });

/** The router's spelling of a declared path: `{name}` parameters as `:name`, no trailing slash (the app is not strict about it). */
export function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1').replace(/(.)\/$/, '$1');
}

/** The routes of the operations that carry a handler, each behind its declared scope and reading its declared body. */
export function operationRoutes(operations: readonly Operation[], deps: RouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  for (const op of operations) {
    // Local accounts exist only with the basic backend: its routes are not there otherwise (404).
    if (!op.handle || (op.basicOnly && !deps.auth.accounts)) continue;
    const handler = op.handle(deps);
    const declared = op.body;
    const route = (c: Context<AppEnv>) => handler(c, () => (declared ? readBody(c, declared.schema, { form: declared.form }) : Promise.resolve(undefined)));
    // The guard is the check and the handler as one: a GET with a known token then answers without a middleware chain.
    app.on(op.method.toUpperCase(), routerPath(op.path), op.scope === null ? route : deps.auth.guard(op.scope, route));
  }
  return app;
}
