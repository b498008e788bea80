// Circuits as drawn, filed at once for label placement to ask whether a
// position lies across one (labels keep off circuits where they can). Each
// segment goes under the cells it passes through, as box-index.ts files it,
// but by counting sort into one array over a dense grid of those cells
// instead of one object and map entry at a time: a 5,000-circuit picture
// filed its segments for every placement, to be asked a few hundred times.
// Answers yes or no exactly as BoxIndex.blocked does for the same segments.
import { segmentCellPairs, segmentCrosses, type Rect, type Seg } from './box-index.ts';

/** A dense grid has at most this many cells per segment, at least this many allowed; else the segments are read in turn. */
const DENSE_PER_SEGMENT = 16;
const DENSE_MIN = 1 << 16;

export class SegmentGrid {
  /** Segments filed under no cell (too long, not finite): every question reads them. */
  private readonly loose: number[] = [];
  private readonly start: Int32Array = new Int32Array(1);
  private readonly ids: Int32Array = new Int32Array(0);
  private readonly gx: number = 0;
  private readonly gy: number = 0;
  private readonly cols: number = 0;
  private readonly rows: number = 0;
  private readonly seen: Int32Array;
  private stamp = 0;

  constructor(private readonly cell: number, private readonly segs: readonly Seg[]) {
    const n = segs.length;
    this.seen = new Int32Array(n);
    const pairs: number[] = [];
    const from = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      if (!segmentCellPairs(segs[i], cell, pairs)) this.loose.push(i);
      from[i + 1] = pairs.length;
    }
    let gx0 = Infinity, gy0 = Infinity, gx1 = -Infinity, gy1 = -Infinity;
    for (let k = 0; k < pairs.length; k += 2) {
      if (pairs[k] < gx0) gx0 = pairs[k];
      if (pairs[k] > gx1) gx1 = pairs[k];
      if (pairs[k + 1] < gy0) gy0 = pairs[k + 1];
      if (pairs[k + 1] > gy1) gy1 = pairs[k + 1];
    }
    const cols = gx1 - gx0 + 1, rows = gy1 - gy0 + 1;
    if (pairs.length === 0) return;
    if (!(cols * rows <= Math.max(DENSE_MIN, DENSE_PER_SEGMENT * n))) {
      // Spread too thin for a dense grid: every segment is read (still exact, and such pictures have few).
      for (let i = 0; i < n; i++) if (from[i + 1] > from[i]) this.loose.push(i);
      return;
    }
    this.gx = gx0; this.gy = gy0; this.cols = cols; this.rows = rows;
    const start = (this.start = new Int32Array(cols * rows + 1));
    const at = (k: number) => (pairs[k] - gx0) * rows + (pairs[k + 1] - gy0);
    for (let k = 0; k < pairs.length; k += 2) start[at(k) + 1]++;
    for (let k = 0; k < cols * rows; k++) start[k + 1] += start[k];
    const next = start.slice(0, cols * rows);
    const ids = (this.ids = new Int32Array(pairs.length / 2));
    for (let i = 0; i < n; i++) for (let k = from[i]; k < from[i + 1]; k += 2) ids[next[at(k)]++] = i;
  }

  /** Whether a segment passes through the inside of `r` (box-index.ts segmentCrosses). */
  crosses(r: Rect): boolean {
    const stamp = ++this.stamp;
    const { seen, segs } = this;
    for (const id of this.loose) {
      seen[id] = stamp;
      if (segmentCrosses(segs[id], r)) return true;
    }
    if (!Number.isFinite(r.x0 + r.y0 + r.x1 + r.y1)) {
      // No cells to look in (BoxIndex reads every segment then).
      for (let id = 0; id < segs.length; id++) if (seen[id] !== stamp && segmentCrosses(segs[id], r)) return true;
      return false;
    }
    if (this.cols === 0) return false;
    const c = this.cell;
    // Only the cells of the grid: a segment filed elsewhere does not exist.
    const cx0 = Math.max(Math.floor(r.x0 / c), this.gx), cx1 = Math.min(Math.floor(r.x1 / c), this.gx + this.cols - 1);
    const cy0 = Math.max(Math.floor(r.y0 / c), this.gy), cy1 = Math.min(Math.floor(r.y1 / c), this.gy + this.rows - 1);
    if (!(cx0 <= cx1 && cy0 <= cy1)) return false;
    const { start, ids, rows } = this;
    for (let x = cx0; x <= cx1; x++) {
      for (let y = cy0; y <= cy1; y++) {
        const k = (x - this.gx) * rows + (y - this.gy);
        for (let p = start[k], end = start[k + 1]; p < end; p++) {
          const id = ids[p];
          if (seen[id] === stamp) continue;
          seen[id] = stamp;
          if (segmentCrosses(segs[id], r)) return true;
        }
      }
    }
    return false;
  }
}
