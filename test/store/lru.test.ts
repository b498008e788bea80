// store/lru.ts: least recently used out by weight, no entry over a quarter
// of the budget, JSON null kept like any value, a budget of 0 keeps nothing;
// with idleMs, an entry nobody read for that long is dropped unasked, and
// onIdleDrop is told of those drops only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Lru } from '../../store/lru.ts';

describe('Lru', () => {
  it('drops the least recently used entries once the weights pass the budget', () => {
    const lru = new Lru<string>(100);
    lru.set('a', 'A', 25);
    lru.set('b', 'B', 25);
    lru.set('c', 'C', 25);
    assert.equal(lru.get('a'), 'A'); // a is now the most recent
    lru.set('d', 'D', 25);
    lru.set('e', 'E', 25);
    assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map((k) => lru.get(k)), ['A', undefined, 'C', 'D', 'E']);
  });

  it('keeps no entry heavier than a quarter of the budget, and forgets what the key held', () => {
    const lru = new Lru<string>(100);
    lru.set('k', 'small', 10);
    lru.set('k', 'huge', 26);
    assert.equal(lru.get('k'), undefined);
  });

  it('keeps() says beforehand whether a value of a weight would be kept', () => {
    const lru = new Lru<string>(100);
    assert.deepEqual([0, 25, 26, 1000].map((w) => lru.keeps(w)), [true, true, false, false]);
    assert.equal(new Lru<string>(0).keeps(0), false);
  });

  it('keeps null, and keeps nothing with a budget of 0', () => {
    const lru = new Lru<null>(100);
    lru.set('n', null, 0);
    assert.equal(lru.get('n'), null);
    const none = new Lru<string>(0);
    none.set('a', 'A', 0);
    assert.equal(none.get('a'), undefined);
  });

  it('with idleMs, drops an entry nobody read for that long without being asked, and keeps one read meanwhile', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }); // lru-cache reads a time of 0 as no time at all
    const lru = new Lru<string>(100, { idleMs: 1000, clock: { now: () => Date.now() } });
    lru.set('read', 'R', 10);
    lru.set('left', 'L', 10);
    t.mock.timers.tick(600);
    assert.equal(lru.get('read'), 'R');
    t.mock.timers.tick(600);
    assert.equal(lru.size, 1, 'left is gone, nobody having asked for it');
    assert.equal(lru.get('read'), 'R');
    t.mock.timers.tick(1001);
    assert.equal(lru.size, 0);
  });

  it('tells onIdleDrop of each entry dropped for being idle, not of one deleted, replaced or pushed out', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    let drops = 0;
    const lru = new Lru<string>(100, { idleMs: 1000, clock: { now: () => Date.now() }, onIdleDrop: () => drops++ });
    lru.set('deleted', 'D', 10);
    lru.delete('deleted');
    lru.set('replaced', 'R', 10);
    lru.set('replaced', 'R2', 10);
    for (const k of ['a', 'b', 'c', 'd', 'e']) lru.set(k, k, 20); // 'replaced' pushed out by the fifth
    assert.equal(lru.get('replaced'), undefined);
    assert.equal(drops, 0);
    t.mock.timers.tick(1001);
    assert.equal(lru.size, 0);
    assert.equal(drops, 5, 'the five left idle');
  });
});
