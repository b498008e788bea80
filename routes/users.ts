// User routes (docs/api.md: Users and userdata), declared with their handlers
// (http/operation.ts). current_user answers in both backends (from the stored
// user, or from the token's claims with OIDC); the management routes exist
// only with auth.backend basic (basicOnly: not registered otherwise, so 404).
// No response carries a password or a hash: everything goes through toPublic().
import * as v from 'valibot';
import type { Auth } from '../auth/index.ts';
import { toPublic } from '../auth/users.ts';
import { documentedAs, integerSchema } from '../schema/list.ts';
import { UserSchema } from '../schema/objects.ts';
import { SetPasswordSchema, USERNAME_PATTERN, UserCreateSchema, UserUpdateSchema } from '../schema/users.ts';
import { declarer, fails, ok, queryParam, type Operation } from '../http/operation.ts';
import type { UserDataStore } from '../resources/userdata.ts';

type Deps = { auth: Auth; userdata: UserDataStore; baseUrl: string };
const route = declarer<Deps>();

const MAX_USER_LIMIT = 10_000;
const DEFAULT_USER_LIMIT = 10;

/** A query parameter that is an integer from `min` to `max` (400 otherwise, like every malformed query parameter), documented as one. */
const intParam = (name: string, min: number, max: number, fallback: number) => v.pipe(
  v.string(),
  v.regex(/^-?\d{1,16}$/, `${name} must be an integer from ${min} to ${max}`),
  v.transform(Number),
  v.minValue(min, `${name} must be an integer from ${min} to ${max}`),
  v.maxValue(max, `${name} must be an integer from ${min} to ${max}`),
  documentedAs({ ...integerSchema(min, max), default: fallback }),
);

/** The local accounts; the basicOnly routes are registered only when there are some. */
const accountsOf = (auth: Auth) => auth.accounts!;

// A username of the wrong shape names no user (404, as an unknown one).
const username = { username: v.pipe(v.string(), v.regex(USERNAME_PATTERN, 'no such user (usernames are 1 to 64 letters, digits or . _ @ -)')) };
const lastAdmin = fails('conflict', 'refused: no user would be left with the admin scope');
const UserLimitSchema = intParam('limit', 1, MAX_USER_LIMIT, DEFAULT_USER_LIMIT);
const UserOffsetSchema = intParam('offset', 0, Number.MAX_SAFE_INTEGER, 0);

export const USER_OPERATIONS: Operation<Deps>[] = [
    route({ method: 'get', path: '/api/v1/current_user/', tag: 'users', summary: 'The calling user', scope: 'read', answers: { 200: ok('username, name, email and scope', UserSchema) },
      handle: ({ auth }) => (c) => c.json(auth.currentUser(c.get('principal'))) }),
    route({ method: 'get', path: '/api/v1/user/', tag: 'users', summary: 'List users', scope: 'admin', basicOnly: true, query: [queryParam({ name: 'limit', schema: UserLimitSchema, description: 'at most this many users (default 10)' }), queryParam({ name: 'offset', schema: UserOffsetSchema })], answers: { 200: { description: 'users', schema: UserSchema, list: true, headers: ['X-Total-Count'] } },
      handle: ({ auth }) => (c, { query }) => {
        const { total, users } = accountsOf(auth).list(query.offset ?? 0, query.limit ?? DEFAULT_USER_LIMIT);
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
      handle: ({ auth }) => async (c, { body, params: { username } }) => {
        accountsOf(auth).get(username);
        const { password: _never, ...patch } = await body();
        return c.json(await accountsOf(auth).update(username, patch));
      } }),
    route({ method: 'put', path: '/api/v1/user/{username}/set_password/', tag: 'users', summary: 'Set a user\'s password', scope: 'admin', basicOnly: true, pathParams: username, body: { name: 'SetPassword', schema: SetPasswordSchema }, effects: ['write'], answers: { 200: ok('the user', UserSchema) },
      handle: ({ auth }) => async (c, { body, params: { username } }) => {
        accountsOf(auth).get(username);
        return c.json(await accountsOf(auth).setPassword(username, (await body()).password));
      } }),
    route({ method: 'delete', path: '/api/v1/user/{username}/', tag: 'users', summary: 'Delete a user for good', scope: 'admin', basicOnly: true, pathParams: username, effects: ['write'], answers: { 200: ok('the deleted user', UserSchema), 409: lastAdmin },
      handle: ({ auth, userdata }) => async (c, { params: { username } }) => {
        // 200 with the user, as Terranova answers (its editor parses the body as JSON).
        const user = toPublic(accountsOf(auth).get(username));
        await accountsOf(auth).remove(username);
        await userdata.forget(username); // their favourites go with them
        return c.json(user);
      } }),
];
