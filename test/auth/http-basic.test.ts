// `Authorization: Basic` on API requests (auth.basic.acceptHttpBasic): off by
// default; when on, RFC 7617 decoding, both challenges on a 401, the token
// endpoint's throttle, a cache that spares the password hash and forgets a
// changed or deleted account at once, scope checks, and never with OIDC.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { Context } from 'hono';
import { HttpBasic } from '../../auth/http-basic.ts';
import { PasswordLogin } from '../../auth/login.ts';
import { passwordChecks } from '../../auth/passwords.ts';
import { LoginThrottle } from '../../auth/throttle.ts';
import { UserDirectory } from '../../auth/users.ts';
import type { SettingsInput } from '../../config/settings.ts';
import { ADMIN_PASSWORD, makeTestApp, type TestApp, type TestAppOptions, TEST_PASSWORD_COST } from '../helpers/app.ts';

const BEARER_ONLY = 'Bearer realm="map-topology-service"';
const BOTH = 'Bearer realm="map-topology-service", Basic realm="map-topology-service", charset="UTF-8"';
const READ = '/api/v1/current_user/';
const EDITOR_PASSWORD = 'editor password!';

const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
const on = (extra: NonNullable<NonNullable<SettingsInput['auth']>['basic']> = {}, more: SettingsInput['auth'] = {}): SettingsInput =>
  ({ auth: { ...more, basic: { acceptHttpBasic: true, ...extra } } });

const sampleMap = (name: string) => ({
  name,
  configuration: {
    initialViewStrategy: 'manual',
    viewport: { center: { lat: 39.5, lng: -98.35 }, zoom: 4 },
    showLegend: true,
    layers: [{ name: 'core', color: '#1f77b4', datasetId: 'AbCdEf1', layout: 'geographic' }],
  },
  overrides: {},
});

/** Counts the password checks (scrypt runs) of every login, calling through to the real one. */
let checks: ReturnType<typeof mock.method>;
beforeEach(() => { checks = mock.method(passwordChecks, 'verify'); });
afterEach(() => { mock.restoreAll(); mock.timers.reset(); });
const hashes = () => checks.mock.callCount();

async function withApp(settings: SettingsInput, fn: (t: TestApp) => Promise<void>, options: Omit<TestAppOptions, 'settings'> = {}) {
  const t = await makeTestApp({ ...options, settings });
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

const get = (t: TestApp, authorization?: string, remoteAddress?: string, path = READ) =>
  t.request(path, { headers: authorization === undefined ? {} : { Authorization: authorization }, remoteAddress });
const asAdmin = (t: TestApp, path: string, method: string, json?: unknown) =>
  t.request(path, { method, headers: { Authorization: basic('admin', ADMIN_PASSWORD) }, ...(json === undefined ? {} : { json }) });
async function addUser(t: TestApp, username: string, scope: string[], password = EDITOR_PASSWORD) {
  const res = await asAdmin(t, '/api/v1/user', 'POST', { username, password, scope });
  assert.equal(res.status, 201, await res.text());
}

async function assertUnauthorized(res: Response, challenge: string) {
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), challenge);
  assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
}

describe('HTTP Basic: off by default', () => {
  it('answers right Basic credentials 401 with the Bearer challenge only, without checking the password', () =>
    withApp({}, async (t) => {
      await assertUnauthorized(await get(t, basic('admin', ADMIN_PASSWORD)), BEARER_ONLY);
      assert.equal(hashes(), 0);
    }));

  it('stays off when acceptHttpBasic is false', () =>
    withApp(on({ acceptHttpBasic: false }), async (t) => {
      await assertUnauthorized(await get(t, basic('admin', ADMIN_PASSWORD)), BEARER_ONLY);
      await assertUnauthorized(await get(t), BEARER_ONLY);
    }));

  it('is never accepted with the oidc backend, even when acceptHttpBasic is set', () =>
    withApp(on({}, { backend: 'oidc', oidc: { issuer: 'builtin' } }), async (t) => {
      await assertUnauthorized(await get(t, basic('admin', ADMIN_PASSWORD), undefined, '/api/v1/maps/'), BEARER_ONLY);
      assert.equal(hashes(), 0);
      assert.ok(t.log.lines.some((l) => l.includes('acceptHttpBasic is ignored')), t.log.lines.join('\n'));
    }));
});

