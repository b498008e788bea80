// The user routes (docs/api.md: Users and userdata) on the basic backend, through HTTP on createApp.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, makeTestApp, type TestApp } from '../helpers/app.ts';

const ALL = ['svc:maps:read', 'svc:maps:write', 'svc:maps:publish', 'svc:admin'];
const PW = 'twelve chars';

/** No response may ever carry a password or a hash. */
async function body(res: Response) {
  const text = await res.text();
  assert.doesNotMatch(text, /password"\s*:|passwordHash|scrypt\$/i, `secret leaked in ${text}`);
  return text ? JSON.parse(text) : null;
}

function withApp() {
  const ctx = {} as { t: TestApp; admin: string };
  before(async () => {
    ctx.t = await makeTestApp();
    ctx.admin = await ctx.t.token();
  });
  after(() => ctx.t.close());
  return ctx;
}

const create = (ctx: { t: TestApp; admin: string }, username: string, scope = ['svc:maps:read'], password = PW) =>
  ctx.t.request('/api/v1/user', { method: 'POST', token: ctx.admin, json: { username, name: `N ${username}`, password, scope } });

describe('GET /api/v1/current_user/', () => {
  const ctx = withApp();
  it('answers username, name, email and the token\'s scopes, with and without the trailing slash', async () => {
    for (const path of ['/api/v1/current_user/', '/api/v1/current_user']) {
      const res = await ctx.t.request(path, { token: ctx.admin });
      assert.equal(res.status, 200);
      assert.deepEqual(await body(res), { username: 'admin', name: 'Administrator', email: '', scope: ALL });
    }
  });
  it('shows a narrowed token\'s scopes only', async () => {
    const res = await ctx.t.request('/api/v1/current_user/', { token: await ctx.t.token('svc:maps:read') });
    assert.deepEqual((await body(res)).scope, ['svc:maps:read']);
  });
  it('needs the read scope', async () => {
    const res = await ctx.t.request('/api/v1/current_user/', { token: await ctx.t.token('svc:admin') });
    assert.equal(res.status, 403);
  });
});

describe('POST /api/v1/user', () => {
  const ctx = withApp();
  it('creates a user: 201, Location, no password; the user can log in', async () => {
    const res = await ctx.t.request('/api/v1/user', { method: 'POST', token: ctx.admin,
      json: { username: 'alice@noc.example', name: 'Alice', email: 'alice@noc.example', password: PW, scope: ['svc:maps:read'] } });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('location'), `${ctx.t.settings.server.baseUrl}/api/v1/user/alice%40noc.example/`);
    assert.deepEqual(await body(res), { username: 'alice@noc.example', name: 'Alice', email: 'alice@noc.example', scope: ['svc:maps:read'] });
    const tok = await ctx.t.token(undefined, 'alice@noc.example', PW);
    const me = await body(await ctx.t.request('/api/v1/current_user/', { token: tok }));
    assert.equal(me.username, 'alice@noc.example');
  });
  it('409 for an existing username', async () => {
    assert.equal((await create(ctx, 'bob')).status, 201);
    const res = await create(ctx, 'bob');
    assert.equal(res.status, 409);
    assert.match((await body(res)).detail, /already exists/);
  });
  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown scope', { scope: ['svc:maps:read', 'root'] }, 'scope.1'],
    ['a password of 11 characters', { password: 'eleven char' }, 'password'],
    ['a missing password', { password: undefined }, 'password'],
    ['scope that is not an array', { scope: 'svc:maps:read' }, 'scope'],
    ['an email that is not one', { email: 'not an email' }, 'email'],
    ['a name with a line break (it would forge a line of `accounts list`)', { name: 'Mallory\nzz-admin\tsvc:admin' }, 'name'],
    ...['', '../etc', 'a b', 'x'.repeat(65), '-rf', '.hidden', 'a/b', '<svg onload=x>', 'ü', '__proto__', 'a\nb']
      .map((u): [string, Record<string, unknown>, string] => [`username ${JSON.stringify(u)}`, { username: u }, 'username']),
  ];
  for (const [what, patch, path] of invalid) {
    it(`422 for ${what}`, async () => {
      const json = { username: 'carol', name: 'C', password: PW, scope: ['svc:maps:read'], ...patch };
      const res = await ctx.t.request('/api/v1/user', { method: 'POST', token: ctx.admin, json });
      assert.equal(res.status, 422);
      const b = await body(res);
      assert.ok(b.errors.some((e: { path: string }) => e.path === path), JSON.stringify(b));
    });
  }
  it('accepts a 64-character username and a 12-character password (the bounds)', async () => {
    assert.equal((await create(ctx, 'u'.repeat(64), ['svc:maps:write'], 'x'.repeat(12))).status, 201);
  });
  it('400 for malformed JSON', async () => {
    const res = await ctx.t.request('/api/v1/user', { method: 'POST', token: ctx.admin,
      headers: { 'Content-Type': 'application/json' }, body: '{"username":' });
    assert.equal(res.status, 400);
  });
  it('needs the admin scope', async () => {
    const res = await ctx.t.request('/api/v1/user', { method: 'POST', token: await ctx.t.token('svc:maps:read svc:maps:write svc:maps:publish'),
      json: { username: 'dave', password: PW, scope: [] } });
    assert.equal(res.status, 403);
  });
});

