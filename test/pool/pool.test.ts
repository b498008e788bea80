// The render pool (pool/pool.ts) with a thread of the test's own that
// misbehaves on purpose: a job over the time budget or the heap limit is 422
// naming its setting and the thread is replaced; a job its thread got no CPU
// for is 503 after three budgets, not 422, and a job queued behind it waits
// meanwhile; a renderer failure is 422
// with the renderer's message; the queue is bounded per caller and in all (503
// with Retry-After at once, and `admit` says so before any job is made); and
// the fair queue serves callers in turn, signed-in and anonymous alternately;
// a thread idle for IDLE_MS ends, and the pool says so (its memory is let go).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { FairQueue } from '../../pool/fair-queue.ts';
import { IDLE_MS, RenderPool } from '../../pool/pool.ts';
import { isServiceError } from '../../errors.ts';

const SCRIPT = new URL('./fixtures/thread.mjs', import.meta.url);
const anon = (n: number) => ({ key: `address:10.0.0.${n}`, signedIn: false });
const user = (name: string) => ({ key: `user:${name}`, signedIn: true });
const png = (svg: string) => ({ kind: 'png' as const, svg });

async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (isServiceError(e)) return e;
    throw e;
  }
  assert.fail('expected a refusal');
}

describe('RenderPool: budgets', () => {
  const pool = new RenderPool({ threads: 2, timeoutSeconds: 1, memoryMb: 64, maxQueued: 4, script: SCRIPT });
  after(() => pool.close());

  it('a job over the time budget is 422 naming the setting, and the next job is done on a new thread', async () => {
    const e = await refusal(pool.run(png('spin'), user('a')));
    assert.equal(e.status, 422);
    assert.match(e.message, /output\.renderTimeoutSeconds/);
    assert.equal(await pool.run(png('ok'), user('a')), 'ok');
  });

  it('a job over the heap limit is 422 naming the setting', async () => {
    const e = await refusal(pool.run(png('grow'), user('a')));
    assert.equal(e.status, 422);
    assert.match(e.message, /output\.renderMemoryMB/);
    assert.equal(await pool.run(png('ok'), user('a')), 'ok');
  });

  it('a job the OS did not run (no CPU in its budget) is given three budgets, then 503 with Retry-After, not 422',
    { skip: process.platform !== 'linux' && 'CPU time per thread is read from Linux /proc' }, async () => {
      const overTime = pool.counts.overTime;
      const starved = refusal(pool.run(png('idle'), user('a')));
      // Queued behind it (a user runs one of two threads): waits while it is starved, then starts.
      const next = pool.run(png('next'), user('a'));
      const e = await starved;
      assert.equal(e.status, 503);
      assert.match(e.message, /too busy .*output\.renderTimeoutSeconds/);
      assert.match(e.headers?.['Retry-After'] ?? '', /^[1-9][0-9]*$/);
      assert.equal(pool.counts.overTime, overTime, 'not counted as over its budget');
      assert.equal(await next, 'next', 'the job queued behind it waited and was drawn on a new thread');
    });

  it("a renderer's failure is 422 with its message, never a 500", async () => {
    const e = await refusal(pool.run(png('fail'), user('a')));
    assert.equal(e.status, 422);
    assert.match(e.message, /nodes limit reached/);
  });
});

describe('RenderPool: idle threads', () => {
  it('a thread idle for IDLE_MS ends and onThreadEnd is told once it has; the next job starts a new one', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let ended = 0;
    let onEnd: () => void = () => undefined;
    const pool = new RenderPool({ threads: 2, timeoutSeconds: 5, memoryMb: 64, maxQueued: 4, script: SCRIPT,
      onThreadEnd: () => { ended++; onEnd(); } });
    try {
      assert.equal(await pool.run(png('echo'), user('a')), 'echo');
      t.mock.timers.tick(IDLE_MS - 1);
      await new Promise((r) => setImmediate(r));
      assert.equal(ended, 0, 'kept while idle less than IDLE_MS');
      const end = new Promise<void>((resolve) => { onEnd = resolve; });
      t.mock.timers.tick(1);
      await end;
      assert.equal(ended, 1);
      assert.equal(await pool.run(png('again'), user('a')), 'again');
    } finally {
      await pool.close();
    }
  });
});

describe('RenderPool: shares', () => {
  const pool = new RenderPool({ threads: 2, timeoutSeconds: 2, memoryMb: 64, maxQueued: 4, script: SCRIPT });
  after(() => pool.close());

  it('one anonymous address runs one of two threads and queues two; beyond, 503 with Retry-After at once, while a user is served', async () => {
    assert.doesNotThrow(() => pool.admit(anon(1)));
    const spinning = [1, 2, 3].map(() => refusal(pool.run(png('spin'), anon(1))));
    // Refused before its job is made (a route reads nothing for it), as run would refuse it.
    assert.throws(() => pool.admit(anon(1)), (e) => isServiceError(e) && e.status === 503 && /^[1-9][0-9]*$/.test(e.headers?.['Retry-After'] ?? ''));
    assert.doesNotThrow(() => pool.admit(anon(2)), 'another address may still queue');
    assert.doesNotThrow(() => pool.admit(user('b')), 'a user may still start');
    const e = await refusal(pool.run(png('spin'), anon(1)));
    assert.equal(e.status, 503);
    assert.match(e.headers?.['Retry-After'] ?? '', /^[1-9][0-9]*$/);
    // The other thread is the user's while the address spins.
    assert.equal(await pool.run(png('mine'), user('b')), 'mine');
    for (const e of await Promise.all(spinning)) assert.ok([422, 503].includes(e.status));
  });
});

describe('FairQueue', () => {
  it('takes callers in turn, signed-in and anonymous alternately, each within its share', () => {
    const q = new FairQueue<string>({ total: 10, perCaller: 3 });
    for (const i of ['a1', 'a2', 'a3']) assert.ok(q.push(anon(1), i));
    assert.equal(q.hasRoom(anon(1)), false);
    assert.equal(q.push(anon(1), 'a4'), false, "the caller's share is full");
    assert.equal(q.hasRoom(anon(2)), true);
    assert.ok(q.push(anon(2), 'b1'));
    assert.ok(q.push(user('u'), 'u1'));
    assert.ok(q.push(user('u'), 'u2'));
    const order: string[] = [];
    for (let w = q.take(() => true); w; w = q.take(() => true)) order.push(w.item);
    assert.deepEqual(order, ['u1', 'a1', 'u2', 'b1', 'a2', 'a3']);
  });
  it('skips callers that may not start now and refuses beyond the total', () => {
    const q = new FairQueue<string>({ total: 2, perCaller: 2 });
    assert.ok(q.push(anon(1), 'a1'));
    assert.ok(q.push(anon(2), 'b1'));
    assert.equal(q.push(user('u'), 'u1'), false);
    assert.equal(q.take((c) => c.key !== anon(1).key)?.item, 'b1');
    assert.ok(q.remove(anon(1), 'a1'));
    assert.equal(q.size, 0);
  });
});
