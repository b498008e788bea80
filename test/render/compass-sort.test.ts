// render/compass-sort.ts gives the order one sort by coordinate, position
// and index gives, with each node's rank among distinct coordinates, and
// notices when the coordinates it kept an order for have changed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compassSorted } from '../../render/compass-sort.ts';
import type { Pt } from '../../render/paths.ts';

const keyOf = (geo: Pt[], axis: 0 | 1, i: number) => (axis === 0 ? geo[i][1] : -geo[i][0]);
function sortedOnce(geo: Pt[], at: Pt[], axis: 0 | 1) {
  const order = at.map((_, i) => i).sort((a, b) => keyOf(geo, axis, a) - keyOf(geo, axis, b) || at[a][axis] - at[b][axis] || a - b);
  const rank: number[] = [];
  order.forEach((i, k) => { rank[i] = k === 0 ? 0 : rank[order[k - 1]] + (keyOf(geo, axis, i) > keyOf(geo, axis, order[k - 1]) ? 1 : 0); });
  return { order, rank };
}

describe('compassSorted', () => {
  let s = 5;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  // Sites of several routers share a coordinate; positions change between questions, as they do between rounds.
  const geo = Array.from({ length: 40 }, (): Pt => [Math.round(rnd() * 6), Math.round(rnd() * 6)]);
  for (const axis of [0, 1] as const) {
    it(`matches one sort along axis ${axis}, round after round`, () => {
      for (let round = 0; round < 5; round++) {
        const at = geo.map((): Pt => [rnd() * 100, rnd() * 100]);
        const got = compassSorted(geo, axis, (i) => at[i][axis]);
        const want = sortedOnce(geo, at, axis);
        assert.deepEqual(got.order, want.order);
        assert.deepEqual([...got.rank], want.rank);
      }
    });
  }

  it('sorts anew when the coordinates it kept an order for change', () => {
    const mine = geo.map((g): Pt => [g[0], g[1]]);
    const at = mine.map((): Pt => [rnd() * 100, rnd() * 100]);
    assert.deepEqual(compassSorted(mine, 0, (i) => at[i][0]).order, sortedOnce(mine, at, 0).order);
    mine[3] = [mine[3][0], 99];
    assert.deepEqual(compassSorted(mine, 0, (i) => at[i][0]).order, sortedOnce(mine, at, 0).order);
  });
});
