// GET /openapi.json: the OpenAPI 3.1 document, generated once per app from
// the operation table (routes/api-operations.ts) and the valibot schemas the
// routes validate with, converted by @valibot/to-json-schema. Request bodies
// and responses are named components; paths keep SPEC.md's spelling.
import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import { Hono } from 'hono';
import { createRequire } from 'node:module';
import type * as v from 'valibot';
import type { ScopeKind } from '../auth/types.ts';
import type { Settings } from '../config/settings.ts';
import { ErrorSchema } from '../schema/records.ts';
import { NAMED_SCHEMAS, operations, type Answer, type Operation } from './api-operations.ts';

/** JSON Schema 2020-12 is OpenAPI 3.1's dialect; transforms and checks have no JSON form and are skipped. */
export const JSON_SCHEMA_CONFIG: ConversionConfig = { target: 'draft-2020-12', typeMode: 'ignore', errorMode: 'ignore' };

export function jsonSchema(schema: v.GenericSchema): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, JSON_SCHEMA_CONFIG) as Record<string, unknown>;
  return rest;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'malformed JSON or query parameters',
  401: 'no or bad bearer token',
  403: 'the token lacks the scope',
  404: 'unknown ID or version',
  412: 'If-Match is not the latest version',
  413: 'body over the size limit',
  415: 'body is not JSON',
  422: 'the body fails validation; errors[] names each field',
};

export function buildOpenApi(settings: Settings): Record<string, unknown> {
  const basePath = new URL(settings.server.baseUrl).pathname.replace(/\/+$/, '');
  const scopes = settings.auth.scopes as Record<ScopeKind, string>;
  const basic = settings.auth.backend === 'basic';
  const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

  const components: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  const answer = (a: Answer) => {
    const out: Record<string, unknown> = { description: a.description };
    if (a.mediaType) out.content = { [a.mediaType]: {} };
    else if (a.schema) {
      const name = NAMED_SCHEMAS.get(a.schema);
      if (name) components[name] ??= jsonSchema(a.schema);
      const schema = name ? ref(name) : jsonSchema(a.schema);
      out.content = { 'application/json': { schema: a.list ? { type: 'array', items: schema } : schema } };
    }
    if (a.headers) out.headers = Object.fromEntries(a.headers.map((h) => [h, { schema: { type: 'string' } }]));
    return out;
  };

  const operation = (op: Operation) => {
    const parameters = [
      ...Object.entries(op.pathParams ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema: jsonSchema(schema) })),
      ...(op.query ?? []).map((q) => ({
        name: q.name, in: 'query', required: false,
        ...(q.description ? { description: q.description } : {}),
        schema: q.list ? { type: 'array', items: jsonSchema(q.schema) } : jsonSchema(q.schema),
        ...(q.list ? { style: 'form', explode: true } : {}),
      })),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, a] of Object.entries(op.answers)) responses[status] = answer(a);
    const errors = [
      ...(op.query?.length || op.body ? [400] : []),
      ...(op.scope ? [401, 403] : []),
      ...(op.pathParams ? [404] : []),
      ...(op.body ? op.bodyErrors ?? [413, 415, 422] : []),
      ...(op.method === 'put' && op.pathParams && op.tag !== 'users' ? [412] : []),
    ];
    for (const status of errors) {
      responses[status] ??= { description: STATUS_TEXT[status], content: { 'application/json': { schema: ref('Error') } } };
    }
    const out: Record<string, unknown> = {
      tags: [op.tag], summary: op.summary, operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      ...(op.description ? { description: op.description } : {}),
      ...(parameters.length ? { parameters } : {}),
      responses,
      security: op.scope ? [{ bearer: [scopes[op.scope]] }, ...(basic ? [{ password: [scopes[op.scope]] }] : [])] : [],
    };
    if (op.body) {
      components[op.body.name] ??= jsonSchema(op.body.schema);
      const content: Record<string, unknown> = { 'application/json': { schema: ref(op.body.name) } };
      if (op.body.form) content['application/x-www-form-urlencoded'] = { schema: ref(op.body.name) };
      out.requestBody = { required: true, content };
    }
    return out;
  };

  for (const op of operations()) {
    if (op.basicOnly && !basic) continue;
    // Paths are relative to the server URL, which carries the base path (OpenAPI joins the two).
    (paths[op.path] ??= {})[op.method] = operation(op);
  }

  const scopeDescriptions = Object.fromEntries(Object.entries(scopes).map(([kind, s]) => [s, `${kind} endpoints`]));
  const issuer = settings.auth.oidc.issuer === 'builtin' ? `${settings.server.baseUrl}/oidc` : settings.auth.oidc.issuer;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Map Topology Service',
      version,
      description: 'Versioned network-topology maps, datasets and node templates, rendered as JSON and SVG. '
        + 'Every path also works without its trailing slash. Errors are JSON {detail, code, errors?}.',
    },
    servers: [{ url: basePath || '/' }],
    tags: ['maps', 'datasets', 'templates', 'output', 'public', 'datasources', 'users', 'auth', 'service'].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...components, Error: jsonSchema(ErrorSchema) },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        ...(basic
          ? { password: { type: 'oauth2', flows: { password: { tokenUrl: `${basePath}/api/v1/auth/token`, scopes: scopeDescriptions } } } }
          : { oidc: { type: 'openIdConnect', openIdConnectUrl: `${issuer}/.well-known/openid-configuration` } }),
      },
    },
  };
}

export function openApiRoutes(settings: Settings) {
  const app = new Hono({ strict: false });
  let body: string | undefined;
  let index: string | undefined;
  // Also under /api/v1, where Terranova serves it (clients look for it beside the API).
  for (const path of ['/openapi.json', '/api/v1/openapi.json']) {
    app.get(path, (c) => {
      body ??= JSON.stringify(buildOpenApi(settings));
      return c.body(body, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' });
    });
  }
  // GET /api/v1/: the routes of this service, from the same table as the OpenAPI document.
  app.get('/api/v1', (c) => {
    const basic = settings.auth.backend === 'basic';
    index ??= JSON.stringify({
      name: 'Map Topology Service API',
      openapi: `${settings.server.baseUrl}/api/v1/openapi.json`,
      docs: `${settings.server.baseUrl}/api/v1/docs`,
      routes: operations().filter((o) => basic || !o.basicOnly)
        .map((o) => ({ method: o.method.toUpperCase(), path: o.path, summary: o.summary, scope: o.scope ? settings.auth.scopes[o.scope] : null })),
    });
    return c.body(index, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' });
  });
  return app;
}
