// What annealing (anneal.ts) counts of a straight-line drawing, kept up to
// date as single nodes move: crossings, blocks (a circuit through a node it
// does not end at, or two boxes closer than GAP), compass pairs kept, and
// the sum and sum of squares of circuit lengths. What a moved node takes
// part in is counted where it is and where it would go, and the difference
// applied: O(degree * edges + nodes) a move, in flat arrays without
// allocation (it runs tens of thousands of times a drawing). The tests are
// those of the searches before it: untangle.ts `cross` for crossings,
// drawing-geometry.ts `segmentMeetsBox` (grown by CLEAR) for blocks.
import type { Pt } from './paths.ts';

type Box = { w: number; h: number };

/** The least room between two node boxes (px), and how far a circuit keeps off a node it passes (stress-drawing.ts, schematic-polish.ts). */
const GAP = 20;
const CLEAR = 3;
const EPS = 1e-9;

/** Whether p-q and r-s properly cross (untangle.ts cross, on coordinates). */
function crossing(px: number, py: number, qx: number, qy: number, rx: number, ry: number, sx: number, sy: number): boolean {
  const d1 = (sx - rx) * (py - ry) - (sy - ry) * (px - rx), d2 = (sx - rx) * (qy - ry) - (sy - ry) * (qx - rx);
  if (!((d1 > EPS && d2 < -EPS) || (d1 < -EPS && d2 > EPS))) return false;
  const d3 = (qx - px) * (ry - py) - (qy - py) * (rx - px), d4 = (qx - px) * (sy - py) - (qy - py) * (sx - px);
  return (d3 > EPS && d4 < -EPS) || (d3 < -EPS && d4 > EPS);
}

/** Whether segment p-q comes into the box of half sizes hw, hh around c, grown by CLEAR (segmentMeetsBox written out: Liang-Barsky clipping). */
function meets(px: number, py: number, qx: number, qy: number, cx: number, cy: number, hw: number, hh: number): boolean {
  const x0 = cx - hw - CLEAR, x1 = cx + hw + CLEAR, y0 = cy - hh - CLEAR, y1 = cy + hh + CLEAR;
  if ((px < x0 && qx < x0) || (px > x1 && qx > x1) || (py < y0 && qy < y0) || (py > y1 && qy > y1)) return false;
  let t0 = 0, t1 = 1;
  const dx = qx - px, dy = qy - py;
  for (let side = 0; side < 4; side++) {
    const p = side === 0 ? -dx : side === 1 ? dx : side === 2 ? -dy : dy;
    const q = side === 0 ? px - x0 : side === 1 ? x1 - px : side === 2 ? py - y0 : y1 - py;
    if (Math.abs(p) < 1e-12) { if (q < 0) return false; continue; }
    const t = q / p;
    if (p < 0) { if (t > t1) return false; if (t > t0) t0 = t; } else { if (t < t0) return false; if (t < t1) t1 = t; }
  }
  return t1 - t0 > 1e-9;
}

/** Every pair of boxes too close, and every circuit through a node it does not end at: a drawing's blocks, from scratch. */
export function blocksOf(at: readonly Pt[], boxes: readonly Box[], ends: readonly (readonly [number, number])[]): number {
  const n = at.length;
  let count = 0;
  for (let u = 0; u < n; u++) {
    for (let v = u + 1; v < n; v++) {
      if (Math.abs(at[u][0] - at[v][0]) < (boxes[u].w + boxes[v].w) / 2 + GAP && Math.abs(at[u][1] - at[v][1]) < (boxes[u].h + boxes[v].h) / 2 + GAP) count++;
    }
  }
  for (const [a, b] of ends) {
    if (a === b) continue;
    for (let u = 0; u < n; u++) if (u !== a && u !== b && meets(at[a][0], at[a][1], at[b][0], at[b][1], at[u][0], at[u][1], boxes[u].w / 2, boxes[u].h / 2)) count++;
  }
  return count;
}

/** The counts of a drawing (or of one node's part in it). */
export interface Counts { crossings: number; blocked: number; sum: number; squares: number; kept: number }

export class DrawingCounts {
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly a: Int32Array;
  readonly b: Int32Array;
  private readonly hw: Float64Array;
  private readonly hh: Float64Array;
  private readonly incident: number[][];
  private readonly mark: Int32Array;
  private stamp = 0;
  /** The drawing's counts, and the compass pairs (pair and axis) there are. */
  readonly total: Counts = { crossings: 0, blocked: 0, sum: 0, squares: 0, kept: 0 };
  readonly pairs: number;
  /** Per node, what it takes part in where it is, and the move count it was counted at (valid until any node moves). */
  private readonly own: Counts[];
  private readonly ownAt: Int32Array;
  private moves = 0;

