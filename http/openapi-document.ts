// The OpenAPI 3.1 document (GET /openapi.json, routes/openapi.ts), generated
// from the operation declarations (routes/index.ts) and the valibot schemas the
// routes validate with, converted by @valibot/to-json-schema. Request bodies
// and responses are named components; paths keep docs/api.md's spelling. Each
// operation lists every answer it can give: its own (the table's row), and
// the failures that follow from what the row says it takes and does, by the
// rules of ANSWER_RULES below, each with the error codes it can carry.
import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import { createRequire } from 'node:module';
import type * as v from 'valibot';
import type { ScopeKind } from '../auth/types.ts';
import type { Settings } from '../config/settings.ts';
import type { ErrorCode } from '../errors.ts';
import { MAX_JSON_DEPTH } from '../schema/json-depth.ts';
import { ErrorSchema } from '../schema/objects.ts';
import type { Answer, AnyOperation, Effect, Operation } from './operation.ts';

/**
 * JSON Schema 2020-12 is OpenAPI 3.1's dialect; transforms and checks have no
 * JSON form and are skipped. A pipe that ends by saying how it is documented
 * (schema/list.ts documentedAs: a parameter whose text the pipe turns into a
 * number) is that JSON Schema, with the pipe's description.
 */
const JSON_SCHEMA_CONFIG: ConversionConfig = {
  target: 'draft-2020-12', typeMode: 'ignore', errorMode: 'ignore',
  overrideAction: ({ valibotAction, jsonSchema }) => {
    const own = valibotAction.kind === 'metadata'
      ? (valibotAction as { metadata?: { jsonSchema?: Record<string, unknown> } }).metadata?.jsonSchema
      : undefined;
    return own && { ...(typeof jsonSchema.description === 'string' ? { description: jsonSchema.description } : {}), ...structuredClone(own) };
  },
};

export function jsonSchema(schema: v.GenericSchema): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, JSON_SCHEMA_CONFIG) as Record<string, unknown>;
  return rest;
}

/** What of the service's setup changes the answers. */
interface Setup {
  /** auth.basic.acceptHttpBasic with the basic backend: API requests may carry Basic credentials, which are throttled. */
  httpBasic: boolean;
  /** An external OpenID issuer, whose keys are fetched to verify tokens. */
  remoteIssuer: boolean;
  /** metrics.token is set: GET /metrics answers only it. */
  metricsToken: boolean;
}

/** An answer a rule adds: a failure with the codes it can carry, or 304. */
interface RuleAnswer {
  status: number;
  /** The `code` values of the body (none: no body). */
  codes: ErrorCode[];
  text: string;
  headers?: string[];
}

interface AnswerRule {
  /** Which operations, in words (the rule's name). */
  when: string;
  applies: (op: AnyOperation, setup: Setup) => boolean;
  answers: (op: AnyOperation) => RuleAnswer[];
}

/** Methods whose requests pass the body limit (server.ts), body or not. */
const BODY_METHODS = new Set<Operation['method']>(['post', 'put', 'patch', 'delete']);
/** Resolving a map's layers reads its datasets' versions, runs live ones and draws them all. */
const LAYER_EFFECTS: Effect[] = ['versions', 'datasource', 'render'];
const does = (op: AnyOperation, effect: Effect) =>
  op.effects?.includes(effect) === true || (LAYER_EFFECTS.includes(effect) && op.effects?.includes('layers') === true);

const LABELS: Record<string, string> = { mapId: 'map', datasetId: 'dataset', templateId: 'template', username: 'user' };
/** Routes that also serve a deleted resource (its history, and bringing it back). */
const SERVES_DELETED = /\/(?:history|diff|restore)\/$/;

/**
 * Path parameters that must name something: an ID or username (a pattern) or
 * one of listed values (an enum); anything else in them is 404. Free text
 * (a sheet's name) is the datasource's to judge.
 */
