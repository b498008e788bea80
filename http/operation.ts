// The declaration of an API operation, the one place a route is described:
// its method, its path written out, its scope, parameters, body schema,
// answers and handler. The registrar (http/register.ts) registers every
// route from its declaration, and the OpenAPI document and GET /api/v1/ are
// generated from the same list (http/openapi-document.ts), so the router,
// the document and the route-wide tests read the same declaration.
import type { Context } from 'hono';
import * as v from 'valibot';
import type { AppEnv, ScopeKind } from '../auth/types.ts';
import type { ErrorCode } from '../errors.ts';
import {
  BooleanParamSchema, fieldsParamSchema, LimitParamSchema, OffsetParamSchema, OneVersionParamSchema, StringFilterSchema, VersionParamSchema,
} from '../schema/list.ts';
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
 * the failures it can meet to the route's answers (http/openapi-document.ts,
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

/** A declaration; `D` is what its handler is built from, `B` the validated body. */
// biome-ignore lint/suspicious/noExplicitAny: a list holds operations of every body type; `operation()` types each handler's body.
export interface Operation<D = unknown, B = any> {
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
  body?: { name: string; schema: v.GenericSchema<unknown, B>; form?: boolean };
  /** The successful answers, and the failures particular to this route; the rest follow from the row (http/openapi-document.ts). */
  answers: Record<number, Answer>;
  effects?: Effect[];
  /** Which of a body's failures (400, 415, 422) the route answers as such (default all); the token endpoint answers them with its own 400. */
  bodyErrors?: number[];
  /** Only with auth.backend basic. */
  basicOnly?: boolean;
  /**
   * Served by the route of the operation declared at this path, which also
   * matches this one's (the dataset change picture: Hono's fast router refuses
   * two routes that can both match one path, routes/output.ts).
   */
  servedBy?: string;
  /**
   * The route's handler, given what the registrar (http/register.ts) hands
   * every handler: the scope guard, the path and the body schema are the
   * declaration's own, so the route cannot drift from its document. Only an
   * operation served by another's route (`servedBy`) has none.
   */
  handle?: (deps: D) => Handler<B>;
  /** Not an API operation: registered like one, left out of the document and the route list (the docs page's assets). */
  unlisted?: boolean;
  /** Path parameters that may hold a `/` (the router matches the rest of the path). */
  wide?: readonly string[];
}

/** An operation whatever its handler is built from: for what reads declarations only (the document, the route list). */
export type AnyOperation = Operation<never>;

/** What a handler is given beside the request: the body read and validated with the declared schema, when the handler asks for it. */
interface Input<B> {
  body: () => Promise<B>;
}

/** A declared handler: answers at once where it can (a GET with nothing to wait for stays synchronous). */
export type Handler<B = unknown> = (c: Context<AppEnv>, input: Input<B>) => Response | Promise<Response>;

/**
 * How an endpoint file declares its operations: `const route = declarer<Deps>()`,
 * then `route({...})` for each. The body type is taken from the declared body
 * schema, so the handler's `input.body()` is typed; the result joins a list
 * of operations of any body.
 */
export const declarer = <D>() => <B = undefined>(op: Operation<D, B>): Operation<D> => op;

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

/** The router's spelling of a declared path: `{name}` parameters as `:name` (`:name{.+}` when wide), no trailing slash (the app is not strict about it). */
export function routerPath(op: Pick<Operation, 'path' | 'wide'>): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => (op.wide?.includes(name) ? `:${name}{.+}` : `:${name}`)).replace(/(.)\/$/, '$1');
}
