// POST /api/v1/auth/token: the resource-owner password grant (RFC 6749 §4.3)
// of the basic backend, as a form or as JSON. The answer for a wrong username
// and a wrong password is the same, and takes the same time.
import { Hono } from 'hono';
import * as v from 'valibot';
import type { Auth } from '../auth/index.ts';
import { dummyHash, verifyPassword } from '../auth/passwords.ts';
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

  app.post('/api/v1/auth/token', async (c) => {
    const body = await readBody(c, TokenRequestSchema, { form: true });
    if (body.grant_type !== 'password') throw oauthError(400, 'unsupported_grant_type', 'grant_type must be password');
    const user = auth.users.find(body.username);
    const ok = await verifyPassword(body.password, user?.passwordHash ?? (await dummyHash));
    if (!user || !ok) throw oauthError(401, 'invalid_grant', 'wrong username or password');
    const requested = body.scope ? body.scope.split(/\s+/).filter(Boolean) : user.scope;
    const notHeld = requested.filter((s) => !user.scope.includes(s));
    if (notHeld.length) throw oauthError(400, 'invalid_scope', `scope not granted to this user: ${notHeld.join(' ')}`);
    c.header('Cache-Control', 'no-store');
    return c.json(await auth.tokens.issue(user, requested));
  });

  return app;
}