function namingParams(op: AnyOperation): Array<[string, 'name' | 'value']> {
  return Object.entries(op.pathParams ?? {}).flatMap(([name, schema]): Array<[string, 'name' | 'value']> => {
    const json = jsonSchema(schema);
    if (typeof json.pattern === 'string') return [[name, 'name']];
    return Array.isArray(json.enum) ? [[name, 'value']] : [];
  });
}

const fixed = (...answers: RuleAnswer[]) => () => answers;

/**
 * Which failures follow from what an operation takes and does. Every status
 * a route can answer is one of its table row's answers or comes from here;
 * test/routes/openapi-answers.test.ts provokes them against the real routes.
 */
const ANSWER_RULES: AnswerRule[] = [
  {
    when: 'every operation',
    applies: () => true,
    answers: fixed(
      { status: 431, codes: [], text: 'the request\'s header fields are over Node\'s limit (16 KB in all): answered before any route runs, with no body, and the connection closed' },
      { status: 400, codes: [], text: 'the request is not well-formed HTTP/1.1 (a header with characters HTTP forbids): answered before any route runs, with no body, and the connection closed' },
      { status: 408, codes: ['request_timeout'], text: 'the request\'s headers did not arrive within server.headersTimeoutSeconds (server.requestTimeoutSeconds unless set)' },
      { status: 500, codes: ['internal'], text: 'an unexpected failure; the detail carries a trace ID (also in traceId) that the log has beside the stack' },
    ),
  },
  {
    when: 'an operation with query parameters',
    applies: (op) => (op.query?.length ?? 0) > 0,
    answers: (op) => [{
      status: 400, codes: ['bad_request'],
      text: `a query parameter is malformed or given more than once${op.query?.some((q) => q.required) ? ', or a required one is missing' : ''}; errors[] names it`,
    }],
  },
  {
    when: 'a POST, PUT, PATCH or DELETE (the body limit reads any body sent)',
    applies: (op) => BODY_METHODS.has(op.method),
    answers: fixed(
      { status: 400, codes: ['bad_request'], text: 'Content-Length is not a number' },
      { status: 408, codes: ['request_timeout'], text: 'the request did not arrive in full within server.requestTimeoutSeconds' },
      { status: 413, codes: ['payload_too_large'], text: 'the body is over server.bodyLimitBytes (or its chunk extensions over Node\'s 16 KB: then with no body)' },
    ),
  },
  {
    when: 'an operation with a request body',
    applies: (op) => op.body !== undefined,
    answers: (op) => ([
      { status: 400, codes: ['bad_request'], text: `the body is empty, not JSON, or nests more than ${MAX_JSON_DEPTH} levels deep` },
      { status: 415, codes: ['unsupported_media_type'], text: `Content-Type is not application/json${op.body?.form ? ' or application/x-www-form-urlencoded' : ''}` },
      { status: 422, codes: ['validation_failed'], text: 'the body fails validation; errors[] names each bad field by its dotted path' },
    ] satisfies RuleAnswer[]).filter((a) => (op.bodyErrors ?? [400, 415, 422]).includes(a.status)),
  },
  {
    when: 'an authenticated operation',
    applies: (op) => op.scope !== null,
    answers: fixed(
      { status: 401, codes: ['unauthorized', 'invalid_token'], text: 'no credentials, or a token that is malformed, expired or not this service\'s', headers: ['WWW-Authenticate'] },
      { status: 403, codes: ['insufficient_scope'], text: 'the token lacks the scope this operation needs', headers: ['WWW-Authenticate'] },
    ),
  },
  {
    when: 'an authenticated operation, when API requests may carry Basic credentials',
    applies: (op, setup) => op.scope !== null && setup.httpBasic,
    answers: fixed({ status: 429, codes: ['rate_limited'], text: 'too many failed logins for this username or address; Retry-After says when to try again', headers: ['Retry-After'] }),
  },
  {
    when: 'an authenticated operation, with an external OpenID issuer',
    applies: (op, setup) => op.scope !== null && setup.remoteIssuer,
    answers: fixed({ status: 503, codes: ['identity_provider_unavailable'], text: 'the issuer\'s keys cannot be fetched to verify the token' }),
  },
  {
    when: 'an operation with a path parameter that names something',
    applies: (op) => namingParams(op).length > 0,
    answers: (op) => [{
      status: 404, codes: ['not_found'],
      text: namingParams(op).map(([name, kind]) => (kind === 'value'
        ? `${name} is not one of its values`
        : `no ${LABELS[name] ?? 'such'} ${name}${SERVES_DELETED.test(op.path) || !LABELS[name] || name === 'username' ? '' : ' (or it is deleted)'}`))
        .concat(op.query?.some((q) => q.name === 'version' || q.name === 'from' || q.name === 'to') ? ['no such version'] : [])
        .join('; '),
    }],
  },
  {
    when: 'a GET whose answer carries an ETag',
    applies: (op) => op.method === 'get' && op.answers[200]?.headers?.includes('ETag') === true,
    answers: (op) => [{
      status: 304, codes: [], text: 'not modified: If-None-Match holds the current ETag (no body)',
      headers: (op.answers[200]?.headers ?? []).filter((h) => h === 'ETag' || h === 'Cache-Control'),
    }],
  },
  {
    when: 'an operation that honours If-Match',
    applies: (op) => does(op, 'ifMatch'),
    answers: fixed({ status: 412, codes: ['precondition_failed'], text: 'If-Match names another version than the latest: reload, apply the change again' }),
  },
  {
    when: 'an operation that reads stored versions',
    applies: (op) => does(op, 'versions'),
    answers: fixed({ status: 503, codes: ['resource_unavailable'], text: 'a stored file it needs cannot be read (GET /healthz names it); the rest is served' }),
  },
  {
    when: 'an operation that stores something',
    applies: (op) => does(op, 'write'),
    answers: fixed(
      { status: 409, codes: ['changed_on_disk'], text: 'a file it would write was changed on disk under the service; nothing is saved (restart to load the folder as it is)' },
      { status: 507, codes: ['storage_unavailable'], text: 'the data folder cannot be written (full, or an I/O error); nothing is saved' },
    ),
  },
  {
    when: 'an operation that runs a dataset query',
    applies: (op) => does(op, 'datasource'),
    answers: fixed(
      { status: 422, codes: ['validation_failed'], text: 'the query does not fit its datasource (its endpoint, or a field it names)' },
      { status: 503, codes: ['datasource_unavailable'], text: 'the datasource cannot be read (a sheet missing, unreadable or over its limits)' },
    ),
  },
  {
    when: 'an operation that draws topology',
    applies: (op) => does(op, 'render'),
    answers: fixed({ status: 422, codes: ['validation_failed'], text: 'the topology cannot be drawn: geographic with no node coordinates, logical over its limits, or a node template that fails' }),
  },
  {
    when: 'the metrics, when metrics.token is set',
    applies: (op, setup) => does(op, 'metricsToken') && setup.metricsToken,
    answers: fixed({ status: 401, codes: ['unauthorized'], text: 'Authorization is not Bearer <metrics.token>', headers: ['WWW-Authenticate'] }),
  },
  {
    when: 'an operation that draws on the render pool',
    applies: (op) => does(op, 'pool'),
    answers: fixed(
      { status: 422, codes: ['validation_failed'], text: 'the picture takes more than output.renderTimeoutSeconds or output.renderMemoryMB to draw, or the renderer cannot draw it (the detail says which)' },
      { status: 503, codes: ['resource_unavailable'], text: 'the render queue is full for this caller, or the picture waited its whole time budget for a thread: try again after Retry-After seconds', headers: ['Retry-After'] },
    ),
  },
  {
    when: 'an operation that resolves a map\'s layers',
    applies: (op) => does(op, 'layers'),
    answers: fixed(
      { status: 404, codes: ['not_found'], text: 'a layer\'s dataset, dataset version or template does not exist' },
      { status: 422, codes: ['validation_failed'], text: 'a layer\'s mapjsonUrl or mapjson cannot be used' },
    ),
  },
];

