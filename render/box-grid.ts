// A grid over a fixed set of boxes, built at once and only asked: which boxes
// overlap this one. Spreading markers asks it for every marker in every round
// (2,000 markers, ten rounds and more), where refiling objects into a map of
// arrays (box-index.ts) was most of the time. The boxes are kept in flat
// arrays and filed by counting sort into one array per grid (a dense one over
// the boxes' cells, or one keyed by the cells' hashes when they are spread
// thin). It answers in exactly the order BoxIndex.each visits the same boxes
// added in the same order (wide boxes first, then cell by cell, column-major,
// each cell in the order boxes were added), so a caller that moves markers as
// it goes lands them on the same positions.
import type { Rect } from './box-index.ts';

/** Most cells a box is filed under (as box-index.ts); a larger one is on the list every question reads first. */
const LARGE_CELLS = 64;
/** A dense grid has at most this many cells per box, and at least this many are allowed... */
const DENSE_PER_BOX = 16;
const DENSE_MIN = 1 << 16;
/** Cell keys as box-index.ts hashes them. */
const key = (x: number, y: number) => x * 92821 + y * 68917;

export class BoxGrid {
  readonly x0: Float64Array;
  readonly y0: Float64Array;
  readonly x1: Float64Array;
  readonly y1: Float64Array;
  private readonly n: number;
  private readonly large: number[] = [];
  /** Ids by cell: the ids of cell c are ids[start[c]] up to ids[start[c + 1]]. */
  private readonly start: Int32Array;
  private readonly ids: Int32Array;
  /** Dense grid: its first column and row and its rows; sparse (cols 0): the cell index by hash key. */
  private readonly gx: number = 0;
  private readonly gy: number = 0;
  private readonly cols: number = 0;
  private readonly rows: number = 0;
  private readonly slot = new Map<number, number>();
  private readonly seen: Int32Array;
  private stamp = 0;

  /** The boxes `rects`, or the boxes whose sides are in `rects` (left, top, right, bottom: the arrays are kept, not copied). */
  constructor(private readonly cell: number, rects: readonly Rect[] | [Float64Array, Float64Array, Float64Array, Float64Array]) {
    const sides = rects.length === 4 && rects[0] instanceof Float64Array ? (rects as Float64Array[]) : null;
    const n = (this.n = sides ? sides[0].length : rects.length);
    const boxes = rects as readonly Rect[];
    this.x0 = sides ? sides[0] : Float64Array.from(boxes, (r) => r.x0);
    this.y0 = sides ? sides[1] : Float64Array.from(boxes, (r) => r.y0);
    this.x1 = sides ? sides[2] : Float64Array.from(boxes, (r) => r.x1);
    this.y1 = sides ? sides[3] : Float64Array.from(boxes, (r) => r.y1);
    this.seen = new Int32Array(n);
    const c = cell;
    const span = new Int32Array(4 * n);
    let gx0 = Infinity, gy0 = Infinity, gx1 = -Infinity, gy1 = -Infinity, filed = 0;
    for (let i = 0; i < n; i++) {
      const a = Math.floor(this.x0[i] / c), b = Math.floor(this.x1[i] / c), d = Math.floor(this.y0[i] / c), e = Math.floor(this.y1[i] / c);
      const cells = (b - a + 1) * (e - d + 1);
      if (!Number.isFinite(cells) || cells > LARGE_CELLS) {
        this.large.push(i);
        span[4 * i] = 1; span[4 * i + 1] = 0; // no cells
        continue;
      }
      span[4 * i] = a; span[4 * i + 1] = b; span[4 * i + 2] = d; span[4 * i + 3] = e;
      filed += cells;
      if (a < gx0) gx0 = a;
      if (b > gx1) gx1 = b;
      if (d < gy0) gy0 = d;
      if (e > gy1) gy1 = e;
    }
    const cols = gx1 - gx0 + 1, rows = gy1 - gy0 + 1;
    const dense = filed > 0 && cols * rows <= Math.max(DENSE_MIN, DENSE_PER_BOX * n);
    let cellCount: number;
    if (dense) {
      this.gx = gx0; this.gy = gy0; this.cols = cols; this.rows = rows;
      cellCount = cols * rows;
    } else {
      for (let i = 0; i < n; i++) {
        for (let x = span[4 * i]; x <= span[4 * i + 1]; x++) {
          for (let y = span[4 * i + 2]; y <= span[4 * i + 3]; y++) {
            const k = key(x, y);
            if (!this.slot.has(k)) this.slot.set(k, this.slot.size);
          }
        }
      }
      cellCount = this.slot.size;
    }
    const where = (x: number, y: number) => (dense ? (x - gx0) * rows + (y - gy0) : this.slot.get(key(x, y))!);
    // Counting sort, boxes in the order added: count per cell, prefix sums, then fill.
    const start = (this.start = new Int32Array(cellCount + 1));
    for (let i = 0; i < n; i++) {
      for (let x = span[4 * i]; x <= span[4 * i + 1]; x++) for (let y = span[4 * i + 2]; y <= span[4 * i + 3]; y++) start[where(x, y) + 1]++;
    }
    for (let k = 0; k < cellCount; k++) start[k + 1] += start[k];
    const next = start.slice(0, cellCount);
    const ids = (this.ids = new Int32Array(filed));
    for (let i = 0; i < n; i++) {
      for (let x = span[4 * i]; x <= span[4 * i + 1]; x++) for (let y = span[4 * i + 2]; y <= span[4 * i + 3]; y++) ids[next[where(x, y)]++] = i;
    }
  }

