// The cap on password checks at once (auth/throttle.ts): during an attack a
// known user's login is not queued behind the attack's checks, strangers get
// 429 at once beyond a short queue, and a refused attempt counts nowhere.
// Proved structurally: the password check is replaced by one the test holds
// and releases (passwordChecks.verify), so what runs, waits and answers is
// seen at each step, whatever the machine's speed. One test with the real
// scrypt adds ordering checks (which checks began and ended before the known
// login's), with no bound on wall-clock time.
import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { passwordChecks, verifyPassword } from '../../auth/passwords.ts';
import { LoginThrottle, THROTTLE_DEFAULTS } from '../../auth/throttle.ts';
import type { SettingsInput } from '../../config/settings.ts';
import { ADMIN_PASSWORD, makeTestApp, type TestApp } from '../helpers/app.ts';

const attempt = (t: TestApp, username: string, password: string, remoteAddress: string) =>
  t.request('/api/v1/auth/token', { method: 'POST', remoteAddress, json: { grant_type: 'password', username, password } });

async function withApp(settings: SettingsInput, fn: (t: TestApp) => Promise<void>) {
  const t = await makeTestApp({ settings, passwordCost: 15 }); // the service's own scrypt cost: one test times real checks
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

afterEach(() => mock.restoreAll());

/** Waits for a state the code reaches at once when right; the bound only turns a wrong state into a failure instead of a hang. */
async function until(cond: () => boolean, what: () => string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`never reached: ${what()}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface Held { password: string; release: (ok: boolean) => void }
/** Replaces the password check with one that waits for the test: `held` lists the checks begun, in order. */
function holdChecks() {
  const held: Held[] = [];
  mock.method(passwordChecks, 'verify', (password: string) =>
    new Promise<boolean>((resolve) => held.push({ password, release: resolve })));
  return held;
}

const flush = () => new Promise((r) => setImmediate(r));

describe('password checks at once: a real login during an attack', () => {
  it('is not queued behind the attack: its check starts and it answers while every attack check is still held', () =>
    withApp({}, async (t) => {
      const home = '203.0.113.10';
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, home)).status, 200); // the real check: home is now known
      const held = holdChecks();

      // 40 guesses at once from 40 addresses, for admin and for usernames that do not exist.
      const N = 40;
      const answers: { i: number; status: number; retryAfter: string | null; detail: string }[] = [];
      const attack = Array.from({ length: N }, (_, i) =>
        attempt(t, i % 2 ? 'admin' : `user${i}`, `guess ${i}`, `198.51.${Math.floor(i / 200)}.${i % 200}`).then(async (res) => {
          answers.push({ i, status: res.status, retryAfter: res.headers.get('retry-after'), detail: ((await res.json()) as { detail: string }).detail });
        }));
      const { maxConcurrentChecks, maxQueuedChecks } = THROTTLE_DEFAULTS;
      const strangerSlots = maxConcurrentChecks - 1;
      const refused = N - strangerSlots - maxQueuedChecks;
      await until(() => answers.length === refused && held.length === strangerSlots,
        () => `${refused} answered and ${strangerSlots} check running; got ${answers.length} answered, ${held.length} checks begun`);
      // The rest were answered at once, without waiting for any check.
      for (const a of answers) {
        assert.equal(a.status, 429);
        assert.equal(a.retryAfter, '1');
        assert.match(a.detail, /too many logins are being checked at once/);
      }

      // The user's login from home: its check begins now, not after the 8 queued ones ...
      let mine: Response | undefined;
      const login = attempt(t, 'admin', ADMIN_PASSWORD, home).then((r) => (mine = r));
      await until(() => held.length === strangerSlots + 1, () => `the known login's check to begin; ${held.length} checks begun`);
      assert.equal(held.at(-1)!.password, ADMIN_PASSWORD);
      // ... and it is answered after its own check alone, every attack check still held.
      held.at(-1)!.release(true);
      await login;
      assert.equal(mine!.status, 200);
      assert.equal(answers.length, refused, 'no attack attempt has finished');

      // The attack's queued checks run after it, one at a time, and fail.
      let released = 0;
      while (answers.length < N) {
        while (released < held.length) if (held[released++].password !== ADMIN_PASSWORD) held[released - 1].release(false);
        await flush();
      }
      await Promise.all(attack);
      assert.equal(held.length, strangerSlots + maxQueuedChecks + 1);
      assert.deepEqual(held.slice(strangerSlots + 1).map((h) => h.password === ADMIN_PASSWORD), Array(maxQueuedChecks).fill(false));
      assert.equal(answers.filter((a) => a.status === 400).length, strangerSlots + maxQueuedChecks);
    }));

  it('with the real scrypt: the known login overtakes the attack\'s queued checks and finishes before them', (ctx) =>
    withApp({}, async (t) => {
      const home = '203.0.113.10';
      assert.equal((await attempt(t, 'admin', ADMIN_PASSWORD, home)).status, 200);
      /** Passwords in the order their checks began, and ended. */
      const began: string[] = [];
      const ended: string[] = [];
      mock.method(passwordChecks, 'verify', async (password: string, hash: string) => {
        began.push(password);
        const ok = await verifyPassword(password, hash);
        ended.push(password);
        return ok;
      });
      const N = 100;
      const attack = Array.from({ length: N }, (_, i) => attempt(t, `user${i}`, `guess ${i}`, `198.51.100.${i}`));
      const start = performance.now();
      const mine = await attempt(t, 'admin', ADMIN_PASSWORD, home);
      const ms = performance.now() - start;
      const attackChecksBefore = ended.indexOf(ADMIN_PASSWORD);
      const attackChecksBegunBefore = began.indexOf(ADMIN_PASSWORD);
      const statuses = (await Promise.all(attack)).map((r) => r.status);
      ctx.diagnostic(`known login: ${Math.round(ms)} ms, begun after ${attackChecksBegunBefore} and ended after ${attackChecksBefore} attack checks; ` +
        `attack: ${statuses.filter((s) => s === 400).length} checked`);
      assert.equal(mine.status, 200);
      const { maxConcurrentChecks, maxQueuedChecks } = THROTTLE_DEFAULTS;
      const attackChecks = maxConcurrentChecks - 1 + maxQueuedChecks;
      assert.equal(statuses.filter((s) => s === 400).length, attackChecks, 'the rest were refused');
      // Queued behind the attack, its check would begin after every attack check had begun (the issue measured
      // 14.9 s of waiting), and end after all of them; it began while attack checks still waited, and ran beside them.
      // Counted, not timed: the wall-clock bound this replaced failed under load with nothing wrong.
      assert.ok(attackChecksBegunBefore < attackChecks, `${attackChecksBegunBefore} of ${attackChecks} attack checks began before it`);
      assert.ok(attackChecksBefore < attackChecks, `${attackChecksBefore} of ${attackChecks} attack checks ended before it`);
    }));
});

