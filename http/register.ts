// The registrar: the one place routes are registered, each from its
// declaration (http/operation.ts). The declared scope becomes the guard, the
// declared path the router's, the declared body schema what `input.body()`
// validates with. test/routes/operations.test.ts fails on a route that got
// into the app any other way.
import type { Context, Hono } from 'hono';
import type { AppEnv, ScopeKind } from '../auth/types.ts';
import { readBody } from './body.ts';
import { lookupUnknownIds, type Peers } from './peer-lookup.ts';
import { routerPath, type Handler, type Operation } from './operation.ts';

type Route = (c: Context<AppEnv>) => Response | Promise<Response>;

export interface Registration {
  /** The scope check and the handler as one (auth/middleware.ts `guard`): a GET with a known token then answers without a middleware chain. */
  guard?: (scope: ScopeKind, route: Route) => Route;
  /** Whether the basic backend's own operations (`basicOnly`) exist here: without local accounts their paths are 404. */
  basic?: boolean;
  /** With replicas: the store, asked about an ID of a path memory has not heard of before the route runs (peer-lookup.ts). */
  peers?: Peers;
}

// Shared by every request of an operation without a body: nothing allocated per request on the fast path.
const NO_INPUT = { body: () => Promise.resolve(undefined) };

/** Registers every declared operation that has a route of its own on `app`. */
export function registerOperations<D>(app: Hono<AppEnv>, operations: readonly Operation<D>[], deps: D, how: Registration = {}) {
  for (const op of operations) {
    if (op.servedBy || (op.basicOnly && !how.basic)) continue;
    if (!op.handle) throw new Error(`${op.method.toUpperCase()} ${op.path}: declared without a handler`);
    const handler: Handler = op.handle(deps);
    const declared = op.body;
    const route: Route = lookupUnknownIds(op.path, how.peers, declared
      ? (c) => handler(c, { body: () => readBody(c, declared.schema, { form: declared.form }) })
      : (c) => handler(c, NO_INPUT));
    const { guard } = how;
    if (op.scope === null) app.on(op.method.toUpperCase(), routerPath(op), route);
    else if (guard) app.on(op.method.toUpperCase(), routerPath(op), guard(op.scope, route));
    else throw new Error(`${op.method.toUpperCase()} ${op.path}: needs a scope guard`);
  }
}
