// render/star-crossings.ts answers what a test of every pair of circuits
// answers: crossings of one node's circuits were it at a place, the change
// a move makes, and the crossings of a set of circuits, on seeded drawings
// with nodes on shared lines (where touching is not crossing) and loops.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { segmentsCross } from '../../render/drawing-geometry.ts';
import type { Pt } from '../../render/paths.ts';
import { StarCrossings } from '../../render/star-crossings.ts';

type Ends = [number, number][];

/** `n` nodes on a coarse grid (many collinear), `m` seeded circuits, one loop. */
function drawing(n: number, m: number, seed: number): { at: Pt[]; ends: Ends } {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const at = Array.from({ length: n }, (): Pt => [10 * Math.floor(rnd() * 12), 10 * Math.floor(rnd() * 8)]);
  const ends: Ends = [[0, 0]];
  while (ends.length < m) {
    const a = Math.floor(rnd() * n), b = Math.floor(rnd() * n);
    if (a !== b) ends.push([a, b]);
  }
  return { at, ends };
}

/** Every pair, as the layouts counted before: node v's circuits (to `neighbours`) from p against every circuit touching neither end. */
function pairwise(at: Pt[], ends: Ends, v: number, p: Pt, neighbours: number[]): number {
  let c = 0;
  for (const u of neighbours) for (const [a, b] of ends) if (a !== b && a !== v && b !== v && a !== u && b !== u && segmentsCross(p, at[u], at[a], at[b])) c++;
  return c;
}

describe('StarCrossings', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`counts, changes and sets as every pair does (seed ${seed})`, () => {
      const { at, ends } = drawing(30, 60, seed);
      const star = new StarCrossings(at, ends, 1e-6);
      const kept = ends.filter(([a, b]) => a !== b);
      for (let v = 0; v < at.length; v++) {
        const neighbours = kept.flatMap(([a, b]) => (a === v ? [b] : b === v ? [a] : []));
        const q: Pt = [at[(v + 7) % at.length][0] + 5, at[(v + 3) % at.length][1]];
        const here = pairwise(at, ends, v, at[v], neighbours), there = pairwise(at, ends, v, q, neighbours);
        assert.equal(star.count(v, at[v], neighbours), here, `node ${v} where it is`);
        assert.equal(star.count(v, q, neighbours), there, `node ${v} at ${q}`);
        assert.equal(star.count(v, q, neighbours, 1), Math.min(there, 1), `node ${v} at ${q}, counted up to 1`);
        assert.equal(star.added(v, at[v], q, neighbours), there - here, `node ${v} moved to ${q}`);
      }
      // The circuits at nodes 0 and 1 (indices into the kept circuits), each pair once.
      const mine = kept.flatMap(([a, b], k) => (a <= 1 || b <= 1 ? [k] : []));
      let expected = 0;
      for (const k of mine) {
        const [a, b] = kept[k];
        kept.forEach(([x, y], f) => {
          if ((mine.includes(f) && f <= k) || x === a || x === b || y === a || y === b) return;
          if (segmentsCross(at[a], at[b], at[x], at[y])) expected++;
        });
      }
      const star2 = new StarCrossings(at, kept, 1e-6);
      assert.equal(star2.among([...mine, ...mine]), expected);
    });
  }
});
