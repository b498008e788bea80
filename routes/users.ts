// User routes (docs/api.md: Users and userdata), declared with their handlers
// (http/operation.ts). current_user answers in both backends (from the stored
// user, or from the token's claims with OIDC); the management routes exist
// only with auth.backend basic (basicOnly: not registered otherwise, so 404).
// No response carries a password or a hash: everything goes through toPublic().
import * as v from 'valibot';
import type { Auth } from '../auth/index.ts';
import { toPublic } from '../auth/users.ts';
import { badRequest } from '../errors.ts';
import { documentedAs, integerSchema } from '../schema/list.ts';
import { UserSchema } from '../schema/objects.ts';
import { SetPasswordSchema, UserCreateSchema, UsernameSchema, UserUpdateSchema } from '../schema/users.ts';
import { params } from '../http/list-query.ts';
import { declarer, fails, ok, type Operation } from '../http/operation.ts';
import type { UserDataStore } from '../resources/userdata.ts';

type Deps = { auth: Auth; userdata: UserDataStore; baseUrl: string };
const route = declarer<Deps>();

const MAX_USER_LIMIT = 10_000;
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

/** The local accounts; the basicOnly routes are registered only when there are some. */
const accountsOf = (auth: Auth) => auth.accounts!;

const username = { username: UsernameSchema };
const lastAdmin = fails('conflict', 'refused: no user would be left with the admin scope');
// GET /api/v1/user/ reads these itself (intParam): the document types them as the integers they are.
const UserLimitSchema = v.pipe(v.string(), documentedAs({ ...integerSchema(1, MAX_USER_LIMIT), default: DEFAULT_USER_LIMIT }));
const UserOffsetSchema = v.pipe(v.string(), documentedAs({ ...integerSchema(0, Number.MAX_SAFE_INTEGER), default: 0 }));

export const USER_OPERATIONS: Operation<Deps>[] = [
    route({ method: 'get', path: '/api/v1/current_user/', tag: 'users', summary: 'The calling user', scope: 'read', answers: { 200: ok('username, name, email and scope', UserSchema) },
      handle: ({ auth }) => (c) => c.json(auth.currentUser(c.get('principal'))) }),
    route({ method: 'get', path: '/api/v1/user/', tag: 'users', summary: 'List users', scope: 'admin', basicOnly: true, query: [{ name: 'limit', schema: UserLimitSchema, description: 'at most this many users (default 10)' }, { name: 'offset', schema: UserOffsetSchema }], answers: { 200: { description: 'users', schema: UserSchema, list: true, headers: ['X-Total-Count'] } },
      handle: ({ auth }) => (c) => {
        const { once } = params(c, ['limit', 'offset']);
        const limit = intParam(once('limit'), 'limit', DEFAULT_USER_LIMIT, 1, MAX_USER_LIMIT);
        const offset = intParam(once('offset'), 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const { total, users } = accountsOf(auth).list(offset, limit);
        c.header('X-Total-Count', String(total));
        return c.json(users);
      } }),
    route({ method: 'post', path: '/api/v1/user', tag: 'users', summary: 'Create a user', scope: 'admin', basicOnly: true, body: { name: 'UserCreate', schema: UserCreateSchema }, effects: ['write'], answers: { 201: ok('the created user', UserSchema, { headers: ['Location'] }), 409: fails('conflict', 'the username exists') },
      handle: ({ auth, baseUrl }) => async (c, { body }) => {
        const user = await accountsOf(auth).create(await body());
        // Absolute, from server.baseUrl, like the Location of every other created resource.
        c.header('Location', `${baseUrl}/api/v1/user/${encodeURIComponent(user.username)}/`);
        return c.json(user, 201);
      } }),
    route({ method: 'put', path: '/api/v1/user/{username}/', tag: 'users', summary: 'Update a user\'s name, email and scope', scope: 'admin', basicOnly: true, pathParams: username, body: { name: 'UserUpdate', schema: UserUpdateSchema }, effects: ['write'], answers: { 200: ok('the user', UserSchema), 409: lastAdmin },
      handle: ({ auth }) => async (c, { body }) => {
        const username = c.req.param('username') ?? '';
        accountsOf(auth).get(username);
        const { password: _never, ...patch } = await body();
        return c.json(await accountsOf(auth).update(username, patch));
      } }),
    route({ method: 'put', path: '/api/v1/user/{username}/set_password/', tag: 'users', summary: 'Set a user\'s password', scope: 'admin', basicOnly: true, pathParams: username, body: { name: 'SetPassword', schema: SetPasswordSchema }, effects: ['write'], answers: { 200: ok('the user', UserSchema) },
      handle: ({ auth }) => async (c, { body }) => {
        const username = c.req.param('username') ?? '';
        accountsOf(auth).get(username);
        return c.json(await accountsOf(auth).setPassword(username, (await body()).password));
      } }),
    route({ method: 'delete', path: '/api/v1/user/{username}/', tag: 'users', summary: 'Delete a user for good', scope: 'admin', basicOnly: true, pathParams: username, effects: ['write'], answers: { 200: ok('the deleted user', UserSchema), 409: lastAdmin },
      handle: ({ auth, userdata }) => async (c) => {
        // 200 with the user, as Terranova answers (its editor parses the body as JSON).
        const username = c.req.param('username') ?? '';
        const user = toPublic(accountsOf(auth).get(username));
        await accountsOf(auth).remove(username);
        await userdata.forget(username); // their favourites go with them
        return c.json(user);
      } }),
];
