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
  BooleanParamSchema, fieldsParamSchema, LimitParamSchema, OffsetParamSchema, OneVersionParamSchema, sortParamSchema, StringFilterSchema, VersionParamSchema,
} from '../schema/list.ts';
import type { ListSpec } from './list-query.ts';

export interface QueryParam<N extends string = string, S extends v.GenericSchema = v.GenericSchema> {
  name: N;
  /** What each value is checked and turned into; the handler receives its output (input.query). */
  schema: S;
  /** Repeatable (form style, exploded): the handler receives every value, in order. */
  list?: boolean;
  /** With `list`: a value may hold several, comma-separated (blank pieces are skipped). */
  commas?: boolean;
  /** The route refuses a request without it (400). */
  required?: boolean;
  /** An empty value counts as absent (the output routes, whose URLs editors write with empty parameters). */
  blankIsAbsent?: boolean;
  /** A value of the wrong shape names nothing: 404 with the schema's message, as a path ID (a template ID). */
  names?: boolean;
  description?: string;
}

/** A query parameter's declaration, its name and flags kept as written so that the handler's `input.query` is typed from it. */
export const queryParam = <const Q extends QueryParam>(q: Q): Q => q;

type PathSchemas = Record<string, v.GenericSchema>;
/** The handler's `input.params`: each declared path parameter's schema output. */
export type ParamsOf<PP extends PathSchemas> = { readonly [K in keyof PP]: v.InferOutput<PP[K]> };
type ValueOf<Q extends QueryParam> = v.InferOutput<Q['schema']>;
/** The handler's `input.query`: a list parameter's values, a required one's value, any other's value or undefined. */
export type QueryOf<QL extends readonly QueryParam[]> = {
  readonly [Q in QL[number] as Q['name']]: Q extends { list: true } ? readonly ValueOf<Q>[]
    : Q extends { required: true } ? ValueOf<Q> : ValueOf<Q> | undefined;
};

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
 * - pool: draws on the render pool: 422 over its time or memory budget, 503 with Retry-After when the pool is busy
 * - metricsToken: with `metrics.token` set, answers only that bearer token: 401 otherwise
 */
export type Effect = 'versions' | 'write' | 'ifMatch' | 'datasource' | 'render' | 'layers' | 'pool' | 'metricsToken';

/** A declaration; `D` is what its handler is built from, `B` the validated body, `P` and `Q` the parsed path and query parameters. */
// biome-ignore lint/suspicious/noExplicitAny: a list holds operations of every body and parameter type; `declarer()` types each handler's input.
export interface Operation<D = unknown, B = any, P = any, Q = any> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template, as docs/api.md writes it; the service also answers without the trailing slash. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** Required scope; null: no authentication. */
  scope: ScopeKind | null;
  /** Checked before the handler runs, in this order; a value its schema refuses names nothing: 404 with the schema's message. */
  pathParams?: PathSchemas;
  /** Checked before the handler runs: a malformed value, one given twice (but a list's), or a required one missing is 400 naming it. Others are ignored. */
  query?: readonly QueryParam[];
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
  handle?: (deps: D) => Handler<B, P, Q>;
  /** Not an API operation: registered like one, left out of the document and the route list (the docs page's assets). */
  unlisted?: boolean;
  /** Path parameters that may hold a `/` (the router matches the rest of the path). */
  wide?: readonly string[];
}

/** An operation whatever its handler is built from: for what reads declarations only (the document, the route list). */
export type AnyOperation = Operation<never>;

/** The request an operation serves for another declared at a path its route also matches (`servedBy`), with that one's parameters. */
export interface Served {
  path: string;
  params: Readonly<Record<string, unknown>>;
  query: Readonly<Record<string, unknown>>;
}

/**
 * What a handler is given beside the request, from its declaration: the path
 * and query parameters parsed with the declared schemas before it runs, and
 * the body read and validated with the declared schema when it asks for it.
 */
export interface Input<B, P, Q> {
  body: () => Promise<B>;
  params: P;
  query: Q;
  /** Set when the request is for an operation this one serves (`servedBy`); `params` and `query` are then that one's. */
  served?: Served;
}

/** A declared handler: answers at once where it can (a GET with nothing to wait for stays synchronous). */
export type Handler<B = unknown, P = unknown, Q = unknown> = (c: Context<AppEnv>, input: Input<B, P, Q>) => Response | Promise<Response>;

/** A declaration as written, its handler's input typed from its body, path and query schemas. */
type Declared<D, B, PP extends PathSchemas, QL extends readonly QueryParam[]> =
  Omit<Operation<D, B>, 'pathParams' | 'query' | 'handle'> & { pathParams?: PP; query?: QL; handle?: (deps: D) => Handler<B, ParamsOf<PP>, QueryOf<QL>> };

/**
 * How an endpoint file declares its operations: `const route = declarer<Deps>()`,
 * then `route({...})` for each. The body type is taken from the declared body
 * schema and the parameters' from theirs, so the handler's `input.body()`,
 * `input.params` and `input.query` are typed; the result joins a list of
 * operations of any input.
 */
export const declarer = <D>() =>
  // biome-ignore lint/complexity/noBannedTypes: no path parameters declared: no properties.
  <B = undefined, const PP extends PathSchemas = {}, const QL extends readonly QueryParam[] = []>(op: Declared<D, B, PP, QL>): Operation<D, B, ParamsOf<PP>, QueryOf<QL>> => op;

/** The served operation's parameters, typed by its declaration: the registrar parsed them with its schemas (http/register.ts). */
export function servedAs<B, P, Q>(op: Operation<never, B, P, Q>, served: Served | undefined): { params: P; query: Q } | undefined {
  return served?.path === op.path ? (served as { params: P; query: Q }) : undefined;
}

export const oneVersion = queryParam({ name: 'version', schema: OneVersionParamSchema });

/** The query parameters of a list route, from the same spec and schemas its route parses with. */
export function listParams(spec: ListSpec) {
  return [
    queryParam({ name: 'version', schema: VersionParamSchema }),
    queryParam({ name: 'fields', schema: fieldsParamSchema(spec.resource.fields), list: true, commas: true, description: `default: ${spec.resource.defaultFields.join(', ')}` }),
    ...Object.entries(spec.filters).map(([name, type]): QueryParam<string, v.GenericSchema<string, string | boolean>> => ({
      name,
      schema: type === 'boolean' ? BooleanParamSchema : StringFilterSchema,
      list: true,
      description: type === 'boolean' ? `filter by ${name}` : `filter by ${name}; repeat to accept several values`,
    })),
    queryParam({ name: 'limit', schema: LimitParamSchema }),
    queryParam({ name: 'offset', schema: OffsetParamSchema }),
    queryParam({ name: 'sort', schema: sortParamSchema(spec.resource.fields), list: true, commas: true }),
  ];
}

export const ok = (description: string, schema?: v.GenericSchema, extra: Partial<Answer> = {}): Answer => ({ description, schema, ...extra });
export const listed = (what: string, item: v.GenericSchema): Answer =>
  ({ description: `${what} with the selected fields, ordered by ID then version; X-Total-Count is the number before limit/offset; Link names the next page of a paged list`, schema: item, list: true, headers: ['X-Total-Count', 'Link'] });
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