  constructor(from: readonly Pt[], boxes: readonly Box[], ends: readonly (readonly [number, number])[], readonly geo?: readonly Pt[]) {
    const n = from.length, kept = ends.filter(([a, b]) => a !== b);
    this.x = Float64Array.from(from, (p) => p[0]);
    this.y = Float64Array.from(from, (p) => p[1]);
    this.a = Int32Array.from(kept, (e) => e[0]);
    this.b = Int32Array.from(kept, (e) => e[1]);
    this.hw = Float64Array.from(boxes, (b) => b.w / 2);
    this.hh = Float64Array.from(boxes, (b) => b.h / 2);
    this.incident = from.map(() => []);
    kept.forEach(([a, b], k) => { this.incident[a].push(k); this.incident[b].push(k); });
    this.mark = new Int32Array(kept.length);
    this.own = from.map(() => ({ crossings: 0, blocked: 0, sum: 0, squares: 0, kept: 0 }));
    this.ownAt = new Int32Array(n).fill(-1);
    // Each node's part, summed: a crossing is counted from its four ends, a kept pair from both nodes.
    let pairs = 0;
    for (let v = 0; v < n; v++) {
      const c = this.part(v, this.x[v], this.y[v]);
      this.total.crossings += c.crossings / 4;
      this.total.kept += c.kept / 2;
      if (geo) for (let u = v + 1; u < n; u++) pairs += Number(geo[u][1] !== geo[v][1]) + Number(geo[u][0] !== geo[v][0]);
    }
    this.pairs = pairs;
    for (let k = 0; k < kept.length; k++) {
      const l = Math.hypot(this.x[this.a[k]] - this.x[this.b[k]], this.y[this.a[k]] - this.y[this.b[k]]);
      this.total.sum += l;
      this.total.squares += l * l;
    }
    this.total.blocked = blocksOf(from, boxes, ends);
  }

  neighbours(v: number): number[] { return this.incident[v].map((k) => (this.a[k] === v ? this.b[k] : this.a[k])); }

  /** The drawing's counts were node v at (px, py). */
  countsIf(v: number, px: number, py: number, into: Counts): void {
    if (this.ownAt[v] !== this.moves) { Object.assign(this.own[v], this.part(v, this.x[v], this.y[v])); this.ownAt[v] = this.moves; }
    const before = this.own[v], after = this.part(v, px, py), t = this.total;
    into.crossings = t.crossings + after.crossings - before.crossings;
    into.blocked = t.blocked + after.blocked - before.blocked;
    into.sum = t.sum + after.sum - before.sum;
    into.squares = t.squares + after.squares - before.squares;
    into.kept = t.kept + after.kept - before.kept;
  }

  /** Moves node v to (px, py), whose counts `countsIf` gave. */
  move(v: number, px: number, py: number, counts: Counts): void {
    this.x[v] = px; this.y[v] = py;
    Object.assign(this.total, counts);
    this.moves++;
  }

  /** The crossings, blocks and compass pairs node v at (px, py) takes part in, and its circuits' length sums. */
  private part(v: number, px: number, py: number): Counts {
    const { x, y, a, b, hw, hh, mark, geo } = this;
    const n = x.length, m = a.length;
    let crossings = 0, blocked = 0, sum = 0, squares = 0, kept = 0;
    const stamp = ++this.stamp;
    for (const k of this.incident[v]) mark[k] = stamp;
    for (const k of this.incident[v]) {
      const o = a[k] === v ? b[k] : a[k], ox = x[o], oy = y[o];
      const l = Math.hypot(px - ox, py - oy);
      sum += l;
      squares += l * l;
      const lx = Math.min(px, ox), hx = Math.max(px, ox), ly = Math.min(py, oy), hy = Math.max(py, oy);
      for (let j = 0; j < m; j++) {
        const c = a[j], d = b[j];
        if (mark[j] === stamp || c === o || d === o) continue;
        const cx = x[c], cy = y[c], dx = x[d], dy = y[d];
        // Two segments that cross share a point inside both their boxes.
        if ((cx < lx && dx < lx) || (cx > hx && dx > hx) || (cy < ly && dy < ly) || (cy > hy && dy > hy)) continue;
        if (crossing(px, py, ox, oy, cx, cy, dx, dy)) crossings++;
      }
      for (let u = 0; u < n; u++) if (u !== v && u !== o && meets(px, py, ox, oy, x[u], y[u], hw[u], hh[u])) blocked++;
    }
    for (let j = 0; j < m; j++) if (mark[j] !== stamp && meets(x[a[j]], y[a[j]], x[b[j]], y[b[j]], px, py, hw[v], hh[v])) blocked++;
    for (let u = 0; u < n; u++) if (u !== v && Math.abs(px - x[u]) < hw[u] + hw[v] + GAP && Math.abs(py - y[u]) < hh[u] + hh[v] + GAP) blocked++;
    if (geo) {
      const [lat, lng] = geo[v];
      for (let u = 0; u < n; u++) {
        if (u === v) continue;
        const east = Math.sign(geo[u][1] - lng), south = Math.sign(lat - geo[u][0]);
        if (east !== 0 && (x[u] - px) * east > 0) kept++;
        if (south !== 0 && (y[u] - py) * south > 0) kept++;
      }
    }
    return { crossings, blocked, sum, squares, kept };
  }

}