  /**
   * Writes to `out` the ids of the boxes that overlap `r` with a positive area (more than 0.01 each way, as
   * box-index.ts counts an overlap), in BoxIndex.each's order, the first `limit` of them; answers how many. `out`
   * holds at least that many ids (or as many as there are boxes).
   */
  overlapping(r: Rect, out: Int32Array, limit = Infinity): number {
    return this.overlappingSides(r.x0, r.y0, r.x1, r.y1, out, limit);
  }

  /** Whether box `id` overlaps the box of sides (left, top, right, bottom) as overlapping() counts it, wherever it was filed. */
  meets(id: number, left: number, top: number, right: number, bottom: number): boolean {
    return left < this.x1[id] - 0.01 && this.x0[id] < right - 0.01 && top < this.y1[id] - 0.01 && this.y0[id] < bottom - 0.01;
  }

  /** overlapping() for the box of sides (left, top, right, bottom). */
  overlappingSides(left: number, top: number, right: number, bottom: number, out: Int32Array, limit = Infinity): number {
    const stamp = ++this.stamp;
    const { seen, x0, y0, x1, y1 } = this;
    const rx0 = left, ry0 = top, rx1 = right - 0.01, ry1 = bottom - 0.01;
    let count = 0;
    for (const id of this.large) {
      seen[id] = stamp;
      if (!(rx0 < x1[id] - 0.01 && x0[id] < rx1 && ry0 < y1[id] - 0.01 && y0[id] < ry1)) continue;
      out[count++] = id;
      if (count >= limit) return count;
    }
    const c = this.cell;
    const cx0 = Math.floor(left / c), cx1 = Math.floor(right / c), cy0 = Math.floor(top / c), cy1 = Math.floor(bottom / c);
    const cells = (cx1 - cx0 + 1) * (cy1 - cy0 + 1);
    if (!Number.isFinite(cells) || cells > Math.max(LARGE_CELLS, this.n)) {
      for (let id = 0; id < this.n; id++) {
        if (seen[id] === stamp || !(rx0 < x1[id] - 0.01 && x0[id] < rx1 && ry0 < y1[id] - 0.01 && y0[id] < ry1)) continue;
        out[count++] = id;
        if (count >= limit) return count;
      }
      return count;
    }
    const { start, ids, gx, gy, cols, rows } = this;
    for (let x = cx0; x <= cx1; x++) {
      for (let y = cy0; y <= cy1; y++) {
        let k: number | undefined;
        if (cols > 0) {
          if (x < gx || x >= gx + cols || y < gy || y >= gy + rows) continue;
          k = (x - gx) * rows + (y - gy);
        } else if ((k = this.slot.get(key(x, y))) === undefined) continue;
        for (let p = start[k], end = start[k + 1]; p < end; p++) {
          const id = ids[p];
          if (seen[id] === stamp) continue;
          seen[id] = stamp;
          if (!(rx0 < x1[id] - 0.01 && x0[id] < rx1 && ry0 < y1[id] - 0.01 && y0[id] < ry1)) continue;
          out[count++] = id;
          if (count >= limit) return count;
        }
      }
    }
    return count;
  }
}
