// GET /openapi.json (also under /api/v1, where Terranova serves it: clients
// look for it beside the API) and GET /api/v1/, the route list: both
// generated once per app from the operation declarations
// (http/openapi-document.ts) and kept as text.
import type { Settings } from '../config/settings.ts';
import { buildOpenApi, routeIndex } from '../http/openapi-document.ts';
import { declarer, json, type AnyOperation, type Handler, type Operation } from '../http/operation.ts';
import type * as v from 'valibot';
import { TokenErrorSchema, TokenResponseSchema, UserSchema } from '../schema/objects.ts';
import { DATASET_ROUTES } from './datasets.ts';
import { MAP_ROUTES } from './maps.ts';
import { TEMPLATE_ROUTES } from './templates.ts';

type Deps = { settings: Settings; operations: readonly AnyOperation[] };
const route = declarer<Deps>();

/** The answers that are components of their own, by name. */
export const NAMED_SCHEMAS = new Map<v.GenericSchema, string>([
  ...[MAP_ROUTES, DATASET_ROUTES, TEMPLATE_ROUTES].flatMap((kind): Array<[v.GenericSchema, string]> => [[kind.object.schema, kind.object.name], [kind.item, `${kind.object.name}ListItem`]]),
  [UserSchema, 'User'], [TokenResponseSchema, 'TokenResponse'], [TokenErrorSchema, 'TokenError'],
]);

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' };

/** An answer made on its first request and kept. */
const kept = (make: (deps: Deps) => object) => (deps: Deps): Handler => {
  let body: string | undefined;
  return (c) => c.body((body ??= JSON.stringify(make(deps))), 200, JSON_HEADERS);
};
const openApi = kept(({ settings, operations }) => buildOpenApi(settings, operations, NAMED_SCHEMAS));

export const OPENAPI_OPERATIONS: Operation<Deps>[] = [
  route({ method: 'get', path: '/openapi.json', tag: 'service', summary: 'This document', scope: null, answers: { 200: json('OpenAPI 3.1') }, handle: openApi }),
  route({ method: 'get', path: '/api/v1/openapi.json', tag: 'service', summary: 'This document, beside the API', scope: null, answers: { 200: json('OpenAPI 3.1') }, handle: openApi }),
  route({ method: 'get', path: '/api/v1/', tag: 'service', summary: 'The routes of the API', scope: null, answers: { 200: json('{name, openapi, docs, routes: [{method, path, summary, scope}]}') },
    handle: kept(({ settings, operations }) => routeIndex(settings, operations)) }),
];
