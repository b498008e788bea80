// Throttling of failed logins at POST /api/v1/auth/token (auth/throttle.ts):
// per username and address pair, per username over addresses (never blocking
// an address the user signed in from), per address over usernames; 429 with
// Retry-After; X-Forwarded-For only when trusted. The cap on password checks
// at once is in throttle-checks.test.ts.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { passwordChecks, verifyPassword } from '../../auth/passwords.ts';
import { KNOWN_PER_USER, LoginThrottle, type LoginAttempt } from '../../auth/throttle.ts';
import { parseSettings, type SettingsInput } from '../../config/settings.ts';
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

/** Sends the attempts one after another and returns their statuses. */
async function statuses(n: number, send: (i: number) => Promise<Response>) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send(i)).status);
  return out;
}
function tally(list: number[]) {
  const counts: Record<number, number> = {};
  for (const s of list) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}
const retryAfter = (res: Response) => Number(res.headers.get('retry-after'));

// The right password is checked for real; a wrong one costs no scrypt run, so a
// hundred guesses take no time. Every call is counted.
let checks: ReturnType<typeof mock.method>;
beforeEach(() => {
  checks = mock.method(passwordChecks, 'verify', (password: string, hash: string) =>
    (password === ADMIN_PASSWORD ? verifyPassword(password, hash) : Promise.resolve(false)));
});
afterEach(() => { mock.restoreAll(); mock.timers.reset(); });
const checked = () => checks.mock.callCount();
/** The throttle's windows read Date.now(); a mocked clock lets them pass without waiting. */
const mockClock = () => mock.timers.enable({ apis: ['Date'], now: Date.now() });

const DAY = 86_400_000;

describe('throttling: per username and address pair', () => {
  it('with the defaults, the 11th failed attempt within a minute from one address is 429 with Retry-After, even with the right password', () =>
    withApp({}, async (t) => {
      assert.deepEqual(await statuses(10, () => attempt(t, 'admin', 'wrong password!', '192.0.2.1')), Array(10).fill(400));
      const res = await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.1');
      assert.equal(res.status, 429);
      assert.ok(retryAfter(res) >= 1 && retryAfter(res) <= 60, `Retry-After ${retryAfter(res)}`);
      const body = await res.json() as { detail: string; code: string };
      assert.equal(body.code, 'rate_limited');
      assert.match(body.detail, /too many failed login attempts/);
      assert.equal(checked(), 10, 'a throttled attempt checks no password');
    }));

  it('those failures do not lock the account: the right password from another address still signs in', () =>
    withApp({}, async (t) => {
      assert.deepEqual(await statuses(11, () => attempt(t, 'admin', 'wrong password!', '192.0.2.1')), [...Array(10).fill(400), 429]);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.2')).status, 200);
      assert.equal((await attempt(t, 'someone-else', 'wrong password!', '192.0.2.1')).status, 400, 'other usernames from that address go on');
    }));

  it('a success clears the pair\'s count (the user\'s own typos), so the pair gets maxFailures anew', () =>
    withApp({ auth: { loginThrottle: { maxFailures: 3 } } }, async (t) => {
      assert.deepEqual(await statuses(2, () => attempt(t, 'admin', 'wrong password!', '192.0.2.7')), [400, 400]);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.7')).status, 200);
      assert.deepEqual(await statuses(4, () => attempt(t, 'admin', 'wrong password!', '192.0.2.7')), [400, 400, 400, 429]);
    }));

  it('lets the pair in again once the window has passed', () =>
    withApp({ auth: { loginThrottle: { maxFailures: 2, windowSeconds: 30 } } }, async (t) => {
      mockClock();
      await statuses(2, () => attempt(t, 'admin', 'wrong password!', '192.0.2.20'));
      const blocked = await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.20');
      assert.equal(blocked.status, 429);
      assert.equal(retryAfter(blocked), 30);
      mock.timers.tick(29_000);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.20')).status, 429);
      mock.timers.tick(1_000);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '192.0.2.20')).status, 200);
    }));
});

