// A quick "surely blocked" for label placement (labels.ts): the cells of a
// raster that some fixed box covers whole, counted in a summed-area table,
// so whether a box holds one of them is four lookups. A box that holds a
// covered cell overlaps that obstacle with a positive area, so the answer
// "yes" is exact; "no" only means the caller must ask its grid (box-grid.ts).
// In a crowded picture most label positions are blocked: 2,000 labels of a
// generated backbone asked 47,000 times and placed 79, each question a walk
// over the grid's cells and their boxes.
import type { Rect } from './box-index.ts';

/** Most cells the raster holds: a larger picture gets coarser cells, fewer of which a marker covers whole (more answers of "not sure", none wrong). */
const MAX_CELLS = 1 << 18;

export class CoveredCells {
  private readonly cell: number;
  private readonly x0: number;
  private readonly y0: number;
  private readonly cols: number;
  private readonly rows: number;
  /** Summed-area table over covered cells: sums[(r) * (cols + 1) + c] counts the covered cells above and left of (c, r). */
  private readonly sums: Int32Array | null;
  private readonly span = new Float64Array(4);

  /** `cell`: the finest cell side wanted (a box of sides at least twice it always covers a cell). */
  constructor(boxes: readonly Rect[], cell: number) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const b of boxes) {
      if (!(b.x1 - b.x0 >= 2 * cell && b.y1 - b.y0 >= 2 * cell)) continue;
      if (b.x0 < x0) x0 = b.x0;
      if (b.y0 < y0) y0 = b.y0;
      if (b.x1 > x1) x1 = b.x1;
      if (b.y1 > y1) y1 = b.y1;
    }
    this.x0 = x0; this.y0 = y0;
    const area = (x1 - x0) * (y1 - y0);
    this.cell = Number.isFinite(area) ? Math.max(cell, Math.sqrt(area / MAX_CELLS)) : cell;
    this.cols = Number.isFinite(area) ? Math.ceil((x1 - x0) / this.cell) + 1 : 0;
    this.rows = Number.isFinite(area) ? Math.ceil((y1 - y0) / this.cell) + 1 : 0;
    if (this.cols === 0 || this.rows === 0 || this.cols * this.rows > 4 * MAX_CELLS) { this.sums = null; return; }
    const { cols, rows } = this, w = cols + 1;
    const covered = new Uint8Array(cols * rows);
    const span = this.span;
    for (const b of boxes) {
      this.inside(b);
      for (let r = span[2]; r <= span[3]; r++) covered.fill(1, r * cols + span[0], r * cols + span[1] + 1);
    }
    const sums = (this.sums = new Int32Array(w * (rows + 1)));
    for (let r = 0; r < rows; r++) {
      let line = 0;
      for (let c = 0; c < cols; c++) {
        line += covered[r * cols + c];
        sums[(r + 1) * w + c + 1] = sums[r * w + c + 1] + line;
      }
    }
  }

  /**
   * The first and last column and row of the cells wholly inside `b` (from the first cell edge at or after its left
   * side to the last before its right), clipped to the raster, into `span` (empty when first > last): asked tens of
   * thousands of times a picture, so written into one array, not a new one each time. NaN sides give an empty span.
   */
  private inside(b: Rect): void {
    const { cell, x0, y0, span } = this;
    span[0] = Math.max(0, Math.ceil((b.x0 - x0) / cell));
    span[1] = Math.min(this.cols - 1, Math.floor((b.x1 - x0) / cell) - 1);
    span[2] = Math.max(0, Math.ceil((b.y0 - y0) / cell));
    span[3] = Math.min(this.rows - 1, Math.floor((b.y1 - y0) / cell) - 1);
  }

  /** True when `r` holds a cell some box covers whole: it surely overlaps that box. False: it may or may not. */
  surely(r: Rect): boolean {
    const sums = this.sums;
    if (!sums) return false;
    this.inside(r);
    const span = this.span, c0 = span[0], c1 = span[1], r0 = span[2], r1 = span[3];
    if (!(c0 <= c1 && r0 <= r1)) return false;
    const w = this.cols + 1;
    return sums[(r1 + 1) * w + c1 + 1] - sums[r0 * w + c1 + 1] - sums[(r1 + 1) * w + c0] + sums[r0 * w + c0] > 0;
  }
}
