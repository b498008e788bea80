// GET, POST and PUT /api/v1/userdata/ (docs/api.md: Users and userdata): each
// signed-in user's own favourites and recently edited lists, as Terranova's
// editor reads and writes them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, start, type Started } from './fixtures.ts';

let t: Started;
let bob = '';
const PW = 'bob has a long password';
before(async () => {
  t = await start();
  const created = await t.request('/api/v1/user/', {
    method: 'POST', token: t.all, json: { username: 'bob', password: PW, name: 'Bob', email: '', scope: [t.settings.auth.scopes.read] },
  });
  assert.equal(created.status, 201, await created.clone().text());
  bob = await t.token(undefined, 'bob', PW);
});
after(() => t.close(true));

const call = (method: string, token: string, json?: unknown) => t.request('/api/v1/userdata/', { method, token, json });
const EDITOR_DEFAULT = { favorites: { maps: [], datasets: [], templates: [] }, lastEdited: { maps: [], datasets: [], templates: [] } };

describe('/api/v1/userdata/', () => {
  it('is 404 until the first POST, then serves what was stored; PUT replaces it', async () => {
    assert.equal((await call('GET', t.read)).status, 404);
    assert.equal((await call('PUT', t.read, EDITOR_DEFAULT)).status, 404, 'PUT before anything is stored');
    const created = await call('POST', t.read, EDITOR_DEFAULT);
    assert.equal(created.status, 201);
    assert.deepEqual(await body(created), { username: 'admin', ...EDITOR_DEFAULT });
    const next = { favorites: { maps: ['znfjfuT'], datasets: [], templates: ['SOYERgm'] }, lastEdited: { maps: ['znfjfuT'], datasets: [], templates: [] } };
    const put = await call('PUT', t.read, next);
    assert.equal(put.status, 200);
    assert.deepEqual(await body(await call('GET', t.read)), { username: 'admin', ...next });
    assert.equal((await call('POST', t.read, EDITOR_DEFAULT)).status, 200, 'a second POST replaces');
  });

  it('fills missing lists and refuses what is not lists of IDs (422), storing nothing', async () => {
    const partial = await call('POST', bob, { favorites: { maps: ['a'] } });
    assert.equal(partial.status, 201);
    assert.deepEqual(await body(partial), { username: 'bob', favorites: { maps: ['a'], datasets: [], templates: [] }, lastEdited: { maps: [], datasets: [], templates: [] } });
    for (const bad of [{ favorites: { maps: 'a' } }, { favorites: { maps: [1] } }, { favorites: { dashboards: [] } }, { favorites: { maps: Array(1001).fill('x') } }]) {
      const res = await call('PUT', bob, bad);
      assert.equal(res.status, 422, JSON.stringify(bad).slice(0, 80));
    }
    assert.deepEqual((await body(await call('GET', bob))).favorites.maps, ['a']);
  });

  it('is each user\'s own, needs a token, and goes when the user is deleted', async () => {
    await call('POST', bob, { favorites: { maps: ['bobs'] } });
    assert.deepEqual((await body(await call('GET', bob))).favorites.maps, ['bobs']);
    assert.notDeepEqual((await body(await call('GET', t.read))).favorites.maps, ['bobs']);
    assert.equal((await t.request('/api/v1/userdata/')).status, 401);
    assert.equal((await t.request('/api/v1/user/bob/', { method: 'DELETE', token: t.all })).status, 200);
    const again = await t.request('/api/v1/user/', {
      method: 'POST', token: t.all, json: { username: 'bob', password: PW, name: 'Bob again', email: '', scope: [t.settings.auth.scopes.read] },
    });
    assert.equal(again.status, 201);
    assert.equal((await call('GET', await t.token(undefined, 'bob', PW))).status, 404, 'a new bob does not inherit the old one\'s data');
  });
});
