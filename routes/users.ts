// User routes (docs/api.md: Users and userdata). current_user answers in both backends (from the stored
// user, or from the token's claims with OIDC); the management routes exist
// only with auth.backend basic and are 404 otherwise. No response carries a
// password or a hash: everything goes through toPublic().
import { Hono } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import { badRequest } from '../errors.ts';
import { SetPasswordSchema, UserCreateSchema, UserUpdateSchema } from '../schema/users.ts';
import { readBody } from './body.ts';
import { params } from './list-query.ts';
import { toPublic } from '../auth/users.ts';
import type { UserDataStore } from '../resources/userdata.ts';

export const MAX_USER_LIMIT = 10_000;
const DEFAULT_USER_LIMIT = 10;

/** A query parameter that is an integer from `min` to `max` (400 otherwise, like every malformed query parameter). */
function intParam(raw: string | undefined, name: string, fallback: number, min: number, max: number) {
  if (raw === undefined) return fallback;
  const n = /^-?\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) {
    throw badRequest(`query parameter ${name} must be an integer from ${min} to ${max}`,
      [{ path: name, message: `expected an integer from ${min} to ${max}` }]);
  }
  return n;
}

export function userRoutes(auth: Auth, baseUrl: string, userdata?: UserDataStore) {
  const app = new Hono<AppEnv>({ strict: false });
  const read = auth.requireScope('read');
  const admin = auth.requireScope('admin');

  app.get('/api/v1/current_user', read, (c) => c.json(auth.currentUser(c.get('principal'))));

  if (!auth.accounts) return app;
  const accounts = auth.accounts;
  // Absolute, from server.baseUrl, like the Location of every other created resource.
  const location = (username: string) => `${baseUrl}/api/v1/user/${encodeURIComponent(username)}/`;

  app.get('/api/v1/user', admin, (c) => {
    const { once } = params(c, ['limit', 'offset']);
    const limit = intParam(once('limit'), 'limit', DEFAULT_USER_LIMIT, 1, MAX_USER_LIMIT);
    const offset = intParam(once('offset'), 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const { total, users } = accounts.list(offset, limit);
    c.header('X-Total-Count', String(total));
    return c.json(users);
  });

  app.post('/api/v1/user', admin, async (c) => {
    const body = await readBody(c, UserCreateSchema);
    const user = await accounts.create(body);
    c.header('Location', location(user.username));
    return c.json(user, 201);
  });

  app.put('/api/v1/user/:username/set_password', admin, async (c) => {
    const username = c.req.param('username');
    accounts.get(username);
    const body = await readBody(c, SetPasswordSchema);
    return c.json(await accounts.setPassword(username, body.password));
  });

  app.put('/api/v1/user/:username', admin, async (c) => {
    const username = c.req.param('username');
    accounts.get(username);
    const { password: _never, ...patch } = await readBody(c, UserUpdateSchema);
    return c.json(await accounts.update(username, patch));
  });

  app.delete('/api/v1/user/:username', admin, async (c) => {
    // 200 with the user, as Terranova answers (its editor parses the body as JSON).
    const username = c.req.param('username');
    const user = toPublic(accounts.get(username));
    await accounts.remove(username);
    await userdata?.forget(username); // their favourites go with them
    return c.json(user);
  });

  return app;
}