describe('GET /api/v1/user/', () => {
  const ctx = withApp();
  const names = Array.from({ length: 11 }, (_, i) => `user${String(i).padStart(2, '0')}`);
  before(async () => {
    // Created concurrently, so in no particular order: the list is sorted by username.
    const statuses = await Promise.all([...names].reverse().map(async (n) => (await create(ctx, n)).status));
    assert.deepEqual(statuses, names.map(() => 201));
  });
  it('returns 10 users by default, sorted by username, total in X-Total-Count', async () => {
    const res = await ctx.t.request('/api/v1/user/', { token: ctx.admin });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-total-count'), '12');
    const list = await body(res);
    assert.deepEqual(list.map((u: { username: string }) => u.username), ['admin', ...names].slice(0, 10));
    assert.deepEqual(Object.keys(list[0]).sort(), ['email', 'name', 'scope', 'username']);
  });
  it('honours limit up to 1000 and offset', async () => {
    const all = await body(await ctx.t.request('/api/v1/user?limit=1000', { token: ctx.admin }));
    assert.equal(all.length, 12);
    const page = await body(await ctx.t.request('/api/v1/user/?limit=2&offset=3', { token: ctx.admin }));
    assert.deepEqual(page.map((u: { username: string }) => u.username), [names[2], names[3]]);
  });
  // Like every malformed query parameter (docs/api.md: Errors), and like the other lists.
  const badQueries: Array<[string, RegExp]> = [
    ['limit=10001', /limit must be an integer from 1 to 10000/], ['limit=0', /limit must be/], ['limit=-1', /limit must be/],
    ['limit=ten', /limit must be/], ['limit=1.5', /limit must be/], ['offset=-1', /offset must be an integer from 0/],
    ['limit=2&limit=3', /limit may be given once/],
  ];
  for (const [query, detail] of badQueries) {
    it(`?${query} is 400 naming the parameter`, async () => {
      const res = await ctx.t.request(`/api/v1/user/?${query}`, { token: ctx.admin });
      assert.equal(res.status, 400);
      assert.match((await body(res)).detail, detail);
    });
  }
});

describe('PUT /api/v1/user/{username}/', () => {
  const ctx = withApp();
  before(async () => {
    assert.equal((await create(ctx, 'erin', ['svc:maps:read', 'svc:admin'])).status, 201);
  });
  it('takes what Terranova\'s editor sends: the username as its email, beside the username', async () => {
    const json = { username: 'erin', email: 'erin', name: 'Erin', scope: ['svc:maps:read', 'svc:admin'] };
    const res = await ctx.t.request('/api/v1/user/erin/', { method: 'PUT', token: ctx.admin, json });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await body(res)).email, 'erin');
    // Not an address and not this user's name: still refused.
    const other = await ctx.t.request('/api/v1/user/erin/', { method: 'PUT', token: ctx.admin, json: { ...json, email: 'frank' } });
    assert.equal(other.status, 422);
    assert.match((await body(other)).detail, /email/);
    await ctx.t.request('/api/v1/user/erin/', { method: 'PUT', token: ctx.admin, json: { email: '' } });
  });
  it('updates name and scope and keeps the password', async () => {
    const res = await ctx.t.request('/api/v1/user/erin/', { method: 'PUT', token: ctx.admin,
      json: { username: 'erin', name: 'Erin E.', scope: ['svc:maps:read', 'svc:maps:write', 'svc:admin'] } });
    assert.equal(res.status, 200);
    assert.deepEqual(await body(res), { username: 'erin', name: 'Erin E.', email: '', scope: ['svc:maps:read', 'svc:maps:write', 'svc:admin'] });
    assert.ok(await ctx.t.token('svc:maps:write', 'erin', PW));
  });
  it('narrows the scopes of tokens already issued, at once', async () => {
    const erin = await ctx.t.token('svc:admin svc:maps:read', 'erin', PW);
    assert.equal((await ctx.t.request('/api/v1/user/', { token: erin })).status, 200);
    await ctx.t.request('/api/v1/user/erin', { method: 'PUT', token: ctx.admin, json: { scope: ['svc:maps:read'] } });
    const res = await ctx.t.request('/api/v1/user/', { token: erin });
    assert.equal(res.status, 403);
    assert.deepEqual((await body(await ctx.t.request('/api/v1/current_user/', { token: erin }))).scope, ['svc:maps:read']);
  });
  const invalid: Array<[string, unknown, number]> = [
    ['a different username (renaming)', { username: 'mallory', scope: [] }, 422],
    ['a password', { password: 'a new password!' }, 422],
    ['an unknown scope', { scope: ['svc:maps:delete'] }, 422],
    ['a body that is not an object', [1, 2], 422],
  ];
  for (const [what, json, status] of invalid) {
    it(`${status} for ${what}`, async () => {
      const res = await ctx.t.request('/api/v1/user/erin/', { method: 'PUT', token: ctx.admin, json });
      assert.equal(res.status, status);
    });
  }
  it('404 for an unknown user and for a name that cannot exist', async () => {
    for (const u of ['nobody', '..%2F..%2Fprivate%2Fusers', '%3Cscript%3E']) {
      const res = await ctx.t.request(`/api/v1/user/${u}/`, { method: 'PUT', token: ctx.admin, json: { scope: [] } });
      assert.equal(res.status, 404, u);
    }
  });
  it('409 when the last admin would lose the admin scope; allowed while another admin remains', async () => {
    const demote = (u: string) => ctx.t.request(`/api/v1/user/${u}/`, { method: 'PUT', token: ctx.admin, json: { scope: ['svc:maps:read'] } });
    // erin was demoted above, so admin is the last one.
    const refused = await demote('admin');
    assert.equal(refused.status, 409);
    assert.match((await body(refused)).detail, /svc:admin/);
    await ctx.t.request('/api/v1/user/erin/', { method: 'PUT', token: ctx.admin, json: { scope: ['svc:admin'] } });
    assert.equal((await demote('erin')).status, 200);
    const stillAdmin = await body(await ctx.t.request('/api/v1/current_user', { token: ctx.admin }));
    assert.ok(stillAdmin.scope.includes('svc:admin'));
  });
});

