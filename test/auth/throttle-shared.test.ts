// The login throttle over shared counters, as replicas over PostgreSQL share
// them (auth/throttle.ts, throttle-counters.ts): a login is answered only once
// the store holds what it counted (a failure's three counts, a sign-in's known
// pair), and a failure the store could not take is added with the next one.
// The counters here are in memory, and a test holds their writes to see the
// answer wait for them: no sleeps, the order of events says it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SharedCount, SharedCounters } from '../../store/types.ts';
import { ADMIN_PASSWORD, makeTestApp, type TestApp } from '../helpers/app.ts';

/** Shared counters in memory whose writes can be held (and counted while held) or made to fail. */
class HeldCounters implements SharedCounters {
  rows = new Map<string, SharedCount>();
  private held: (() => void)[] = [];
  private holding = false;
  private onHeld?: () => void;
  /** Writes to fail next, as with the database out of reach. */
  failing = 0;

  hold() {
    this.holding = true;
  }

  /** Resolves once `n` writes wait. */
  waiting(n: number): Promise<void> {
    if (this.held.length >= n) return Promise.resolve();
    return new Promise((resolve) => { this.onHeld = () => { if (this.held.length >= n) resolve(); }; });
  }

  release() {
    this.holding = false;
    for (const go of this.held.splice(0)) go();
  }

  private async write() {
    if (this.holding) {
      await new Promise<void>((resolve) => { this.held.push(resolve); this.onHeld?.(); });
    }
    if (this.failing > 0) {
      this.failing--;
      throw new Error('connect ECONNREFUSED');
    }
  }

  async add(key: string, delta: number, windowMs: number) {
    await this.write();
    const now = Date.now();
    const row = this.rows.get(key);
    const c = row && row.resetAt > now ? { ...row, count: row.count + delta } : { count: delta, resetAt: now + windowMs };
    this.rows.set(key, c);
    return c;
  }

  async get(keys: readonly string[]) {
    return new Map(keys.flatMap((k) => (this.rows.has(k) ? [[k, this.rows.get(k)!] as const] : [])));
  }

  async clear(key: string) {
    await this.write();
    this.rows.delete(key);
  }

  /** The counts of `address` (its pair with admin, the address, its known mark) and of the username admin, by kind of key. */
  counts(address: string) {
    const out: Record<string, number> = {};
    for (const [key, c] of this.rows) {
      const [kind, name] = [key.slice(0, key.indexOf(':')), decodeURIComponent(key.slice(key.indexOf(':') + 1))];
      if (name.endsWith(address) || name === 'admin') out[kind] = c.count;
    }
    return out;
  }
}

/** Whether `p` has settled by the time everything already queued has run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

let t: TestApp;
let counters: HeldCounters;
before(async () => {
  counters = new HeldCounters();
  t = await makeTestApp({ counters });
});
after(() => t?.close());

const login = (password: string, remoteAddress: string) => t.request('/api/v1/auth/token', {
  method: 'POST', remoteAddress, json: { grant_type: 'password', username: 'admin', password },
});

describe('shared counters: a login is answered after its counts are stored', () => {
  it('answers a wrong password only once the pair, username and address counts are in the store', async () => {
    counters.hold();
    const answer = login('wrong password!', '192.0.2.10');
    await counters.waiting(3);
    assert.equal(await settled(answer), false, 'answered while its counts were not stored');
    assert.deepEqual(counters.counts('192.0.2.10'), {});
    counters.release();
    assert.equal((await answer).status, 400);
    assert.deepEqual(counters.counts('192.0.2.10'), { pair: 1, user: 1, address: 1 });
  });

  it('answers a sign-in only once its pair is marked known in the store', async () => {
    counters.hold();
    const answer = login(ADMIN_PASSWORD, '192.0.2.20');
    await counters.waiting(2); // the pair's count cleared, the known mark renewed
    assert.equal(await settled(answer), false, 'answered while the known mark was not stored');
    counters.release();
    assert.equal((await answer).status, 200);
    assert.equal(counters.counts('192.0.2.20').known, 1);
  });
});

describe('shared counters: a failure the store could not take', () => {
  it('is added with the next failure of the same keys', async () => {
    counters.failing = 3;
    assert.equal((await login('wrong password!', '192.0.2.30')).status, 400);
    assert.deepEqual(counters.counts('192.0.2.30'), { user: 1 }, 'the store took none of the three (user: the first test\'s failure)');
    assert.equal((await login('wrong password!', '192.0.2.30')).status, 400);
    assert.deepEqual(counters.counts('192.0.2.30'), { pair: 2, user: 3, address: 2 });
  });
});
