// The frozen grid spreading asks (render/box-grid.ts) answers exactly what
// BoxIndex.each visits for the same boxes added in the same order, in the
// same order: spreading moves markers as it visits them, so the order decides
// where they land. Checked on seeded random boxes, dense and spread thin,
// with boxes wider than the grid files and questions wider than its cells.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BoxGrid } from '../../render/box-grid.ts';
import { BoxIndex, type Rect } from '../../render/box-index.ts';

function random(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function boxes(n: number, extent: number, side: number, seed: number, wide = 0): Rect[] {
  const rnd = random(seed);
  return Array.from({ length: n }, (_, i) => {
    const x = (rnd() - 0.3) * extent, y = (rnd() - 0.3) * extent, s = i < wide ? side * 80 : side * (0.5 + rnd());
    return { x0: x, y0: y, x1: x + s, y1: y + s * (0.5 + rnd()) };
  });
}

function visits(index: BoxIndex, r: Rect): number[] {
  const out: number[] = [];
  index.each(r, (id) => { out.push(id); });
  return out;
}

describe('BoxGrid.overlapping', () => {
  const cases: { what: string; rects: Rect[]; cell: number }[] = [
    { what: 'a dense crowd (spreading 2,000 markers)', rects: boxes(2000, 600, 12, 1), cell: 15 },
    { what: 'boxes spread thin over a wide picture', rects: boxes(300, 2_000_000, 12, 2), cell: 15 },
    { what: 'some boxes wider than 64 cells', rects: boxes(400, 900, 12, 3, 5), cell: 15 },
    { what: 'a few boxes', rects: boxes(3, 40, 12, 4), cell: 15 },
    { what: 'a box with no finite extent', rects: [...boxes(50, 100, 12, 5), { x0: Number.NaN, y0: 0, x1: 5, y1: 5 }, { x0: -Infinity, y0: 0, x1: 5, y1: 5 }], cell: 15 },
  ];
  for (const { what, rects, cell } of cases) {
    it(`visits what BoxIndex.each visits, in its order: ${what}`, () => {
      const index = new BoxIndex(cell);
      for (const r of rects) index.add(r);
      const grid = new BoxGrid(cell, rects);
      // The same boxes given as arrays of their sides (as spreading files them each round).
      const sides = new BoxGrid(cell, [Float64Array.from(rects, (r) => r.x0), Float64Array.from(rects, (r) => r.y0),
        Float64Array.from(rects, (r) => r.x1), Float64Array.from(rects, (r) => r.y1)]);
      const out = new Int32Array(rects.length);
      const rnd = random(99);
      // Questions at the boxes themselves (as spreading asks), moved a little, and a few wide ones.
      const questions = [...rects.filter((r) => Number.isFinite(r.x0)).map((r) => ({ x0: r.x0 + rnd() * 4, y0: r.y0 - rnd() * 4, x1: r.x1 + rnd() * 4, y1: r.y1 })),
        { x0: -100, y0: -100, x1: 1000, y1: 1000 }, { x0: -1e7, y0: -1e7, x1: 1e7, y1: 1e7 }];
      let hits = 0;
      for (const q of questions) {
        const n = grid.overlapping(q, out);
        hits += n;
        assert.deepEqual([...out.subarray(0, n)], visits(index, q), JSON.stringify(q));
        assert.equal(sides.overlappingSides(q.x0, q.y0, q.x1, q.y1, out), n);
        assert.deepEqual([...out.subarray(0, n)], visits(index, q), `${JSON.stringify(q)} (sides)`);
        if (n > 0) assert.equal(grid.overlapping(q, out, 1), 1, 'a limit of one stops at the first');
      }
      assert.ok(hits > 0, 'some questions meet boxes');
    });
  }
});
