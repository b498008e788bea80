// Throttling of failed logins at POST /api/v1/auth/token: per username and
// per client address, 429 with Retry-After; X-Forwarded-For only when trusted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoginThrottle } from '../../auth/throttle.ts';
import type { SettingsInput } from '../../config/settings.ts';
import { ADMIN_PASSWORD, makeTestApp, type TestApp } from '../helpers/app.ts';

const attempt = (t: TestApp, username: string, password: string, remoteAddress?: string, headers: Record<string, string> = {}) =>
  t.request('/api/v1/auth/token', { method: 'POST', remoteAddress, headers,
    json: { grant_type: 'password', username, password } });

async function withApp(settings: SettingsInput, fn: (t: TestApp) => Promise<void>) {
  const t = await makeTestApp({ settings });
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

/** Sends the failures one after another (each is a real password check) and returns their statuses. */
async function fail(n: number, send: (i: number) => Promise<Response>) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await send(i)).status);
  return statuses;
}

const small = { auth: { loginThrottle: { maxFailures: 3 } } };

describe('throttling: per username', () => {
  it('with the defaults, the 11th failed attempt within a minute is 429 with Retry-After, even with the right password', () =>
    withApp({}, async (t) => {
      assert.deepEqual(await fail(10, () => attempt(t, 'admin', 'wrong password!', '192.0.2.1')), Array(10).fill(400));
      const res = await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.1');
      assert.equal(res.status, 429);
      const retry = Number(res.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      const body = await res.json() as { detail: string; code: string };
      assert.equal(body.code, 'rate_limited');
      assert.match(body.detail, /too many failed login attempts/);
    }));

  it('counts one username across addresses; other users stay unaffected', () =>
    withApp(small, async (t) => {
      assert.deepEqual(await fail(3, (i) => attempt(t, 'admin', 'wrong password!', `198.51.100.${i + 1}`)), [400, 400, 400]);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '198.51.100.99')).status, 429);
      assert.equal((await attempt(t, 'someone-else', 'wrong password!', '198.51.100.99')).status, 400);
    }));

  it('a successful login clears the username\'s count', () =>
    withApp(small, async (t) => {
      assert.deepEqual(await fail(2, () => attempt(t, 'admin', 'wrong password!', '192.0.2.7')), [400, 400]);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.8')).status, 200);
      assert.deepEqual(await fail(2, () => attempt(t, 'admin', 'wrong password!', '192.0.2.9')), [400, 400]);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.10')).status, 200);
    }));

  it('guesses sent all at once: only maxFailures are checked, the rest (the right password too) are 429', () =>
    withApp(small, async (t) => {
      const guesses = Array.from({ length: 20 }, (_, i) => (i === 19 ? ADMIN_PASSWORD : `wrong password ${i}`));
      const statuses = (await Promise.all(guesses.map((p, i) => attempt(t, 'admin', p, `198.51.100.${i + 1}`)))).map((r) => r.status);
      const count = (status: number) => statuses.filter((s) => s === status).length;
      assert.deepEqual([count(400) + count(200), count(429)], [3, 17], statuses.join(' '));
    }));

  it('a success gives back only its own count of the address; earlier failures there stand', () =>
    withApp(small, async (t) => {
      assert.deepEqual(await fail(2, (i) => attempt(t, `guess${i}`, 'wrong password!', '203.0.113.9')), [400, 400]);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.9')).status, 200);
      assert.equal((await attempt(t, 'guess9', 'wrong password!', '203.0.113.9')).status, 400);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.9')).status, 429);
    }));

  it('lets the user in again once the window has passed', () =>
    withApp({ auth: { loginThrottle: { maxFailures: 2, windowSeconds: 1 } } }, async (t) => {
      await fail(2, (i) => attempt(t, 'admin', 'wrong password!', `192.0.2.${20 + i}`));
      const blocked = await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.30');
      assert.equal(blocked.status, 429);
      assert.equal(blocked.headers.get('retry-after'), '1');
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.30')).status, 200);
    }));
});

describe('throttling: per client address', () => {
  it('many usernames from one address: the next attempt is 429', () =>
    withApp(small, async (t) => {
      assert.deepEqual(await fail(3, (i) => attempt(t, `guess${i}`, 'wrong password!', '203.0.113.5')), [400, 400, 400]);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.5')).status, 429);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.6')).status, 200);
    }));

  it('ignores X-Forwarded-For unless server.trustProxy is set', () =>
    withApp(small, async (t) => {
      await fail(3, (i) => attempt(t, `guess${i}`, 'wrong password!', '203.0.113.5', { 'X-Forwarded-For': `10.0.0.${i}` }));
      const res = await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.5', { 'X-Forwarded-For': '10.0.0.200' });
      assert.equal(res.status, 429);
    }));

  it('with server.trustProxy, the proxy-appended (right-most) X-Forwarded-For entry is the client', () =>
    withApp({ ...small, server: { trustProxy: true } }, async (t) => {
      const proxy = '10.9.9.9';
      await fail(3, (i) => attempt(t, `guess${i}`, 'wrong password!', proxy, { 'X-Forwarded-For': `1.2.3.4, 203.0.113.${i}` }));
      // Distinct clients behind the proxy: none is blocked ...
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, proxy, { 'X-Forwarded-For': '203.0.113.50' })).status, 200);
      // ... and a client cannot escape its count by prepending a forged entry.
      await fail(3, (i) => attempt(t, `other${i}`, 'wrong password!', proxy, { 'X-Forwarded-For': `9.9.9.${i}, 203.0.113.77` }));
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, proxy, { 'X-Forwarded-For': '8.8.8.8, 203.0.113.77' })).status, 429);
    }));
});

describe('throttling: a success among attempts in flight', () => {
  // Deterministic orderings of begin and end, which concurrent requests give only by chance.
  const blocked = (p: Promise<void>) => p.then(() => false, (e) => (assert.equal(e.code, 'rate_limited'), true));

  it('keeps the counts of the guesses still in flight, so they are not given back by the success beside them', async () => {
    const throttle = new LoginThrottle({ maxFailures: 3, windowSeconds: 60 });
    for (let i = 0; i < 3; i++) await throttle.begin('admin', `192.0.2.${i}`); // two guesses and the right password
    await throttle.end('admin', '192.0.2.2', true); // the right password ends first
    assert.equal(await blocked(throttle.begin('admin', '192.0.2.7')), false, 'the two guesses in flight and this one: 3');
    assert.equal(await blocked(throttle.begin('admin', '192.0.2.8')), true, 'a fourth is over the limit');
    await throttle.end('admin', '192.0.2.0', false);
    await throttle.end('admin', '192.0.2.1', false);
    assert.equal(await blocked(throttle.begin('admin', '192.0.2.9')), true, 'the guesses that failed stay counted');
  });

  it('clears the username once nothing else is in flight', async () => {
    const throttle = new LoginThrottle({ maxFailures: 2, windowSeconds: 60 });
    await throttle.begin('admin', '192.0.2.1');
    await throttle.end('admin', '192.0.2.1', false);
    await throttle.begin('admin', '192.0.2.2');
    await throttle.end('admin', '192.0.2.2', true);
    for (let i = 0; i < 2; i++) assert.equal(await blocked(throttle.begin('admin', `192.0.2.${10 + i}`)), false);
    assert.equal(await blocked(throttle.begin('admin', '192.0.2.20')), true);
  });
});