describe('PUT /api/v1/user/{username}/set_password/', () => {
  const ctx = withApp();
  it('sets the password: the old one and tokens issued before stop working at once', async () => {
    assert.equal((await create(ctx, 'frank')).status, 201);
    const old = await ctx.t.token(undefined, 'frank', PW);
    const res = await ctx.t.request('/api/v1/user/frank/set_password/', { method: 'PUT', token: ctx.admin, json: { password: 'another secret' } });
    assert.equal(res.status, 200);
    assert.equal((await body(res)).username, 'frank');
    const stale = await ctx.t.request('/api/v1/current_user/', { token: old });
    assert.equal(stale.status, 401);
    assert.match(stale.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    await assert.rejects(ctx.t.token(undefined, 'frank', PW), /400 .*invalid_grant/);
    assert.ok(await ctx.t.token(undefined, 'frank', 'another secret'));
  });
  it('422 for a short password, 404 for an unknown user', async () => {
    assert.equal((await ctx.t.request('/api/v1/user/admin/set_password', { method: 'PUT', token: ctx.admin, json: { password: 'short' } })).status, 422);
    assert.equal((await ctx.t.request('/api/v1/user/ghost/set_password/', { method: 'PUT', token: ctx.admin, json: { password: PW } })).status, 404);
  });
});

describe('DELETE /api/v1/user/{username}/', () => {
  const ctx = withApp();
  it('deletes permanently: 200 with the user (as Terranova answers), the user\'s tokens stop working, a second delete is 404', async () => {
    assert.equal((await create(ctx, 'grace')).status, 201);
    const tok = await ctx.t.token(undefined, 'grace', PW);
    const res = await ctx.t.request('/api/v1/user/grace/', { method: 'DELETE', token: ctx.admin });
    assert.equal(res.status, 200);
    assert.equal((await body(res)).username, 'grace');
    assert.equal((await ctx.t.request('/api/v1/current_user/', { token: tok })).status, 401);
    assert.equal((await ctx.t.request('/api/v1/user/grace', { method: 'DELETE', token: ctx.admin })).status, 404);
    const list = await body(await ctx.t.request('/api/v1/user/?limit=1000', { token: ctx.admin }));
    assert.deepEqual(list.map((u: { username: string }) => u.username), ['admin']);
  });
  it('refuses to delete the last admin (409), allows it while another admin remains', async () => {
    const refused = await ctx.t.request('/api/v1/user/admin/', { method: 'DELETE', token: ctx.admin });
    assert.equal(refused.status, 409);
    assert.equal((await create(ctx, 'heidi', ['svc:admin'])).status, 201);
    assert.equal((await ctx.t.request('/api/v1/user/admin/', { method: 'DELETE', token: ctx.admin })).status, 200);
    const heidi = await ctx.t.token(undefined, 'heidi', PW);
    assert.equal((await ctx.t.request('/api/v1/user/heidi/', { method: 'DELETE', token: heidi })).status, 409);
  });
});

describe('user routes survive a restart', () => {
  it('users and passwords are read back from the data folder', async () => {
    const first = await makeTestApp();
    const admin = await first.token();
    await first.request('/api/v1/user', { method: 'POST', token: admin, json: { username: 'ivan', password: PW, scope: ['svc:maps:read'] } });
    await first.close(false);
    const second = await makeTestApp({ dir: first.dir });
    try {
      assert.ok(await second.token(undefined, 'ivan', PW));
      assert.ok(await second.token(undefined, 'admin', ADMIN_PASSWORD));
    } finally {
      await second.close(true);
    }
  });
});
