// Cross-origin requests (DESIGN: Terranova's clients): browsers on other
// origins (Grafana, a status page, Terranova's editor) call the API. The
// public routes (public maps and their output, datasources, health) answer
// any origin unless `server.cors.publicAnyOrigin` is false; the rest of the
// API the origins of `server.cors.origins` ("*" for any). A preflight OPTIONS
// is answered on every route, with Access-Control-Allow-Origin only for an
// allowed origin. Credentials (cookies) are never allowed: the API
// authenticates with the Authorization header, which a preflight permits.
// The built-in OpenID provider (/oidc) answers CORS itself, per client.
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { Settings } from '../config/settings.ts';

/** Headers a browser script may read from our answers. */
const EXPOSED = ['ETag', 'Location', 'X-Total-Count', 'X-Result-Count', 'WWW-Authenticate', 'Retry-After', 'Content-Disposition'];
const PUBLIC_PATH = /^\/(?:api\/v1\/(?:public\/|datasources(?:\/|$))|healthz\/?$)/;

export function corsMiddleware(settings: Settings): MiddlewareHandler {
  const { origins, publicAnyOrigin } = settings.server.cors;
  const common = { exposeHeaders: EXPOSED, maxAge: 600, credentials: false };
  const any = cors({ ...common, origin: '*' });
  const listed = cors({ ...common, origin: origins === '*' ? '*' : (origin) => (origins.includes(origin) ? origin : null) });
  return (c, next) => {
    const path = c.req.path;
    if (path === '/oidc' || path.startsWith('/oidc/')) return next();
    return (publicAnyOrigin && PUBLIC_PATH.test(path) ? any : listed)(c, next);
  };
}
