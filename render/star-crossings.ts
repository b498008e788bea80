// The question every crossing reduction of a straight-line drawing asks for
// each place it tries a node at (untangle.ts, untangle-within.ts,
// schematic-layout.ts): how many circuits would the node's own circuits
// cross, were it there? Answered exactly as a test of every pair would
// (the same arithmetic, so the same count), but cheaper: circuits whose
// boxes lie apart from the moved circuits' are passed over (two segments
// that cross share a point inside both boxes: first against the box of all
// of a node's circuits, then of each), the ends of those left are copied
// to a flat array, and the count stops at a limit where the caller only
// needs to know whether it reaches it.
import type { Pt } from './paths.ts';

export class StarCrossings {
  private readonly from: Int32Array;
  private readonly to: Int32Array;
  /** Circuits marked as one's own by `among` (the stamp of the current question). */
  private readonly mine: Int32Array;
  private stamp = 0;
  /** Scratch for `near`: the circuits near a question, and their ends' coordinates (ax, ay, bx, by each). */
  private readonly ids: Int32Array;
  private readonly ends: Float64Array;
  /** Circuit pairs looked at so far (each moved circuit against each other circuit): the work done, for callers that bound it. */
  work = 0;

  /**
   * `at`: node positions, read at every count (the caller moves nodes in it);
   * `ends`: the circuits (a node's loop to itself crosses nothing and is left
   * out); `eps`: how far off a line an end must lie to be on one side of it.
   */
  constructor(private readonly at: readonly Pt[], ends: readonly (readonly [number, number])[], private readonly eps: number) {
    const kept = ends.filter(([a, b]) => a !== b);
    this.from = Int32Array.from(kept, ([a]) => a);
    this.to = Int32Array.from(kept, ([, b]) => b);
    this.mine = new Int32Array(kept.length);
    this.ids = new Int32Array(kept.length);
    this.ends = new Float64Array(4 * kept.length);
  }

  /**
   * Proper crossings of the segments from `p` (node `v`'s place) to each of
   * `neighbours` with every circuit that touches neither end; counted up to
   * `limit` (a count of `limit` means at least that many).
   */
  count(v: number, p: Pt, neighbours: readonly number[], limit = Infinity): number {
    const px = p[0], py = p[1];
    const k = this.near(v, px, py, px, py, neighbours);
    const { ids, ends: e, eps } = this;
    let c = 0;
    for (const u of neighbours) {
      this.work += this.from.length;
      const q = this.at[u];
      const qx = q[0], qy = q[1];
      const x0 = Math.min(px, qx), x1 = Math.max(px, qx), y0 = Math.min(py, qy), y1 = Math.max(py, qy);
      for (let i = 0; i < k; i++) {
        const f = ids[i];
        if (this.from[f] === u || this.to[f] === u) continue;
        const ax = e[4 * i], ay = e[4 * i + 1], bx = e[4 * i + 2], by = e[4 * i + 3];
        if ((ax < x0 && bx < x0) || (ax > x1 && bx > x1) || (ay < y0 && by < y0) || (ay > y1 && by > y1)) continue;
        if (crosses(px, py, qx, qy, ax, ay, bx, by, eps) && ++c >= limit) return c;
      }
    }
    return c;
  }

  /**
   * Crossings node `v`'s circuits would gain (negative: lose) were it moved
   * from `p` to `q`: count(v, q) - count(v, p), both counted in one pass.
   */
  added(v: number, p: Pt, q: Pt, neighbours: readonly number[]): number {
    const px = p[0], py = p[1], qx = q[0], qy = q[1];
    const k = this.near(v, Math.min(px, qx), Math.min(py, qy), Math.max(px, qx), Math.max(py, qy), neighbours);
    const { ids, ends: e, eps } = this;
    let c = 0;
    for (const u of neighbours) {
      this.work += 2 * this.from.length;
      const r = this.at[u];
      const rx = r[0], ry = r[1];
      const x0 = Math.min(px, qx, rx), x1 = Math.max(px, qx, rx), y0 = Math.min(py, qy, ry), y1 = Math.max(py, qy, ry);
      for (let i = 0; i < k; i++) {
        const f = ids[i];
        if (this.from[f] === u || this.to[f] === u) continue;
        const ax = e[4 * i], ay = e[4 * i + 1], bx = e[4 * i + 2], by = e[4 * i + 3];
        // Apart from both segments' boxes: it crosses neither.
        if ((ax < x0 && bx < x0) || (ax > x1 && bx > x1) || (ay < y0 && by < y0) || (ay > y1 && by > y1)) continue;
        if (crosses(qx, qy, rx, ry, ax, ay, bx, by, eps)) c++;
        if (crosses(px, py, rx, ry, ax, ay, bx, by, eps)) c--;
      }
    }
    return c;
  }