describe('password checks at once: the queue (LoginThrottle directly, deterministic order)', () => {
  /** Begins an attempt for admin from `address` whose check waits for `open(address)`; `order` lists the checks begun. */
  function harness(throttle: LoginThrottle) {
    const order: string[] = [];
    const gates = new Map<string, () => void>();
    const results = new Map<string, string>();
    const run = (address: string) => {
      const a = throttle.begin('admin', address);
      const p = a.check(() => {
        order.push(address);
        return new Promise<boolean>((r) => gates.set(address, () => r(false)));
      }).then(() => results.set(address, 'checked'), (e) => results.set(address, (e as { code: string }).code))
        .finally(() => a.end(false));
      return p;
    };
    const open = async (address: string) => {
      gates.get(address)!();
      await flush();
    };
    return { order, run, open, results };
  }

  it('strangers never take the last slot; known addresses are served before strangers waiting', async () => {
    const throttle = new LoginThrottle({ maxFailures: 10, windowSeconds: 60, maxConcurrentChecks: 2 });
    for (const home of ['home1', 'home2']) throttle.begin('admin', home).end(true);
    const { order, run, open } = harness(throttle);
    for (const address of ['s1', 's2', 's3', 'home1', 'home2']) void run(address);
    await flush();
    assert.deepEqual(order, ['s1', 'home1'], 'one stranger runs, the known address takes the kept slot');
    assert.deepEqual(throttle.checks, { running: 2, strangersRunning: 1, knownWaiting: 1, strangersWaiting: 2 });
    await open('s1');
    assert.deepEqual(order, ['s1', 'home1', 'home2'], 'the known address waiting goes first');
    await open('home1');
    assert.deepEqual(order, ['s1', 'home1', 'home2', 's2']);
    await open('home2');
    assert.deepEqual(order, ['s1', 'home1', 'home2', 's2'], 'a free slot, but the strangers\' one is taken');
    await open('s2');
    assert.deepEqual(order, ['s1', 'home1', 'home2', 's2', 's3']);
    await open('s3');
    assert.deepEqual(throttle.checks, { running: 0, strangersRunning: 0, knownWaiting: 0, strangersWaiting: 0 });
  });

  it('beyond maxQueuedChecks waiting, an attempt is refused at once and counts nowhere', async () => {
    const throttle = new LoginThrottle({ maxFailures: 1, windowSeconds: 60, perUsername: { maxFailures: 3 },
      perAddress: { maxFailures: 1 }, maxConcurrentChecks: 2, maxQueuedChecks: 1 });
    const { order, run, open, results } = harness(throttle);
    void run('a');
    void run('b');
    await run('c'); // refused without waiting for a or b
    assert.deepEqual(order, ['a']);
    assert.equal(results.get('c'), 'rate_limited');
    assert.deepEqual(throttle.checks, { running: 1, strangersRunning: 1, knownWaiting: 0, strangersWaiting: 1 });
    await open('a');
    await open('b');
    // a and b failed: 2 of the username's 3. c's refused attempt was given back everywhere (each limit would show it) ...
    const again = throttle.begin('admin', 'c');
    again.end(false);
    // ... and a failure that was checked counts: now the username's 3 are used up.
    assert.throws(() => throttle.begin('admin', 'd'), { code: 'rate_limited' });
  });

  it('known addresses have a queue of their own, bounded the same', async () => {
    const throttle = new LoginThrottle({ maxFailures: 10, windowSeconds: 60, maxConcurrentChecks: 2, maxQueuedChecks: 1 });
    for (const home of ['home1', 'home2', 'home3', 'home4']) throttle.begin('admin', home).end(true);
    const { order, run, results } = harness(throttle);
    for (const address of ['home1', 'home2', 'home3', 's1']) void run(address);
    await run('home4');
    assert.deepEqual(order, ['home1', 'home2'], 'known addresses may take every slot');
    assert.deepEqual([results.get('home4'), results.has('s1')], ['rate_limited', false], 'home3 and s1 wait, one in each queue');
  });
});