describe('throttling: per username over all addresses', () => {
  it('guesses over 100 addresses are throttled per username: with the defaults, 50 are checked, then 429 for an hour', () =>
    withApp({}, async (t) => {
      const guesses = await statuses(100, (i) => attempt(t, 'admin', `guess ${i}`, `198.51.${Math.floor(i / 50)}.${i % 50}`));
      assert.deepEqual(guesses, [...Array(50).fill(400), ...Array(50).fill(429)]);
      assert.equal(checked(), 50);
      const res = await attempt(t, 'admin', ADMIN_PASSWORD, '198.51.100.200');
      assert.equal(res.status, 429, 'an address the user never signed in from is blocked, the right password too');
      assert.ok(retryAfter(res) > 3000 && retryAfter(res) <= 3600, `Retry-After ${retryAfter(res)}`);
      assert.equal((await attempt(t, 'someone-else', 'wrong password!', '198.51.100.200')).status, 400, 'other usernames go on');
    }));

  it('the same for a username that does not exist (no telling them apart)', () =>
    withApp({ auth: { loginThrottle: { perUsername: { maxFailures: 5 } } } }, async (t) => {
      for (const username of ['admin', 'nobody']) {
        const list = await statuses(7, (i) => attempt(t, username, `guess ${i}`, `198.51.100.${i}`));
        assert.deepEqual(list, [400, 400, 400, 400, 400, 429, 429], username);
      }
    }));

  it('a stranger\'s wrong passwords do not lock out a user\'s known address', () =>
    withApp({}, async (t) => {
      const home = '203.0.113.10';
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, home)).status, 200);
      // From one address (its pair limit), then from 100 (the username's limit).
      assert.deepEqual(await statuses(11, () => attempt(t, 'admin', 'wrong password!', '192.0.2.66')), [...Array(10).fill(400), 429]);
      const spread = await statuses(100, (i) => attempt(t, 'admin', `guess ${i}`, `198.51.${Math.floor(i / 50)}.${i % 50}`));
      assert.deepEqual(tally(spread), { 400: 40, 429: 60 });
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '198.51.100.201')).status, 429, 'a new address is blocked');
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, home)).status, 200, 'the known address is not');
      assert.equal((await attempt(t, 'admin', 'typo!', home)).status, 400, 'a typo there is checked, not refused');
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, home)).status, 200);
    }));

  it('a sign-in from the known address gives the attack no new budget', () =>
    withApp({ auth: { loginThrottle: { perUsername: { maxFailures: 5 } } } }, async (t) => {
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.10')).status, 200);
      assert.deepEqual(tally(await statuses(6, (i) => attempt(t, 'admin', `guess ${i}`, `198.51.100.${i}`))), { 400: 5, 429: 1 });
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.10')).status, 200);
      assert.equal((await attempt(t, 'admin', 'guess 7', '198.51.100.7')).status, 429);
    }));

  it('an address stays known for knownAddressDays after its last sign-in', () =>
    withApp({ auth: { loginThrottle: { knownAddressDays: 2, perUsername: { maxFailures: 3, windowSeconds: 86_400 } } } }, async (t) => {
      mockClock();
      const home = '203.0.113.10';
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, home)).status, 200);
      mock.timers.tick(DAY);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, home)).status, 200, 'signing in again: known until day 3');
      mock.timers.tick(DAY + 10_000); // day 2 and 10 s: the username's window runs to day 3 and 10 s
      assert.deepEqual(await statuses(4, (i) => attempt(t, 'admin', `guess ${i}`, `198.51.100.${i}`)), [400, 400, 400, 429]);
      assert.equal((await attempt(t, 'admin', 'typo!', home)).status, 400, 'still known (a failure does not renew it)');
      mock.timers.tick(DAY - 5_000);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, home)).status, 429, 'known no more: blocked like a stranger');
    }));

  it('a known address that uses up its own pair limit is forgotten: a stranger behind it gets maxFailures guesses, no more', () =>
    withApp({ auth: { loginThrottle: { maxFailures: 3, perUsername: { maxFailures: 3 } } } }, async (t) => {
      mockClock();
      const shared = '203.0.113.10';
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, shared)).status, 200);
      await statuses(4, (i) => attempt(t, 'admin', `guess ${i}`, `198.51.100.${i}`)); // the username's limit is used up
      assert.deepEqual(await statuses(4, (i) => attempt(t, 'admin', `guess ${i}`, shared)), [400, 400, 400, 429]);
      mock.timers.tick(60_000); // the pair's window has passed, the username's has not
      const res = await attempt(t, 'admin', ADMIN_PASSWORD, shared);
      assert.equal(res.status, 429);
      assert.ok(retryAfter(res) > 3000, `blocked by the username's limit: Retry-After ${retryAfter(res)}`);
    }));

  it('guesses sent all at once: only perUsername.maxFailures are checked, the rest (the right password too) are 429', () =>
    withApp({ auth: { loginThrottle: { perUsername: { maxFailures: 3 } } } }, async (t) => {
      const guesses = Array.from({ length: 20 }, (_, i) => (i === 19 ? ADMIN_PASSWORD : `wrong password ${i}`));
      const list = (await Promise.all(guesses.map((p, i) => attempt(t, 'admin', p, `198.51.100.${i + 1}`)))).map((r) => r.status);
      const count = (status: number) => list.filter((s) => s === status).length;
      assert.deepEqual([count(400) + count(200), count(429)], [3, 17], list.join(' '));
      assert.equal(checked(), 3);
    }));
});