describe('HTTP Basic: on', () => {
  it('right credentials: reads answer 200 with all of the user\'s scopes', () =>
    withApp(on(), async (t) => {
      const res = await get(t, basic('admin', ADMIN_PASSWORD));
      assert.equal(res.status, 200, await res.clone().text());
      const me = (await res.json()) as { username: string; scope: string[] };
      assert.equal(me.username, 'admin');
      assert.deepEqual([...me.scope].sort(), Object.values(t.settings.auth.scopes).sort());
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), undefined, '/api/v1/maps/')).status, 200);
    }));

  it('writes work and are made by the username (lastUpdatedBy)', () =>
    withApp(on(), async (t) => {
      await addUser(t, 'editor', ['svc:maps:read', 'svc:maps:write']);
      const editor = { Authorization: basic('editor', EDITOR_PASSWORD) };
      const created = await t.request('/api/v1/map/', { method: 'POST', headers: editor, json: sampleMap('By Basic') });
      assert.equal(created.status, 201, await created.clone().text());
      const map = (await created.json()) as { mapId: string; lastUpdatedBy: string };
      assert.equal(map.lastUpdatedBy, 'editor');
      const updated = await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', headers: editor, json: sampleMap('Renamed') });
      assert.equal(updated.status, 200, await updated.clone().text());
      assert.equal(((await updated.json()) as { lastUpdatedBy: string }).lastUpdatedBy, 'editor');
      const read = await get(t, basic('editor', EDITOR_PASSWORD), undefined, `/api/v1/map/id/${map.mapId}/`);
      assert.equal(((await read.json()) as { name: string }).name, 'Renamed');
    }));

  it('a user without the write scope gets 403 insufficient_scope on a write', () =>
    withApp(on(), async (t) => {
      await addUser(t, 'reader', ['svc:maps:read']);
      assert.equal((await get(t, basic('reader', EDITOR_PASSWORD), undefined, '/api/v1/maps/')).status, 200);
      const res = await t.request('/api/v1/map/', { method: 'POST', headers: { Authorization: basic('reader', EDITOR_PASSWORD) }, json: sampleMap('No') });
      assert.equal(res.status, 403);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="map-topology-service", error="insufficient_scope", scope="svc:maps:write"');
      assert.equal(((await res.json()) as { code: string }).code, 'insufficient_scope');
    }));

  it('a wrong password or an unknown user is 401 naming both schemes', () =>
    withApp(on(), async (t) => {
      await assertUnauthorized(await get(t, basic('admin', 'wrong password!')), BOTH);
      await assertUnauthorized(await get(t, basic('nobody', ADMIN_PASSWORD)), BOTH);
      assert.equal(hashes(), 2, 'an unknown user costs a password check too');
    }));

  it('every 401 names both schemes: no credentials, another scheme, a bad bearer token', () =>
    withApp(on(), async (t) => {
      await assertUnauthorized(await get(t), BOTH);
      await assertUnauthorized(await get(t, 'Digest username="admin"'), BOTH);
      const bad = await get(t, 'Bearer not-a-jwt');
      assert.equal(bad.status, 401);
      assert.match(bad.headers.get('www-authenticate')!, /^Bearer realm="map-topology-service", error="invalid_token".*, Basic realm="map-topology-service", charset="UTF-8"$/);
      // Bearer tokens keep working beside Basic.
      assert.equal((await t.request(READ, { token: await t.token() })).status, 200);
    }));

  it('decodes the credentials as UTF-8, splitting at the first colon (the password may hold colons)', () =>
    withApp(on(), async (t) => {
      const password = 'pässwörd: with ✓ colons';
      await addUser(t, 'utf8-user', ['svc:maps:read'], password);
      assert.equal((await get(t, basic('utf8-user', password))).status, 200);
      // The same password in Latin-1 bytes is not the same credentials.
      const latin1 = `Basic ${Buffer.from(`utf8-user:${password.replace('✓', 'v')}`, 'latin1').toString('base64')}`;
      await assertUnauthorized(await get(t, latin1), BOTH);
    }));

  const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
  const malformed: Array<[string, string]> = [
    ['the bare scheme', 'Basic'],
    ['an empty credentials part', 'Basic '],
    ['no colon', `Basic ${b64('admin')}`],
    ['bad base64 characters', 'Basic !!!!'],
    ['base64 with a space inside', `Basic ${b64('admin:').slice(0, 4)} ${b64('admin:').slice(4)}`],
    // Node's decoder would read these three as "admin:xyz" and "admin:x": only canonical base64 is taken.
    ['base64 of an impossible length', `Basic ${b64('admin:xyz')}A`],
    ['a non-canonical encoding (unused bits set)', `Basic ${b64('admin:x').replace('eA==', 'eB==')}`],
    ['padding on a full quantum', `Basic ${b64('admin:xyz')}==`],
    ['too much padding', 'Basic YQ==='],
    ['bytes that are not UTF-8', `Basic ${b64(Buffer.concat([Buffer.from('admin:'), Buffer.from([0xff, 0xfe, 0xc3])]))}`],
    ['a non-UTF-8 user-id', `Basic ${b64(Buffer.concat([Buffer.from([0xe9]), Buffer.from(`:${ADMIN_PASSWORD}`)]))}`],
    ['an empty user-id', `Basic ${b64(`:${ADMIN_PASSWORD}`)}`],
    ['an empty password', `Basic ${b64('admin:')}`],
    ['only a colon', `Basic ${b64(':')}`],
    ['a control character in the user-id', `Basic ${b64(`ad\u0000min:${ADMIN_PASSWORD}`)}`],
    ['a password over 1024 characters', `Basic ${b64(`admin:${'x'.repeat(1025)}`)}`],
  ];
  for (const [what, header] of malformed) {
    it(`malformed credentials (${what}): 401 naming both schemes, never a 500, no password check`, () =>
      withApp(on(), async (t) => {
        await assertUnauthorized(await get(t, header), BOTH);
        assert.equal(hashes(), 0);
      }));
  }

  it('the scheme name is case-insensitive (RFC 7617)', () =>
    withApp(on(), async (t) => {
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD).replace('Basic', 'bAsIc'))).status, 200);
    }));
});

