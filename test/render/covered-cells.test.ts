// The quick "surely blocked" of label placement (render/covered-cells.ts): it
// says yes only where a box really overlaps an obstacle with a positive area,
// and it does say yes over a whole marker.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Rect } from '../../render/box-index.ts';
import { CoveredCells } from '../../render/covered-cells.ts';

/** A small seeded generator, so a failure is the same on every run. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}
const overlaps = (a: Rect, b: Rect) => a.x0 < b.x1 - 0.01 && b.x0 < a.x1 - 0.01 && a.y0 < b.y1 - 0.01 && b.y0 < a.y1 - 0.01;
const box = (x: number, y: number, w: number, h: number): Rect => ({ x0: x, y0: y, x1: x + w, y1: y + h });

describe('CoveredCells', () => {
  for (const [what, seed, count, side] of [['a crowd of markers', 1, 400, 10], ['a few large boxes', 2, 12, 120], ['markers in a wide picture', 3, 2000, 8]] as const) {
    it(`never calls a box blocked that overlaps none of ${what}`, () => {
      const r = random(seed);
      const obstacles = Array.from({ length: count }, () => box(r() * 2000 - 500, r() * 800, side * (0.5 + r()), side * (0.5 + r())));
      const covered = new CoveredCells(obstacles, 11 / 3);
      let yes = 0;
      for (let i = 0; i < 5000; i++) {
        const q = box(r() * 2200 - 600, r() * 900 - 50, 5 + r() * 80, 5 + r() * 20);
        if (!covered.surely(q)) continue;
        yes++;
        assert.ok(obstacles.some((o) => overlaps(q, o)), `surely blocked, yet clear: ${JSON.stringify(q)}`);
      }
      assert.ok(yes > 0, 'some boxes were found blocked');
    });
  }

  it('calls a box blocked that holds a whole marker, and one beside it clear or unknown', () => {
    const covered = new CoveredCells([box(100, 100, 10, 10), box(300, 40, 10, 10)], 11 / 3);
    assert.equal(covered.surely(box(95, 95, 60, 14)), true);
    assert.equal(covered.surely(box(111, 95, 60, 14)), false);
    assert.equal(covered.surely(box(-50, -50, 5, 5)), false);
  });

  it('answers "not sure" with no obstacle large enough to cover a cell', () => {
    const covered = new CoveredCells([box(0, 0, 2, 2), box(5, 5, 1, 40)], 11 / 3);
    assert.equal(covered.surely(box(-10, -10, 100, 100)), false);
  });
});
