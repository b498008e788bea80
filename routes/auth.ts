// POST /api/v1/auth/token: the resource-owner password grant (RFC 6749 §4.3)
// of the basic backend, as a form or as JSON. A wrong username and a wrong
// password get the same answer in the same time; failures are throttled per
// username and per client address (429 with Retry-After). With the OIDC
// backend tokens come from the issuer, and this endpoint does not exist.
import { Hono } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import { ServiceError } from '../errors.ts';
import { TokenRequestSchema } from '../schema/auth.ts';
import { readBody } from './body.ts';

const oauthError = (status: 400 | 401, error: string, description: string) =>
  new ServiceError(status === 401 ? 'unauthorized' : 'bad_request', description, {
    headers: status === 401 ? { 'WWW-Authenticate': 'Bearer realm="map-topology-service"' } : {},
    errors: [{ path: error, message: description }],
  });

export function authRoutes(auth: Auth) {
  const app = new Hono<AppEnv>({ strict: false });
  const tokens = auth.tokens;
  if (!tokens) return app;

  app.post('/api/v1/auth/token', async (c) => {
    const body = await readBody(c, TokenRequestSchema, { form: true });
    if (body.grant_type !== 'password') throw oauthError(400, 'unsupported_grant_type', 'grant_type must be password');
    const user = await auth.login.attempt(body.username, body.password, auth.clientAddress(c));
    if (!user) throw oauthError(401, 'invalid_grant', 'wrong username or password');
    const requested = body.scope ? [...new Set(body.scope.split(/\s+/).filter(Boolean))] : user.scope;
    const notHeld = requested.filter((s) => !user.scope.includes(s));
    if (notHeld.length) throw oauthError(400, 'invalid_scope', `scope not granted to this user: ${notHeld.join(' ')}`);
    c.header('Cache-Control', 'no-store');
    c.header('Pragma', 'no-cache');
    return c.json(await tokens.issue(user, requested));
  });

  return app;
}