describe('HTTP Basic: the login throttle', () => {
  const small = () => on({}, { loginThrottle: { maxFailures: 3, perUsername: { maxFailures: 3 }, perAddress: { maxFailures: 3 } } });

  it('after maxFailures wrong passwords from an address: 429 with Retry-After there, the right (even remembered) password too, until the window passes', () =>
    withApp(on({}, { loginThrottle: { maxFailures: 3, windowSeconds: 60 } }), async (t) => {
      // The throttle's counters read Date.now(); a mocked clock lets the window pass without waiting.
      mock.timers.enable({ apis: ['Date'], now: Date.now() });
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '192.0.2.1')).status, 200); // now remembered
      const before = hashes();
      for (let i = 0; i < 3; i++) await assertUnauthorized(await get(t, basic('admin', `wrong ${i}`), '192.0.2.1'), BOTH);
      assert.equal(hashes(), before + 3);
      for (const password of [ADMIN_PASSWORD, 'wrong again']) {
        const res = await get(t, basic('admin', password), '192.0.2.1');
        assert.equal(res.status, 429, password);
        const retry = Number(res.headers.get('retry-after'));
        assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
        assert.equal(((await res.json()) as { code: string }).code, 'rate_limited');
      }
      assert.equal(hashes(), before + 3, 'a throttled request checks no password');
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '192.0.2.2')).status, 200, 'another address is not blocked');
      mock.timers.tick(30_000);
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '192.0.2.1')).status, 429, 'still within the window');
      mock.timers.tick(31_000);
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '192.0.2.1')).status, 200);
    }));

  it('is the token endpoint\'s throttle: Basic failures from many addresses block the token endpoint for that username', () =>
    withApp(small(), async (t) => {
      for (let i = 0; i < 3; i++) await assertUnauthorized(await get(t, basic('admin', `wrong ${i}`), `198.51.100.${i}`), BOTH);
      const token = await t.request('/api/v1/auth/token', { method: 'POST', remoteAddress: '198.51.100.50',
        json: { grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD } });
      assert.equal(token.status, 429);
    }));

  it('token endpoint failures block Basic for that username', () =>
    withApp(small(), async (t) => {
      for (let i = 0; i < 3; i++) {
        const res = await t.request('/api/v1/auth/token', { method: 'POST', remoteAddress: `198.51.100.${i}`,
          json: { grant_type: 'password', username: 'admin', password: `wrong ${i}` } });
        assert.equal(res.status, 400);
      }
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '198.51.100.60')).status, 429);
    }));

  it('counts per client address too: wrong passwords for many usernames from one address block it, not others', () =>
    withApp(small(), async (t) => {
      for (let i = 0; i < 3; i++) await assertUnauthorized(await get(t, basic(`guess${i}`, 'wrong password!'), '203.0.113.5'), BOTH);
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '203.0.113.5')).status, 429);
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '203.0.113.6')).status, 200);
    }));

  it('a stranger\'s failures do not lock out an editor sending Basic from an address it signed in from', () =>
    withApp(small(), async (t) => {
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '192.0.2.1')).status, 200);
      for (let i = 0; i < 4; i++) await get(t, basic('admin', `wrong ${i}`), `198.51.100.${i}`);
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '198.51.100.60')).status, 429, 'a new address is blocked');
      const before = hashes();
      for (let i = 0; i < 3; i++) assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '192.0.2.1')).status, 200);
      assert.equal(hashes(), before, 'remembered: no password check');
    }));

  it('a success clears its own address\'s count: the user\'s typos there never add up to a lockout', () =>
    withApp(small(), async (t) => {
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 2; i++) await assertUnauthorized(await get(t, basic('admin', `wrong ${i}`), '192.0.2.5'), BOTH);
        assert.equal((await get(t, basic('admin', ADMIN_PASSWORD), '192.0.2.5')).status, 200, `round ${round}`);
      }
    }));

  it('many requests at once with the same right credentials: one password check, none throttled', () =>
    withApp(small(), async (t) => {
      const statuses = (await Promise.all(Array.from({ length: 12 }, () => get(t, basic('admin', ADMIN_PASSWORD), '192.0.2.77'))))
        .map((r) => r.status);
      assert.deepEqual(statuses, Array(12).fill(200));
      assert.equal(hashes(), 1);
    }));
});