/** Every answer of an operation by status: the row's own, then the rules', merged per status. */
function answersOf(op: AnyOperation, setup: Setup): Map<number, { own?: Answer; rules: RuleAnswer[] }> {
  const out = new Map<number, { own?: Answer; rules: RuleAnswer[] }>();
  for (const [status, own] of Object.entries(op.answers)) out.set(Number(status), { own, rules: [] });
  for (const rule of ANSWER_RULES) {
    if (!rule.applies(op, setup)) continue;
    for (const a of rule.answers(op)) {
      const entry = out.get(a.status) ?? { rules: [] };
      entry.rules.push(a);
      out.set(a.status, entry);
    }
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

/** Headers that carry numbers; the rest are strings. */
const NUMBER_HEADERS: Record<string, Record<string, unknown>> = {
  'X-Total-Count': { type: 'integer', minimum: 0 },
  'X-Result-Count': { type: 'integer', minimum: 0 },
  'Retry-After': { type: 'integer', minimum: 1, description: 'seconds' },
};
const headerSchemas = (names: string[]) => Object.fromEntries(names.map((h) => [h, { schema: NUMBER_HEADERS[h] ?? { type: 'string' } }]));

const unique = <T>(items: Array<T | undefined>) => [...new Set(items.filter((x): x is T => x !== undefined))];

/** The OpenAPI document of `operations`; `named` gives the schemas that are components of their own, by name. */
export function buildOpenApi(settings: Settings, operations: readonly AnyOperation[], named: ReadonlyMap<v.GenericSchema, string>): Record<string, unknown> {
  const basePath = new URL(settings.server.baseUrl).pathname.replace(/\/+$/, '');
  const scopes = settings.auth.scopes as Record<ScopeKind, string>;
  const basic = settings.auth.backend === 'basic';
  const setup: Setup = {
    httpBasic: basic && settings.auth.basic.acceptHttpBasic,
    remoteIssuer: !basic && settings.auth.oidc.issuer !== 'builtin',
    metricsToken: settings.metrics.token !== undefined,
  };
  const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

  const components: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  const answer = (a: Answer) => {
    const out: Record<string, unknown> = { description: a.description };
    if (a.mediaType) out.content = { [a.mediaType]: {} };
    else if (a.schema) {
      const name = named.get(a.schema);
      if (name) components[name] ??= jsonSchema(a.schema);
      const schema = name ? ref(name) : jsonSchema(a.schema);
      out.content = { 'application/json': { schema: a.list ? { type: 'array', items: schema } : schema } };
    }
    if (a.headers) out.headers = headerSchemas(a.headers);
    return out;
  };

  const operation = (op: AnyOperation) => {
    const parameters = [
      ...Object.entries(op.pathParams ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema: jsonSchema(schema) })),
      ...(op.query ?? []).map((q) => ({
        name: q.name, in: 'query', required: q.required === true,
        ...(q.description ? { description: q.description } : {}),
        schema: q.list ? { type: 'array', items: jsonSchema(q.schema) } : jsonSchema(q.schema),
        ...(q.list ? { style: 'form', explode: true } : {}),
      })),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, { own, rules }] of answersOf(op, setup)) {
      // A success as the row describes it; anything else is an error answer, described by the row and the rules together.
      if (own && own.code === undefined && rules.length === 0) {
        responses[status] = answer(own);
        continue;
      }
      const codes = unique<ErrorCode>([own?.code, ...rules.flatMap((r) => r.codes)]);
      const out: Record<string, unknown> = { description: unique([own?.description, ...rules.map((r) => r.text)]).join('; ') };
      if (own?.schema) out.content = answer(own).content;
      else if (codes.length > 0) {
        out.content = { 'application/json': { schema: { allOf: [ref('Error'), { properties: { code: { enum: codes } } }] } } };
      }
      const headers = unique([...(own?.headers ?? []), ...rules.flatMap((r) => r.headers ?? [])]);
      if (headers.length > 0) out.headers = headerSchemas(headers);
      responses[status] = out;
    }
    const out: Record<string, unknown> = {
      tags: [op.tag], summary: op.summary, operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      ...(op.description ? { description: op.description } : {}),
      ...(parameters.length ? { parameters } : {}),
      responses,
      security: op.scope
        ? [{ bearer: [scopes[op.scope]] }, ...(basic ? [{ password: [scopes[op.scope]] }] : []), ...(setup.httpBasic ? [{ basic: [] }] : [])]
        : [],
    };
    if (op.body) {
      components[op.body.name] ??= jsonSchema(op.body.schema);
      const content: Record<string, unknown> = { 'application/json': { schema: ref(op.body.name) } };
      if (op.body.form) content['application/x-www-form-urlencoded'] = { schema: ref(op.body.name) };
      out.requestBody = { required: true, content };
    }
    return out;
  };

  for (const op of operations) {
    if (op.unlisted || (op.basicOnly && !basic)) continue;
    // Paths are relative to the server URL, which carries the base path (OpenAPI joins the two).
    (paths[op.path] ??= {})[op.method] = operation(op);
  }

  const scopeDescriptions = Object.fromEntries(Object.entries(scopes).map(([kind, s]) => [s, `${kind} routes`]));
  const issuer = settings.auth.oidc.issuer === 'builtin' ? `${settings.server.baseUrl}/oidc` : settings.auth.oidc.issuer;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Map Topology Service',
      version,
      description: 'Versioned network-topology maps, datasets and node templates, rendered as JSON and SVG. '
        + 'Every path also works without its trailing slash. Errors are JSON {detail, code, errors?}; each operation lists '
        + 'every answer it can give, and each error answer the codes it can carry. Outside any operation: a path no operation '
        + 'has (or a method its path does not take) is 404 not_found; OPTIONS on any path is a CORS preflight, answered 204; '
        + 'the built-in OpenID provider under /oidc answers as OpenID Connect specifies.',
    },
    servers: [{ url: basePath || '/' }],
    tags: ['maps', 'datasets', 'templates', 'output', 'public', 'datasources', 'users', 'auth', 'service'].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...components, Error: jsonSchema(ErrorSchema) },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        ...(setup.httpBasic ? { basic: { type: 'http', scheme: 'basic', description: 'a user\'s username and password on every request (auth.basic.acceptHttpBasic); failures are throttled like logins' } } : {}),
        ...(basic
          ? { password: { type: 'oauth2', flows: { password: { tokenUrl: `${basePath}/api/v1/auth/token`, scopes: scopeDescriptions } } } }
          : { oidc: { type: 'openIdConnect', openIdConnectUrl: `${issuer}/.well-known/openid-configuration` } }),
      },
    },
  };
}

/** GET /api/v1/: the routes of this service, from the same declarations as the OpenAPI document. */
export function routeIndex(settings: Settings, operations: readonly AnyOperation[]) {
  const basic = settings.auth.backend === 'basic';
  return {
    name: 'Map Topology Service API',
    openapi: `${settings.server.baseUrl}/api/v1/openapi.json`,
    docs: `${settings.server.baseUrl}/api/v1/docs`,
    routes: operations.filter((o) => !o.unlisted && (basic || !o.basicOnly))
      .map((o) => ({ method: o.method.toUpperCase(), path: o.path, summary: o.summary, scope: o.scope ? settings.auth.scopes[o.scope] : null })),
  };
}