describe('throttling: per client address over usernames', () => {
  const small = { auth: { loginThrottle: { perAddress: { maxFailures: 3 } } } };

  it('with the defaults, the 31st failure from one address (any usernames) within 10 minutes is 429', () =>
    withApp({}, async (t) => {
      assert.deepEqual(await statuses(30, (i) => attempt(t, `guess${i}`, 'wrong password!', '203.0.113.5')), Array(30).fill(400));
      const res = await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.5');
      assert.equal(res.status, 429);
      assert.ok(retryAfter(res) > 540 && retryAfter(res) <= 600, `Retry-After ${retryAfter(res)}`);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.6')).status, 200);
    }));

  it('does not block a username that signed in from that address before', () =>
    withApp(small, async (t) => {
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.5')).status, 200);
      assert.deepEqual(await statuses(4, (i) => attempt(t, `guess${i}`, 'wrong password!', '203.0.113.5')), [400, 400, 400, 429]);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.5')).status, 200);
    }));

  it('a success gives back only its own count; earlier failures there stand', () =>
    withApp(small, async (t) => {
      assert.deepEqual(await statuses(2, (i) => attempt(t, `guess${i}`, 'wrong password!', '203.0.113.9')), [400, 400]);
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.9')).status, 200);
      assert.equal((await attempt(t, 'guess9', 'wrong password!', '203.0.113.9')).status, 400);
      assert.equal((await attempt(t, 'guess10', 'wrong password!', '203.0.113.9')).status, 429);
    }));

  it('ignores X-Forwarded-For unless server.trustProxy is set', () =>
    withApp(small, async (t) => {
      await statuses(3, (i) => attempt(t, `guess${i}`, 'wrong password!', '203.0.113.5', { 'X-Forwarded-For': `10.0.0.${i}` }));
      const res = await attempt(t, 'admin', ADMIN_PASSWORD, '203.0.113.5', { 'X-Forwarded-For': '10.0.0.200' });
      assert.equal(res.status, 429);
    }));

  it('with server.trustProxy, the proxy-appended (right-most) X-Forwarded-For entry is the client', () =>
    withApp({ ...small, server: { trustProxy: true } }, async (t) => {
      const proxy = '10.9.9.9';
      await statuses(3, (i) => attempt(t, `guess${i}`, 'wrong password!', proxy, { 'X-Forwarded-For': `1.2.3.4, 203.0.113.${i}` }));
      // Distinct clients behind the proxy: none is blocked ...
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, proxy, { 'X-Forwarded-For': '203.0.113.50' })).status, 200);
      // ... and a client cannot escape its count by prepending a forged entry.
      await statuses(3, (i) => attempt(t, `other${i}`, 'wrong password!', proxy, { 'X-Forwarded-For': `9.9.9.${i}, 203.0.113.77` }));
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, proxy, { 'X-Forwarded-For': '8.8.8.8, 203.0.113.77' })).status, 429);
    }));
});

