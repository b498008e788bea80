// pool/memory.ts: the full collection V8 keeps for --expose-gc is had without
// the flag and without a global `gc`, and collects what nothing reaches; the
// collection after a load runs once, when releases have stopped for
// QUIET_MS, never while they go on.
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { collectWhenQuiet, fullCollection, QUIET_MS } from '../../pool/memory.ts';

describe('fullCollection', () => {
  it('collects an object nothing reaches, and leaves no global gc behind', async () => {
    const hadGlobal = 'gc' in globalThis;
    const collect = fullCollection();
    let ref: WeakRef<object> | undefined;
    (() => { ref = new WeakRef({ payload: new Array(10_000).fill(1) }); })();
    await turn(); // a WeakRef's target is kept until the job that made it ends
    collect();
    assert.equal(ref?.deref(), undefined);
    assert.equal('gc' in globalThis, hadGlobal);
  });
});

describe('collectWhenQuiet', () => {
  const cases: { name: string; releasesAt: number[]; collectedAt: number[] }[] = [
    { name: 'one release: one collection QUIET_MS later', releasesAt: [0], collectedAt: [QUIET_MS] },
    { name: 'releases closer than QUIET_MS: one collection, QUIET_MS after the last',
      releasesAt: [0, QUIET_MS - 1, 2 * QUIET_MS - 2], collectedAt: [3 * QUIET_MS - 2] },
    { name: 'two bursts apart: one collection after each', releasesAt: [0, 1, 3 * QUIET_MS], collectedAt: [QUIET_MS + 1, 4 * QUIET_MS] },
  ];
  for (const { name, releasesAt, collectedAt } of cases) {
    it(name, (t) => {
      t.mock.timers.enable({ apis: ['setTimeout'] });
      const collected: number[] = [];
      let now = 0;
      const { released } = collectWhenQuiet(() => collected.push(now + 1)); // during the tick from now to now + 1
      const end = Math.max(...releasesAt) + 2 * QUIET_MS;
      for (; now <= end; now++) {
        if (releasesAt.includes(now)) released();
        t.mock.timers.tick(1);
      }
      assert.deepEqual(collected, collectedAt);
    });
  }
});
