// Axis-aligned boxes in picture units, and a grid hash over them that answers
// "does this box (or this line segment) touch anything placed so far?" in
// about constant time: label placement asks it tens of thousands of times for
// a 2,000-node picture (spreading asks box-grid.ts, built at once, in this
// index's order). No call costs more than the
// boxes held: a box over more than LARGE_CELLS cells is kept in a list of its
// own that every question reads, and a question over more cells than there
// are boxes reads the boxes instead of the cells, so a box's area (a template
// that draws far off its node) never sets the cost (docs/render.md: Bounds).

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Overlap with a positive area: boxes that only touch do not overlap. */
const overlaps = (a: Rect, b: Rect, eps = 0.01) =>
  a.x0 < b.x1 - eps && b.x0 < a.x1 - eps && a.y0 < b.y1 - eps && b.y0 < a.y1 - eps;

export const union = (a: Rect, b: Rect): Rect => ({
  x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1),
});

export type Seg = [number, number, number, number];

/**
 * Whether segment (ax,ay)-(bx,by) passes through the inside of `r` (Liang-Barsky clipping). Written out without a
 * closure: it is asked hundreds of thousands of times for a large picture.
 */
export function segmentCrosses(s: Seg, r: Rect, eps = 0.01): boolean {
  const ax = s[0], ay = s[1], dx = s[2] - ax, dy = s[3] - ay;
  let t0 = 0, t1 = 1;
  // The four sides in turn: p is the direction across the side, q the room from the start to it.
  for (let side = 0; side < 4; side++) {
    const p = side === 0 ? -dx : side === 1 ? dx : side === 2 ? -dy : dy;
    const q = side === 0 ? ax - (r.x0 + eps) : side === 1 ? r.x1 - eps - ax : side === 2 ? ay - (r.y0 + eps) : r.y1 - eps - ay;
    if (Math.abs(p) < 1e-12) {
      if (q <= 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) {
      if (t > t1) return false;
      if (t > t0) t0 = t;
    } else {
      if (t < t0) return false;
      if (t < t1) t1 = t;
    }
  }
  return t1 - t0 > 1e-9;
}

/** Most cells a box is filed under; a larger one goes to the list every question reads. */
const LARGE_CELLS = 64;

/**
 * Pushes to `out` the column and row of each cell of size `c` that segment `s` passes through, column by column (a
 * diagonal segment is not filed under every cell of its bounding box); false when they are more than LARGE_CELLS.
 */
export function segmentCellPairs(s: Seg, c: number, out: number[]): boolean {
  const [ax, ay, bx, by] = s;
  const x0 = Math.min(ax, bx), x1 = Math.max(ax, bx), dx = bx - ax, dy = by - ay;
  const cx0 = Math.floor(x0 / c), cx1 = Math.floor(x1 / c);
  if (!Number.isFinite(cx0 + cx1 + ay + by) || cx1 - cx0 >= LARGE_CELLS) return false;
  const first = out.length;
  for (let cx = cx0; cx <= cx1; cx++) {
    // The part of the segment within this column, and the rows it spans there.
    let ya = ay, yb = by;
    if (Math.abs(dx) > 1e-12) {
      ya = ay + ((Math.max(x0, cx * c) - ax) / dx) * dy;
      yb = ay + ((Math.min(x1, (cx + 1) * c) - ax) / dx) * dy;
    }
    const cy1 = Math.floor(Math.max(ya, yb) / c);
    for (let cy = Math.floor(Math.min(ya, yb) / c); cy <= cy1; cy++) {
      out.push(cx, cy);
      if (out.length - first > 2 * LARGE_CELLS) {
        out.length = first;
        return false;
      }
    }
  }
  return true;
}

/** A uniform grid of buckets holding boxes and segments; cells are keyed by a hash of their column and row. */
export class BoxIndex {
  private readonly cells = new Map<number, number[]>();
  private readonly large: number[] = [];
  private readonly rects: Rect[] = [];
  private readonly segs: (Seg | null)[] = [];
  private stamp = 0;
  private readonly seen: number[] = [];

  constructor(private readonly cell: number) {}

  /** How many cells `r` covers (Infinity for a box with no finite extent). */
  private span(r: Rect): number {
    const c = this.cell;
    const n = (Math.floor(r.x1 / c) - Math.floor(r.x0 / c) + 1) * (Math.floor(r.y1 / c) - Math.floor(r.y0 / c) + 1);
    return Number.isFinite(n) ? n : Infinity;
  }

  /** Whether the box or segment `id` meets the question: a box `r`, or the segment `seg` (which only boxes block). */
  private meets(id: number, r: Rect, seg: Seg | null, except: ReadonlySet<number> | undefined): boolean {
    const own = this.segs[id];
    if (seg) return !own && !except?.has(id) && segmentCrosses(seg, this.rects[id]);
    return own ? segmentCrosses(own, r) : overlaps(r, this.rects[id]);
  }

  /**
   * Each id filed where `r` may meet it, each once - the large boxes, then the cells `r` covers, or every id when
   * those are many cells and outnumber the ids - that meets the question (see meets); true as soon as `visit`
   * (default: any) answers true. Plain loops, no closure per id or cell: label placement asks this for every
   * candidate position of every label.
   */
  private find(r: Rect, seg: Seg | null, except: ReadonlySet<number> | undefined, visit?: (id: number) => unknown): boolean {
    const stamp = ++this.stamp;
    const seen = this.seen;
    for (const id of this.large) {
      seen[id] = stamp;
      if (this.meets(id, r, seg, except) && (!visit || visit(id) === true)) return true;
    }
    if (this.span(r) > Math.max(LARGE_CELLS, this.rects.length)) {
      for (let id = 0; id < this.rects.length; id++) {
        if (seen[id] === stamp) continue;
        if (this.meets(id, r, seg, except) && (!visit || visit(id) === true)) return true;
      }
      return false;
    }
    const c = this.cell;
    const cx0 = Math.floor(r.x0 / c), cx1 = Math.floor(r.x1 / c), cy0 = Math.floor(r.y0 / c), cy1 = Math.floor(r.y1 / c);
    for (let x = cx0; x <= cx1; x++) {
      for (let y = cy0; y <= cy1; y++) {
        const bucket = this.cells.get(x * 92821 + y * 68917);
        if (!bucket) continue;
        for (let i = 0; i < bucket.length; i++) {
          const id = bucket[i];
          if (seen[id] === stamp) continue;
          seen[id] = stamp;
          if (this.meets(id, r, seg, except) && (!visit || visit(id) === true)) return true;
        }
      }
    }
    return false;
  }

  /** The keys of the cells segment `s` passes through, or null when they are more than LARGE_CELLS. */
  private segmentCells(s: Seg): number[] | null {
    const pairs: number[] = [];
    if (!segmentCellPairs(s, this.cell, pairs)) return null;
    const out: number[] = [];
    for (let i = 0; i < pairs.length; i += 2) out.push(pairs[i] * 92821 + pairs[i + 1] * 68917);
    return out;
  }

  private file(key: number, id: number): void {
    const bucket = this.cells.get(key);
    if (bucket) bucket.push(id);
    else this.cells.set(key, [id]);
  }

  private insert(r: Rect, seg: Seg | null): number {
    const id = this.rects.length;
    this.rects.push(r);
    this.segs.push(seg);
    this.seen.push(0);
    const cells = seg ? this.segmentCells(seg) : this.span(r) > LARGE_CELLS ? null : [];
    if (!cells) {
      this.large.push(id);
      return id;
    }
    if (seg) {
      for (const key of cells) this.file(key, id);
      return id;
    }
    const c = this.cell;
    const cx1 = Math.floor(r.x1 / c), cy0 = Math.floor(r.y0 / c), cy1 = Math.floor(r.y1 / c);
    for (let x = Math.floor(r.x0 / c); x <= cx1; x++) for (let y = cy0; y <= cy1; y++) this.file(x * 92821 + y * 68917, id);
    return id;
  }

  /** Empties the index, keeping its cells' arrays for the next boxes (spreading refiles every marker each round). */
  clear(): void {
    for (const bucket of this.cells.values()) bucket.length = 0;
    this.large.length = 0;
    this.rects.length = 0;
    this.segs.length = 0;
    this.seen.length = 0;
  }

  add(r: Rect): number {
    return this.insert(r, null);
  }

  addSegment(ax: number, ay: number, bx: number, by: number): number {
    return this.insert({ x0: Math.min(ax, bx), y0: Math.min(ay, by), x1: Math.max(ax, bx), y1: Math.max(ay, by) }, [ax, ay, bx, by]);
  }

  /** Calls `visit` with the id of each box (and segment) that `r` overlaps, until it answers true; answers whether one did. */
  each(r: Rect, visit: (id: number) => unknown): boolean {
    return this.find(r, null, undefined, visit);
  }

  /** Whether `r` overlaps any box or segment. */
  blocked(r: Rect): boolean {
    return this.find(r, null, undefined);
  }

  /** Whether segment a-b passes through a box (segments never block segments), ignoring the ids in `except`. */
  segmentBlocked(ax: number, ay: number, bx: number, by: number, except?: ReadonlySet<number>): boolean {
    return this.find({ x0: Math.min(ax, bx), y0: Math.min(ay, by), x1: Math.max(ax, bx), y1: Math.max(ay, by) }, [ax, ay, bx, by], except);
  }
}