describe('throttling: the counts of attempts in flight', () => {
  // Deterministic orderings of begin and end, which concurrent requests give only by chance.
  const begins = (throttle: LoginThrottle, address: string, username = 'admin'): LoginAttempt | undefined => {
    try {
      return throttle.begin(username, address);
    } catch (e) {
      assert.equal((e as { code: string }).code, 'rate_limited');
      return undefined;
    }
  };

  it('a success keeps the pair\'s guesses still in flight counted: the success beside them does not give them back', () => {
    const throttle = new LoginThrottle({ maxFailures: 3, windowSeconds: 60 });
    const [guess1, guess2, right] = [0, 1, 2].map(() => begins(throttle, '192.0.2.1')!);
    right.end(true); // the right password ends first
    const third = begins(throttle, '192.0.2.1');
    assert.ok(third, 'the two guesses in flight and this one: 3');
    assert.equal(begins(throttle, '192.0.2.1'), undefined, 'a fourth is over the limit');
    guess1.end(false);
    guess2.end(false);
    third.end(false);
    assert.equal(begins(throttle, '192.0.2.1'), undefined, 'the guesses that failed stay counted');
  });

  it('clears the pair once nothing else is in flight', () => {
    const throttle = new LoginThrottle({ maxFailures: 2, windowSeconds: 60 });
    begins(throttle, '192.0.2.1')!.end(false);
    begins(throttle, '192.0.2.1')!.end(true);
    for (let i = 0; i < 2; i++) assert.ok(begins(throttle, '192.0.2.1'));
    assert.equal(begins(throttle, '192.0.2.1'), undefined);
  });

  it('an attempt in flight counts against the username from the start; known marks only after a success', () => {
    const throttle = new LoginThrottle({ maxFailures: 10, windowSeconds: 60, perUsername: { maxFailures: 2 } });
    const a = begins(throttle, '192.0.2.1')!;
    const b = begins(throttle, '192.0.2.2')!;
    assert.equal(begins(throttle, '192.0.2.3'), undefined, 'two in flight use up the username');
    assert.equal(a.known, false);
    a.end(true);
    assert.equal(throttle.known.count('admin'), 1);
    assert.equal(begins(throttle, '192.0.2.1')?.known, true, 'the address just signed in from is let through');
    assert.equal(begins(throttle, '192.0.2.4'), undefined, 'the other guess is still counted');
    b.end(false);
  });

  it('remembers at most KNOWN_PER_USER addresses a username, the least recent dropped first', () => {
    const throttle = new LoginThrottle({ maxFailures: 10, windowSeconds: 60 });
    for (let i = 0; i <= KNOWN_PER_USER; i++) throttle.begin('admin', `10.0.0.${i}`).end(true);
    assert.equal(throttle.known.count('admin'), KNOWN_PER_USER);
    assert.equal(throttle.begin('admin', '10.0.0.0').known, false, 'the first was dropped');
    assert.equal(throttle.begin('admin', '10.0.0.1').known, true);
  });
});

describe('throttling: settings', () => {
  it('fills the defaults', () => {
    const s = parseSettings({}, {}, '/srv').auth.loginThrottle;
    assert.deepEqual(s, {
      maxFailures: 10, windowSeconds: 60,
      perUsername: { maxFailures: 50, windowSeconds: 3600 },
      perAddress: { maxFailures: 30, windowSeconds: 600 },
      knownAddressDays: 30, maxConcurrentChecks: 2, maxQueuedChecks: 8,
    });
  });

  for (const [bad, key, message] of [
    [{ maxConcurrentChecks: 1 }, 'auth.loginThrottle.maxConcurrentChecks', /at least 2/],
    [{ maxQueuedChecks: -1 }, 'auth.loginThrottle.maxQueuedChecks', /0 or more/],
    [{ perUsername: { windowSeconds: 0 } }, 'auth.loginThrottle.perUsername.windowSeconds', /positive integer/],
    [{ perAddress: { maxFailures: 2.5 } }, 'auth.loginThrottle.perAddress.maxFailures', /integer/],
    [{ knownAddressDays: 400 }, 'auth.loginThrottle.knownAddressDays', /at most 365/],
    [{ perUsername: { maxFailure: 3 } }, 'auth.loginThrottle.perUsername.maxFailure', /not a known setting/],
  ] as const) {
    it(`refuses ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseSettings({ auth: { loginThrottle: bad as never } }, {}, '/srv'),
        (e: Error) => e.message.includes(key) && message.test(e.message));
    });
  }
});
