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
// Written by hand rather than with hono/cors: that one touches `c.res` before
// the handler runs, which makes every answer a full web Response and cost a
// GET by ID three quarters of its speed. Here headers go through c.header()
// only, before the handler, and a request without Origin costs one lookup.
import type { MiddlewareHandler } from 'hono';
import type { Settings } from '../config/settings.ts';

/** Headers a browser script may read from our answers. */
const EXPOSED = 'ETag, Location, X-Total-Count, X-Result-Count, WWW-Authenticate, Retry-After, Content-Disposition';
const METHODS = 'GET, HEAD, PUT, POST, DELETE, PATCH';
const MAX_AGE = '600';
// The datasource listing is public; the routes under it (the dataset editor's) need a token.
const PUBLIC_PATH = /^\/(?:api\/v1\/(?:public\/|datasources\/?$)|healthz\/?$)/;

export function corsMiddleware(settings: Settings): MiddlewareHandler {
  const { origins, publicAnyOrigin } = settings.server.cors;
  const listed = new Set(origins === '*' ? [] : origins);
  /** The Access-Control-Allow-Origin value for `origin` on `path`, or undefined. */
  const allowed = (origin: string, path: string): string | undefined => {
    if ((publicAnyOrigin && PUBLIC_PATH.test(path)) || origins === '*') return '*';
    return listed.has(origin) ? origin : undefined;
  };
  return async (c, next) => {
    const path = c.req.path;
    if (path === '/oidc' || path.startsWith('/oidc/')) return next();
    const origin = c.req.header('origin');
    if (origin === undefined && c.req.method !== 'OPTIONS') return next();
    const allow = origin === undefined ? undefined : allowed(origin, path);
    if (allow !== '*') c.header('Vary', 'Origin', { append: true });
    if (allow !== undefined) c.header('Access-Control-Allow-Origin', allow);
    if (c.req.method === 'OPTIONS') {
      // A preflight: answered here for every path, allowed or not (the browser decides from the headers).
      if (allow !== undefined) {
        c.header('Access-Control-Allow-Methods', METHODS);
        const asked = c.req.header('access-control-request-headers');
        if (asked) c.header('Access-Control-Allow-Headers', asked.split(',').map((h) => h.trim()).filter(Boolean).join(', '));
        c.header('Access-Control-Max-Age', MAX_AGE);
        c.header('Vary', 'Access-Control-Request-Headers', { append: true });
      }
      return c.body(null, 204);
    }
    if (allow !== undefined) c.header('Access-Control-Expose-Headers', EXPOSED);
    return next();
  };
}
