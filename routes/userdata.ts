// GET, POST and PUT /api/v1/userdata/ (docs/api.md: Users and userdata): the
// signed-in user's favourites and recently edited lists, as Terranova's editor
// reads and writes them. Read scope, as Terranova asks; each user sees only
// their own. GET is 404 until the first POST; POST stores (201 the first time),
// PUT replaces what exists (404 before).
import { Hono } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import type { UserDataStore } from '../resources/userdata.ts';
import { UserDataSchema } from '../schema/userdata.ts';
import { readBody } from './body.ts';
import { actingUser } from './versioned.ts';

export function userDataRoutes(o: { auth: Auth; userdata: UserDataStore }) {
  const { auth, userdata } = o;
  const app = new Hono<AppEnv>({ strict: false });
  const read = auth.requireScope('read');
  app.get('/api/v1/userdata', read, (c) => c.json(userdata.get(actingUser(c))));
  app.post('/api/v1/userdata', read, async (c) => {
    const { existed, body } = await userdata.put(actingUser(c), await readBody(c, UserDataSchema), false);
    return c.json(body, existed ? 200 : 201);
  });
  app.put('/api/v1/userdata', read, async (c) => {
    const username = actingUser(c);
    userdata.get(username); // 404 before reading the body
    return c.json((await userdata.put(username, await readBody(c, UserDataSchema), true)).body);
  });
  return app;
}
