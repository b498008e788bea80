// Circuits filed for label placement (render/segment-grid.ts) answer whether
// a box lies across one exactly as BoxIndex.blocked does for the same
// segments: seeded random segments, short and long (some over more cells
// than are filed), spread thin, and boxes of every size, non-finite ones too.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BoxIndex, type Rect, type Seg } from '../../render/box-index.ts';
import { SegmentGrid } from '../../render/segment-grid.ts';

function random(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function segments(n: number, extent: number, length: number, seed: number): Seg[] {
  const rnd = random(seed);
  return Array.from({ length: n }, () => {
    const x = rnd() * extent, y = rnd() * extent, a = rnd() * 2 * Math.PI, l = rnd() * length;
    // Every fifth one horizontal or vertical: the cases the clipping treats apart.
    const [dx, dy] = rnd() < 0.2 ? (rnd() < 0.5 ? [l, 0] : [0, l]) : [Math.cos(a) * l, Math.sin(a) * l];
    return [x, y, x + dx, y + dy];
  });
}

describe('SegmentGrid.crosses', () => {
  const cases: { what: string; segs: Seg[] }[] = [
    { what: 'a dense web of short circuits', segs: segments(3000, 800, 60, 1) },
    { what: 'long circuits, some over 64 cells', segs: segments(300, 4000, 4000, 2) },
    { what: 'circuits spread thin', segs: segments(200, 5_000_000, 50, 3) },
    { what: 'no circuits', segs: [] },
    { what: 'a circuit with no finite end', segs: [...segments(20, 100, 30, 4), [0, 0, Number.NaN, 5], [0, 0, Infinity, 5]] },
  ];
  for (const { what, segs } of cases) {
    it(`answers as BoxIndex.blocked does: ${what}`, () => {
      const index = new BoxIndex(33);
      for (const s of segs) index.addSegment(...s);
      const grid = new SegmentGrid(33, segs);
      const rnd = random(7);
      const boxes: Rect[] = Array.from({ length: 3000 }, () => {
        const x = (rnd() - 0.1) * 1000, y = (rnd() - 0.1) * 1000, w = rnd() < 0.05 ? rnd() * 3000 : rnd() * 80;
        return { x0: x, y0: y, x1: x + w, y1: y + rnd() * 20 };
      });
      boxes.push({ x0: Number.NaN, y0: 0, x1: 10, y1: 10 }, { x0: -1e9, y0: -1e9, x1: 1e9, y1: 1e9 });
      let yes = 0;
      for (const b of boxes) {
        const expected = index.blocked(b);
        assert.equal(grid.crosses(b), expected, JSON.stringify(b));
        if (expected) yes++;
      }
      if (segs.length > 100) assert.ok(yes > 0 && yes < boxes.length, `some boxes cross circuits and some do not (${yes})`);
    });
  }
});
