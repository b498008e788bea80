// Crossings undone within a length budget (render/untangle-within.ts): on
// the stress drawing of the dual-homed hierarchy it removes crossings while
// the circuits stay within the budget and the boxes of the nodes it moves
// clear of the others; a drawing whose only uncrossing would make its circuits uneven is
// left as it was.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { segmentsCross } from '../../render/drawing-geometry.ts';
import type { Pt } from '../../render/paths.ts';
import { stressLayout } from '../../render/stress-layout.ts';
import { untangleWithin } from '../../render/untangle-within.ts';

type Ends = [number, number][];
const box = { w: 45, h: 18 };

const crossingCount = (at: Pt[], ends: Ends) => {
  let c = 0;
  for (let k = 0; k < ends.length; k++) {
    const [a, b] = ends[k];
    for (const [x, y] of ends.slice(k + 1)) {
      if (x !== a && x !== b && y !== a && y !== b && segmentsCross(at[a], at[b], at[x], at[y])) c++;
    }
  }
  return c;
};
const lengths = (at: Pt[], ends: Ends) => ends.map(([a, b]) => Math.hypot(at[a][0] - at[b][0], at[a][1] - at[b][1]));
const total = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
const cv = (xs: number[]) => { const m = total(xs) / xs.length; return Math.sqrt(total(xs.map((x) => (x - m) ** 2)) / xs.length) / m; };

/** Two cores, four aggregation routers on both, eight access routers on a pair of them (test/helpers/layout-corpus.ts dualHomed). */
function dualHomed(): Ends {
  const ends: Ends = [[0, 1]];
  for (let a = 2; a < 6; a++) ends.push([0, a], [1, a]);
  for (let x = 0; x < 8; x++) { const pair = 2 + Math.floor(x / 4) * 2; ends.push([pair, 6 + x], [pair + 1, 6 + x]); }
  return ends;
}

describe('untangleWithin', () => {
  it('removes crossings of the dual-homed stress drawing, circuits within budget, moved boxes clear', () => {
    const ends = dualHomed();
    const at = stressLayout(14, ends, 70, { start: 'circle' });
    const was = at.map((p) => [...p]);
    const before = { crossings: crossingCount(at, ends), lengths: lengths(at, ends) };
    const left = untangleWithin(at, ends, at.map(() => box));
    const after = lengths(at, ends);
    assert.equal(left, crossingCount(at, ends), 'the crossings it reports are the drawing\'s');
    assert.ok(left < before.crossings, `${before.crossings} crossings before, ${left} after`);
    assert.ok(total(after) <= 1.1 * total(before.lengths) + 1e-6, `total length ${total(after)} against ${total(before.lengths)}`);
    assert.ok(cv(after) <= 1.3 * cv(before.lengths) + 1e-9, `spread ${cv(after)} against ${cv(before.lengths)}`);
    const moved = at.flatMap((p, i) => (p[0] === was[i][0] && p[1] === was[i][1] ? [] : [i]));
    assert.ok(moved.length > 0);
    // A node moves only to where its box clears every other box.
    for (const i of moved) {
      for (let j = 0; j < at.length; j++) {
        if (j !== i) assert.ok(Math.abs(at[i][0] - at[j][0]) >= box.w || Math.abs(at[i][1] - at[j][1]) >= box.h, `moved box ${i} overlaps box ${j}`);
      }
    }
  });

  for (const [name, at, ends] of [
    ['a square with both diagonals (uncrossing it puts a node inside a triangle: uneven circuits)', [[0, 0], [100, 0], [100, 100], [0, 100]], [[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [1, 3]]],
    ['a ring without a crossing', [[0, 0], [100, 0], [150, 80], [100, 160], [0, 160], [-50, 80]], [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0]]],
  ] as [string, Pt[], Ends][]) {
    it(`leaves ${name} as it was`, () => {
      const moved = at.map((p): Pt => [p[0], p[1]]);
      const left = untangleWithin(moved, ends, at.map(() => ({ w: 20, h: 10 })));
      assert.equal(left, crossingCount(at, ends));
      assert.deepEqual(moved, at);
    });
  }
});