describe('HTTP Basic: the cache of verified credentials', () => {
  it('a remembered success costs no password hash; wrong passwords are never remembered', () =>
    withApp(on(), async (t) => {
      for (let i = 0; i < 5; i++) assert.equal((await get(t, basic('admin', ADMIN_PASSWORD))).status, 200);
      assert.equal(hashes(), 1, 'only the first request checks the password');
      const created = await t.request('/api/v1/map/', { method: 'POST', headers: { Authorization: basic('admin', ADMIN_PASSWORD) }, json: sampleMap('Cached') });
      assert.equal(created.status, 201);
      assert.equal(hashes(), 1);
      for (let i = 0; i < 3; i++) await assertUnauthorized(await get(t, basic('admin', 'wrong password!')), BOTH);
      assert.equal(hashes(), 4, 'each wrong password is checked again');
      // A password that differs only after the remembered one is not the same credentials.
      await assertUnauthorized(await get(t, basic('admin', `${ADMIN_PASSWORD}x`)), BOTH);
    }));

  it('entries expire after cacheSeconds (the service clock)', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    await withApp(on({ cacheSeconds: 60 }), async (t) => {
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD))).status, 200);
      now += 59_000;
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD))).status, 200);
      assert.equal(hashes(), 1);
      now += 1_000;
      assert.equal((await get(t, basic('admin', ADMIN_PASSWORD))).status, 200);
      assert.equal(hashes(), 2, 'checked again once expired');
    }, { now: () => new Date(now) });
  });

  it('cacheSeconds 0 remembers nothing: every request checks the password', () =>
    withApp(on({ cacheSeconds: 0 }), async (t) => {
      for (let i = 0; i < 3; i++) assert.equal((await get(t, basic('admin', ADMIN_PASSWORD))).status, 200);
      assert.equal(hashes(), 3);
    }));

  it('a password change (admin set_password) stops the remembered password at once', () =>
    withApp(on(), async (t) => {
      await addUser(t, 'editor', ['svc:maps:read']);
      assert.equal((await get(t, basic('editor', EDITOR_PASSWORD))).status, 200);
      assert.equal((await get(t, basic('editor', EDITOR_PASSWORD))).status, 200);
      const changed = await asAdmin(t, '/api/v1/user/editor/set_password/', 'PUT', { password: 'a brand new one' });
      assert.equal(changed.status, 200, await changed.text());
      await assertUnauthorized(await get(t, basic('editor', EDITOR_PASSWORD)), BOTH);
      assert.equal((await get(t, basic('editor', 'a brand new one'))).status, 200);
    }));

  it('deleting the user stops the remembered password at once, and a new account of that name does not inherit it', () =>
    withApp(on(), async (t) => {
      await addUser(t, 'editor', ['svc:maps:read', 'svc:maps:write']);
      assert.equal((await get(t, basic('editor', EDITOR_PASSWORD))).status, 200);
      const deleted = await asAdmin(t, '/api/v1/user/editor/', 'DELETE');
      assert.ok(deleted.status === 200 || deleted.status === 204, String(deleted.status));
      await assertUnauthorized(await get(t, basic('editor', EDITOR_PASSWORD)), BOTH);
      await addUser(t, 'editor', ['svc:maps:read'], EDITOR_PASSWORD);
      const before = hashes();
      assert.equal((await get(t, basic('editor', EDITOR_PASSWORD))).status, 200);
      assert.equal(hashes(), before + 1, 'the new account\'s password is checked, not taken from the old one');
    }));

  it('a change made behind the service\'s back (another UserDirectory, as the accounts CLI) is caught on the next hit', () =>
    withApp(on(), async (t) => {
      await addUser(t, 'editor', ['svc:maps:read']);
      assert.equal((await get(t, basic('editor', EDITOR_PASSWORD))).status, 200);
      const other = new UserDirectory(t.store, () => new Date(), TEST_PASSWORD_COST);
      await other.setPassword('editor', 'changed elsewhere');
      await assertUnauthorized(await get(t, basic('editor', EDITOR_PASSWORD)), BOTH);
      await other.remove('editor');
      await other.create({ username: 'editor', password: 'changed elsewhere', scope: ['svc:maps:read'] });
      assert.equal((await get(t, basic('editor', 'changed elsewhere'))).status, 200);
      await other.remove('editor');
      await assertUnauthorized(await get(t, basic('editor', 'changed elsewhere')), BOTH);
    }));

  it('scope changes apply to a remembered password at once', () =>
    withApp(on(), async (t) => {
      await addUser(t, 'editor', ['svc:maps:read', 'svc:maps:write']);
      const editor = { Authorization: basic('editor', EDITOR_PASSWORD) };
      assert.equal((await t.request('/api/v1/map/', { method: 'POST', headers: editor, json: sampleMap('One') })).status, 201);
      assert.equal((await asAdmin(t, '/api/v1/user/editor/', 'PUT', { scope: ['svc:maps:read'] })).status, 200);
      assert.equal((await t.request('/api/v1/map/', { method: 'POST', headers: editor, json: sampleMap('Two') })).status, 403);
    }));

  it('keeps at most maxEntries, dropping the oldest first', () =>
    withApp({}, async (t) => {
      const users = new UserDirectory(t.store, () => new Date(), TEST_PASSWORD_COST);
      for (let i = 0; i < 4; i++) await users.create({ username: `u${i}`, password: `password ${i}`, scope: ['svc:maps:read'] });
      const login = new PasswordLogin(users, new LoginThrottle({ maxFailures: 100, windowSeconds: 60 }));
      const cache = new HttpBasic({ users, login, cacheSeconds: 60, now: () => new Date(), clientAddress: () => '192.0.2.1', maxEntries: 3 });
      const c = {} as Context;
      const auth = (i: number) => cache.authenticate(c, basic(`u${i}`, `password ${i}`));
      for (let i = 0; i < 4; i++) assert.equal((await auth(i)).username, `u${i}`);
      assert.equal(cache.size, 3);
      const start = hashes();
      await auth(3);
      await auth(1);
      assert.equal(hashes(), start, 'u1 and u3 are still remembered');
      await auth(0);
      assert.equal(hashes(), start + 1, 'u0, the oldest, was dropped');
      assert.equal(cache.size, 3);
    }));

  it('forgets an account\'s entries when its password changes or it is deleted through the service\'s directory', () =>
    withApp({}, async (t) => {
      const users = new UserDirectory(t.store, () => new Date(), TEST_PASSWORD_COST);
      for (const name of ['keep', 'change', 'drop']) await users.create({ username: name, password: `password ${name}`, scope: ['svc:maps:read'] });
      const login = new PasswordLogin(users, new LoginThrottle({ maxFailures: 100, windowSeconds: 60 }));
      const cache = new HttpBasic({ users, login, cacheSeconds: 60, now: () => new Date(), clientAddress: () => '192.0.2.1' });
      for (const name of ['keep', 'change', 'drop']) await cache.authenticate({} as Context, basic(name, `password ${name}`));
      assert.equal(cache.size, 3);
      await users.setPassword('change', 'another password');
      assert.equal(cache.size, 2);
      await users.remove('drop');
      assert.equal(cache.size, 1);
      await assert.rejects(cache.authenticate({} as Context, basic('change', 'password change')), { code: 'unauthorized' });
    }));
});