  /**
   * The circuits not at `v` whose boxes meet the box around [x0, x1] x
   * [y0, y1] and every neighbour (all the segments asked about lie in it),
   * into `ids`, their ends' coordinates into `ends`; returns how many.
   */
  private near(v: number, x0: number, y0: number, x1: number, y1: number, neighbours: readonly number[]): number {
    const { at, from, to, ids, ends: e } = this;
    for (const u of neighbours) {
      const r = at[u];
      if (r[0] < x0) x0 = r[0];
      if (r[0] > x1) x1 = r[0];
      if (r[1] < y0) y0 = r[1];
      if (r[1] > y1) y1 = r[1];
    }
    let k = 0;
    for (let f = 0; f < from.length; f++) {
      const a = from[f], b = to[f];
      if (a === v || b === v) continue;
      const pa = at[a], pb = at[b];
      const ax = pa[0], ay = pa[1], bx = pb[0], by = pb[1];
      if ((ax < x0 && bx < x0) || (ax > x1 && bx > x1) || (ay < y0 && by < y0) || (ay > y1 && by > y1)) continue;
      ids[k] = f;
      e[4 * k] = ax; e[4 * k + 1] = ay; e[4 * k + 2] = bx; e[4 * k + 3] = by;
      k++;
    }
    return k;
  }

  /**
   * Proper crossings of the circuits `ks` (indices into `ends`, which must
   * have no loop) with any circuit not sharing a node, each pair once,
   * counted up to `limit`.
   */
  among(ks: readonly number[], limit = Infinity): number {
    const { at, from, to, eps, mine } = this;
    const m = from.length;
    const stamp = ++this.stamp;
    for (const k of ks) mine[k] = stamp;
    let c = 0;
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i];
      // A circuit listed twice (the one between two nodes asked about) is counted once.
      if (ks.indexOf(k) !== i) continue;
      this.work += m;
      const a = from[k], b = to[k];
      const pa = at[a], pb = at[b];
      const px = pa[0], py = pa[1], qx = pb[0], qy = pb[1];
      const x0 = Math.min(px, qx), x1 = Math.max(px, qx), y0 = Math.min(py, qy), y1 = Math.max(py, qy);
      for (let f = 0; f < m; f++) {
        if (mine[f] === stamp && f <= k) continue;
        const x = from[f], y = to[f];
        if (x === a || x === b || y === a || y === b) continue;
        const px2 = at[x], py2 = at[y];
        const ax = px2[0], ay = px2[1], bx = py2[0], by = py2[1];
        if ((ax < x0 && bx < x0) || (ax > x1 && bx > x1) || (ay < y0 && by < y0) || (ay > y1 && by > y1)) continue;
        if (crosses(px, py, qx, qy, ax, ay, bx, by, eps) && ++c >= limit) return c;
      }
    }
    return c;
  }
}

/** Whether segment p-q properly crosses segment a-b: drawing-geometry.ts segmentsCross, term for term. */
function crosses(px: number, py: number, qx: number, qy: number, ax: number, ay: number, bx: number, by: number, eps: number): boolean {
  const d1 = (bx - ax) * (py - ay) - (by - ay) * (px - ax), d2 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax);
  if (!((d1 > eps && d2 < -eps) || (d1 < -eps && d2 > eps))) return false;
  const d3 = (qx - px) * (ay - py) - (qy - py) * (ax - px), d4 = (qx - px) * (by - py) - (qy - py) * (bx - px);
  return (d3 > eps && d4 < -eps) || (d3 < -eps && d4 > eps);
}
