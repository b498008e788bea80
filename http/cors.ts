// Cross-origin requests (docs/api.md: CORS): browsers on other
// origins (Grafana, a status page, Terranova's editor) call the API. The
// public routes (public maps and their output, the datasource listing,
// health) answer any origin unless `server.cors.publicAnyOrigin` is false;
// the rest of the API the origins of `server.cors.origins` ("*" for any). A
// preflight OPTIONS is answered on every route, with Access-Control-Allow-
// Origin only for an allowed origin. Credentials (cookies) are never allowed:
// the API authenticates with the Authorization header, which a preflight
// permits. The built-in OpenID provider (/oidc) answers CORS itself, per client.
//
// A wrapper around the app's fetch rather than a middleware: any `app.use('*')`
// gives every route a middleware chain, which Hono always runs asynchronously
// (compose), so even a GET by ID answered from memory would pay for promises
// and @hono/node-server's slow path. Here a request without Origin (servers,
// curl, the same origin) goes straight to the router; one with Origin gets its
// headers added to whatever the app answered, errors and 404s included.
import type { Settings } from '../config/settings.ts';
import { requestHeader } from '../auth/request-header.ts';

/** Headers a browser script may read from our answers. */
const EXPOSED = 'ETag, Location, X-Total-Count, X-Result-Count, WWW-Authenticate, Retry-After, Content-Disposition';
const METHODS = 'GET, HEAD, PUT, POST, DELETE, PATCH';
const MAX_AGE = '600';
// The datasource listing is public; the routes under it (the dataset editor's) need a token.
const PUBLIC_PATH = /^\/(?:api\/v1\/(?:public\/|datasources\/?$)|healthz\/?$)/;

type Fetch<E, X> = (req: Request, env?: E, ctx?: X) => Response | Promise<Response>;

/**
 * `fetch` with CORS answered around it. `pathOf` is the app's own reading of
 * a request's path (Hono's getPath), so the public paths are matched exactly
 * as the router sees them.
 */
export function withCors<E, X>(settings: Settings, fetch: Fetch<E, X>, pathOf: (req: Request, env?: E) => string): Fetch<E, X> {
  const { origins, publicAnyOrigin } = settings.server.cors;
  const listed = new Set(origins === '*' ? [] : origins);
  /** The Access-Control-Allow-Origin value for `origin` on `path`, or undefined. */
  const allowed = (origin: string, path: string): string | undefined => {
    if ((publicAnyOrigin && PUBLIC_PATH.test(path)) || origins === '*') return '*';
    return listed.has(origin) ? origin : undefined;
  };
  return (req, env, ctx) => {
    const origin = requestHeader({ req, env }, 'origin');
    const preflight = req.method === 'OPTIONS';
    if (origin === undefined && !preflight) return fetch(req, env, ctx);
    const path = pathOf(req, env);
    if (path === '/oidc' || path.startsWith('/oidc/')) return fetch(req, env, ctx);
    const allow = origin === undefined ? undefined : allowed(origin, path);
    if (preflight) {
      // Answered here for every path, allowed or not (the browser decides from the headers).
      const headers = new Headers();
      if (allow !== '*') headers.append('Vary', 'Origin');
      if (allow !== undefined) {
        headers.set('Access-Control-Allow-Origin', allow);
        headers.set('Access-Control-Allow-Methods', METHODS);
        const asked = requestHeader({ req, env }, 'access-control-request-headers');
        if (asked) headers.set('Access-Control-Allow-Headers', asked.split(',').map((h) => h.trim()).filter(Boolean).join(', '));
        headers.set('Access-Control-Max-Age', MAX_AGE);
        headers.append('Vary', 'Access-Control-Request-Headers');
      }
      return new Response(null, { status: 204, headers });
    }
    const res = fetch(req, env, ctx);
    return res instanceof Promise ? res.then((r) => answered(r, allow)) : answered(res, allow);
  };
}

/** The app's answer with the CORS headers of an allowed (or refused) origin. */
function answered(res: Response, allow: string | undefined): Response {
  const add = (headers: Headers) => {
    if (allow !== '*') headers.append('Vary', 'Origin');
    if (allow !== undefined) {
      headers.set('Access-Control-Allow-Origin', allow);
      headers.set('Access-Control-Expose-Headers', EXPOSED);
    }
  };
  try {
    add(res.headers);
    return res;
  } catch {
    // A response whose headers are immutable (Response.redirect, a fetched one): a copy takes them.
    const copy = new Response(res.body, res);
    add(copy.headers);
    return copy;
  }
}
