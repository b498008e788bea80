// Crossing reduction after the stress layout (render/untangle.ts): a node on
// the wrong side of a circuit is moved across it; the work is bounded by a
// count of circuit pairs looked at, not by the clock, so a large tangle
// stops at the same drawing every time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { segmentsCross } from '../../render/drawing-geometry.ts';
import type { Pt } from '../../render/paths.ts';
import { untangle } from '../../render/untangle.ts';

type Ends = [number, number][];

const crossingCount = (at: Pt[], ends: Ends) => {
  let c = 0;
  for (let k = 0; k < ends.length; k++) {
    const [a, b] = ends[k];
    for (const [x, y] of ends.slice(k + 1)) if (x !== a && x !== b && y !== a && y !== b && segmentsCross(at[a], at[b], at[x], at[y])) c++;
  }
  return c;
};

/** A `side` x `side` grid of nodes 70 apart, linked to their right and lower neighbours, with `swaps` seeded pairs of neighbours traded (each a tangle). */
function tangle(side: number, swaps: number, seed = 11): { at: Pt[]; ends: Ends } {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const at = Array.from({ length: side * side }, (_, i): Pt => [70 * (i % side) + 20 * rnd(), 70 * Math.floor(i / side) + 20 * rnd()]);
  const ends: Ends = [];
  for (let i = 0; i < side * side; i++) {
    if (i % side < side - 1) ends.push([i, i + 1]);
    if (i + side < side * side) ends.push([i, i + side]);
  }
  for (let k = 0; k < swaps; k++) {
    const [a, b] = ends[Math.floor(rnd() * ends.length)];
    [at[a], at[b]] = [at[b], at[a]];
  }
  return { at, ends };
}

describe('untangle', () => {
  it('moves a node across a circuit to undo a crossing', () => {
    // A ring of four drawn as a bow tie: its two diagonals cross.
    const at: Pt[] = [[0, 0], [70, 70], [70, 0], [0, 70]];
    const ends: Ends = [[0, 1], [1, 2], [2, 3], [3, 0]];
    assert.equal(crossingCount(at, ends), 1);
    untangle(at, ends, 70);
    assert.equal(crossingCount(at, ends), 0, `positions ${JSON.stringify(at)}`);
  });

  it('stops at its work bound, with the same drawing every time and no crossing added', () => {
    const { at, ends } = tangle(12, 30);
    const copy = at.map((p): Pt => [p[0], p[1]]);
    const before = crossingCount(at, ends);
    const bound = 300_000;
    const work = untangle(at, ends, 70, undefined, bound);
    // The bound is looked at before each node: one node's candidates (130 places, each circuit against all) or swaps may pass it.
    const degree = Math.max(...at.map((_, v) => ends.filter(([a, b]) => a === v || b === v).length));
    const slack = (130 * degree + 4 * degree * at.length) * ends.length;
    assert.ok(work >= bound && work <= bound + slack, `${work} pairs looked at, bound ${bound} (+${slack})`);
    assert.ok(crossingCount(at, ends) < before, `${before} crossings before, ${crossingCount(at, ends)} after`);
    assert.equal(untangle(copy, ends, 70, undefined, bound), work);
    assert.deepEqual(copy, at);
  });
});
