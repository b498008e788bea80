// GET, POST and PUT /api/v1/userdata/ (docs/api.md: Users and userdata),
// declared with their handlers (http/operation.ts): the signed-in user's
// favourites and recently edited lists, as Terranova's editor reads and writes
// them. Read scope, as Terranova asks; each user sees only their own. GET is
// 404 until the first POST; POST stores (201 the first time), PUT replaces
// what exists (404 before).
import { declarer, fails, json, type Operation } from '../http/operation.ts';
import { actingUser } from '../http/versioned.ts';
import type { UserDataStore } from '../resources/userdata.ts';
import { UserDataSchema } from '../schema/userdata.ts';

type Deps = { userdata: UserDataStore };
const route = declarer<Deps>();

const noUserData = fails('not_found', 'none stored yet: POST it first');

export const USERDATA_OPERATIONS: Operation<Deps>[] = [
    route({ method: 'get', path: '/api/v1/userdata/', tag: 'users', summary: 'The signed-in user\'s favourites and recently edited lists', scope: 'read', answers: { 200: json('{username, favorites: {maps, datasets, templates}, lastEdited: {…}}'), 404: noUserData },
      handle: ({ userdata }) => (c) => c.json(userdata.get(actingUser(c))) }),
    route({ method: 'post', path: '/api/v1/userdata/', tag: 'users', summary: 'Store the signed-in user\'s data', scope: 'read', body: { name: 'UserData', schema: UserDataSchema }, effects: ['write'], answers: { 200: json('the stored data, which replaced earlier data'), 201: json('the stored data (the first time)') },
      handle: ({ userdata }) => async (c, { body }) => {
        const { existed, body: stored } = await userdata.put(actingUser(c), await body(), false);
        return c.json(stored, existed ? 200 : 201);
      } }),
    route({ method: 'put', path: '/api/v1/userdata/', tag: 'users', summary: 'Replace the signed-in user\'s data', scope: 'read', body: { name: 'UserData', schema: UserDataSchema }, effects: ['write'], answers: { 200: json('the stored data'), 404: noUserData },
      handle: ({ userdata }) => async (c, { body }) => {
        const username = actingUser(c);
        userdata.get(username); // 404 before reading the body
        return c.json((await userdata.put(username, await body(), true)).body);
      } }),
];
