// The registrar: the one place routes are registered, each from its
// declaration (http/operation.ts). The declared scope becomes the guard, the
// declared path the router's, the declared path and query parameters what is
// parsed before the handler runs (http/parameters.ts: `input.params`,
// `input.query`), the declared body schema what `input.body()` validates
// with. test/routes/operations.test.ts fails on a route that got into the app
// any other way.
import type { Context, Hono } from 'hono';
import type { AppEnv, ScopeKind } from '../auth/types.ts';
import { requestNote } from '../log.ts';
import { readBody } from './body.ts';
import { routerPath, type AnyOperation, type Handler, type Input, type Operation } from './operation.ts';
import { pathParser, queryParser, type PathValues } from './parameters.ts';
import { lookupUnknownIds, type Peers } from './peer-lookup.ts';

type Route = (c: Context<AppEnv>) => Response | Promise<Response>;
type Values = Readonly<Record<string, unknown>>;

export interface Registration {
  /** The scope check and the handler as one (auth/middleware.ts `guard`): a GET with a known token then answers without a middleware chain. */
  guard?: (scope: ScopeKind, route: Route) => Route;
  /** Whether the basic backend's own operations (`basicOnly`) exist here: without local accounts their paths are 404. */
  basic?: boolean;
  /** With replicas: the store, asked about an ID of a path memory has not heard of before the route runs (peer-lookup.ts). */
  peers?: Peers;
}

const NO_BODY = () => Promise.resolve(undefined);
const PARAM = /^\{(\w+)\}$/;

/**
 * How a request for `served` is told apart on the route of `serving`, whose
 * path matches it too: the segments `served` writes out must be the values of
 * `serving`'s parameters at their places, and `served`'s parameters are read
 * from `serving`'s at theirs.
 */
function servedMatcher(serving: AnyOperation, served: AnyOperation) {
  const from = serving.path.split('/'), to = served.path.split('/');
  const fail = () => new Error(`${served.method.toUpperCase()} ${served.path}: cannot be served by ${serving.path}`);
  if (from.length !== to.length) throw fail();
  const fixed: Array<[string, string]> = [];
  const names = new Map<string, string>();
  from.forEach((segment, i) => {
    const own = PARAM.exec(segment)?.[1], theirs = PARAM.exec(to[i])?.[1];
    if (own && theirs) names.set(theirs, own);
    else if (own) fixed.push([own, to[i]]);
    else if (theirs || segment !== to[i]) throw fail();
  });
  return {
    matches: (raw: PathValues) => fixed.every(([name, value]) => raw.param(name) === value),
    rename: (raw: PathValues): PathValues => ({ param: (name) => raw.param(names.get(name) ?? name) }),
  };
}

/** A handler's input for a request: its path and query parameters parsed for `op`, or for the operation of `served` it is for. */
function inputParser(op: AnyOperation, served: readonly AnyOperation[]) {
  const params = pathParser(op.pathParams), query = queryParser(op.query);
  const alternatives = served.map((s) => ({ path: s.path, ...servedMatcher(op, s), params: pathParser(s.pathParams), query: queryParser(s.query) }));
  // No function made per request: under tsx every named one made is named again (esbuild's keepNames), a
  // measurable share of a GET answered from memory.
  return (c: Context<AppEnv>, body: () => Promise<unknown>): Input<unknown, Values, Values> => {
    for (const alt of alternatives) {
      if (!alt.matches(c.req)) continue;
      const mine = { path: alt.path, params: alt.params(alt.rename(c.req)), query: alt.query(c.req.url) };
      return { body, params: mine.params, query: mine.query, served: mine };
    }
    return { body, params: params(c.req), query: query(c.req.url) };
  };
}

/** Registers every declared operation that has a route of its own on `app`. */
export function registerOperations<D>(app: Hono<AppEnv>, operations: readonly Operation<D>[], deps: D, how: Registration = {}) {
  for (const op of operations) {
    if (op.servedBy || (op.basicOnly && !how.basic)) continue;
    if (!op.handle) throw new Error(`${op.method.toUpperCase()} ${op.path}: declared without a handler`);
    const handler: Handler<unknown, Values, Values> = op.handle(deps);
    const parse = inputParser(op, operations.filter((o) => o.servedBy === op.path && o.method === op.method));
    const declared = op.body;
    const route: Route = lookupUnknownIds(op.path, how.peers, declared
      ? (c) => handler(c, parse(c, () => readBody(c, declared.schema, { form: declared.form })))
      : (c) => handler(c, parse(c, NO_BODY)));
    const { guard } = how;
    if (op.scope !== null && !guard) throw new Error(`${op.method.toUpperCase()} ${op.path}: needs a scope guard`);
    const guarded = op.scope === null || !guard ? route : guard(op.scope, route);
    // The request's route template, noted for its metrics and log (http/observe.ts) as the router keeps
    // it: what a second router match per request would find.
    let template = '';
    app.on(op.method.toUpperCase(), routerPath(op), (c: Context<AppEnv>) => {
      const note = requestNote(c.req.raw);
      if (note) note.route = template;
      return guarded(c);
    });
    template = app.routes[app.routes.length - 1].path;
  }
}
