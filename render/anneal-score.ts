// The score annealing lowers (anneal.ts): the quality module's measures
// (layout-quality.ts) of a straight-line drawing, from the counts kept up
// to date as nodes move (anneal-counts.ts), each node's nearest neighbour
// (updated for a move; a node whose nearest moved away is measured again)
// and the box around the nodes. Lengths are in node spacings (the median
// distance from a node to its nearest), as the quality module measures
// them, so the score does not depend on the drawing's scale.
//
// A crossing costs 10 points, a block 20 (the drawing could not be kept
// with one), the compass order 3 per percentage point short of MIN_COMPASS;
// the circuits' CV, total length and area per node cost where they go beyond
// the drawing's own at the start (caps), since the result must be no worse
// by any of them; and the CV itself a little, so that among drawings equal
// by the rest annealing settles on the most even.
import { type Counts, DrawingCounts } from './anneal-counts.ts';
import type { Pt } from './paths.ts';

type Box = { w: number; h: number };

/** Points a crossing costs, and each crossing beyond the drawing's own on top (it has as few as its layout found). */
export const CROSSING = 10;
const ADDED = 10;
const BLOCKED = 20;
/** Points per unit of CV, total or area beyond its cap, relative to it; per unit short of MIN_COMPASS, by default (0.01 is 3 points). */
const OVER_CAP = 30;
export const UNDER_COMPASS = 300;
/** The schematic's promise of pairs in compass order, and the share the score asks for: a little above it. */
const PROMISE = 0.9;
const MIN_COMPASS = 0.905;
/**
 * How much longer the mean circuit (px) may grow. The measures do not see
 * scale, so a drawing left free drifts larger, where boxes and circuits
 * clear each other more easily (GÉANT came out 4166 px wide instead of
 * 1077), and a picture's text and markers shrink as much when it is
 * fitted to a page. At 1.6 GÉANT is 1305 px wide; at 1.3 it keeps its 6
 * crossings.
 */
export const GROWTH = 1.6;
/** How much the CV itself weighs: a tie-breaker. */
const EVEN = 1;

/**
 * How much longer a schematic's circuits may grow in all while its compass
 * order is brought up to the promised 90 %: a drawing below it breaks a
 * promise, one with circuits a few percent longer does not.
 */
export const lengthAllowance = (start: { compass: number }) => (start.compass < PROMISE ? 1.1 : 1);

/** The figures the quality rules read: counts, CV, total length and area per node (node spacings), compass share. */
export interface Figures { crossings: number; blocked: number; cv: number; total: number; area: number; compass: number; shape: number; scale: number }

/** Width over height a dashboard panel shows (the layered and stress drawings are brought into it too). */
const SHAPE = [1.1, 1.8];
/** How far (log) a drawing's width over height lies outside SHAPE: 0 inside. */
const offShape = (aspect: number) => Math.max(0, Math.log(SHAPE[0] / aspect), Math.log(aspect / SHAPE[1]));

export class AnnealScore {
  private readonly counts: DrawingCounts;
  /** Squared nearest distances and nearest nodes, for the drawing as it is and for the move last asked about; a scratch for the median. */
  private near: Float64Array;
  private nearIndex: Int32Array;
  private nearNext: Float64Array;
  private indexNext: Int32Array;
  private readonly sorted: Float64Array;
  private readonly hw: Float64Array;
  private readonly hh: Float64Array;
  private readonly caps: { crossings: number; cv: number; total: number; area: number; shape: number; scale: number };
  /** The counts of the move last asked about, for `move`. */
  private readonly next: Counts = { crossings: 0, blocked: 0, sum: 0, squares: 0, kept: 0 };
  private readonly pending = { v: -1, px: 0, py: 0 };

  /** `compass`: points per unit of compass order short of MIN_COMPASS. */
  constructor(from: readonly Pt[], input: { boxes: readonly Box[]; ends: readonly (readonly [number, number])[]; geo?: readonly Pt[] }, private readonly compass = UNDER_COMPASS, private readonly crossing = CROSSING) {
    this.counts = new DrawingCounts(from, input.boxes, input.ends, input.geo);
    const n = from.length;
    this.near = new Float64Array(n); this.nearNext = new Float64Array(n); this.sorted = new Float64Array(n);
    this.nearIndex = new Int32Array(n); this.indexNext = new Int32Array(n);
    this.hw = Float64Array.from(input.boxes, (b) => b.w / 2);
    this.hh = Float64Array.from(input.boxes, (b) => b.h / 2);
    this.nearest(this.near, this.nearIndex);
    const start = this.figuresOf(this.counts.total);
    this.caps = { crossings: start.crossings, cv: Math.max(start.cv, 0.01), total: start.total * lengthAllowance(start), area: start.area, shape: start.shape, scale: start.scale * GROWTH };
  }

  get x(): Float64Array { return this.counts.x; }
  get y(): Float64Array { return this.counts.y; }
  neighbours(v: number): number[] { return this.counts.neighbours(v); }
  meanLength(): number { return this.counts.total.sum / Math.max(1, this.counts.a.length); }
  snapshot(): Pt[] { return Array.from(this.x, (px, i): Pt => [px, this.y[i]]); }

  /** The score were node v at (px, py). */
  energyIf(v: number, px: number, py: number): number {
    this.counts.countsIf(v, px, py, this.next);
    const p = this.pending;
    p.v = v; p.px = px; p.py = py;
    const { x, y } = this, [ox, oy] = [x[v], y[v]];
    x[v] = px; y[v] = py;
    const e = this.weigh(this.figuresOf(this.next, this.spacingIf(v, px, py)), true);
    x[v] = ox; y[v] = oy;
    return e;
  }

  /** Moves the node where the last `energyIf` asked about. */
  move(): void {
    const { v, px, py } = this.pending;
    this.counts.move(v, px, py, this.next);
    [this.near, this.nearNext] = [this.nearNext, this.near];
    [this.nearIndex, this.indexNext] = [this.indexNext, this.nearIndex];
  }

  energy(): number { return this.weigh(this.figures(), true); }

  /** The score without its tie-breaker: what annealing must lower for its drawing to be kept. */
  limits(): number { return this.weigh(this.figures(), false); }

  figures(): Figures { return this.figuresOf(this.counts.total); }

  private weigh(f: Figures, ties: boolean): number {
    const over = (value: number, cap: number) => Math.max(0, value / cap - 1);
    return this.crossing * f.crossings + ADDED * Math.max(0, f.crossings - this.caps.crossings) + BLOCKED * f.blocked
      + this.compass * Math.max(0, MIN_COMPASS - f.compass)
      + OVER_CAP * (this.compass / UNDER_COMPASS) * (over(f.cv, this.caps.cv) + over(f.total, this.caps.total) + over(f.area, this.caps.area) + Math.max(0, f.shape - this.caps.shape) + over(f.scale, this.caps.scale))
      + (ties ? EVEN * f.cv : 0);
  }

  /** The figures of the drawing as it stands in x, y with counts `c`. */
  private figuresOf(c: Counts, unit = this.median(this.near)): Figures {
    const m = Math.max(1, this.counts.a.length), n = this.x.length;
    const mean = c.sum / m, cv = mean > 0 ? Math.sqrt(Math.max(0, c.squares / m - mean * mean)) / mean : 0;
    const compass = this.counts.geo && this.counts.pairs > 0 ? c.kept / this.counts.pairs : 1;
    const [w, h] = this.extent();
    return { crossings: c.crossings, blocked: c.blocked, cv, total: c.sum / unit, area: (w * h) / (unit * unit) / n, compass, shape: offShape(w / Math.max(h, 1e-9)), scale: mean };
  }

  /** Each node's squared distance to its nearest other node, and which that is, from scratch. */
  private nearest(near: Float64Array, index: Int32Array): void {
    const { x, y } = this, n = x.length;
    near.fill(Infinity);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const dx = x[i] - x[j], dy = y[i] - y[j], d = dx * dx + dy * dy;
        if (d < near[i]) { near[i] = d; index[i] = j; }
        if (d < near[j]) { near[j] = d; index[j] = i; }
      }
    }
  }

  /**
   * The node spacing were node v at (px, py): nearest distances kept per
   * node and updated for the move (a node whose nearest was v and is now
   * further is measured again), into nearNext for `move`. O(nodes) but for
   * those few.
   */
  private spacingIf(v: number, px: number, py: number): number {
    const { x, y, near, nearIndex, nearNext, indexNext } = this, n = x.length;
    let mine = Infinity, mineIndex = -1;
    for (let u = 0; u < n; u++) {
      if (u === v) continue;
      const dx = px - x[u], dy = py - y[u], d = dx * dx + dy * dy;
      if (d < mine) { mine = d; mineIndex = u; }
      if (nearIndex[u] !== v) {
        if (d < near[u]) { nearNext[u] = d; indexNext[u] = v; } else { nearNext[u] = near[u]; indexNext[u] = nearIndex[u]; }
      } else if (d <= near[u]) { nearNext[u] = d; indexNext[u] = v; } else {
        // Its nearest moved away: measure it again against everyone (v at its new place).
        let best = d, at = v;
        for (let w = 0; w < n; w++) {
          if (w === u || w === v) continue;
          const ex = x[u] - x[w], ey = y[u] - y[w], e = ex * ex + ey * ey;
          if (e < best) { best = e; at = w; }
        }
        nearNext[u] = best; indexNext[u] = at;
      }
    }
    nearNext[v] = mine; indexNext[v] = mineIndex;
    return this.median(nearNext);
  }

  /** The median of squared nearest distances, as a distance (the quality module's spacing). */
  private median(near: Float64Array): number {
    const sorted = this.sorted;
    sorted.set(near);
    sorted.sort();
    return Math.sqrt(sorted[sorted.length >> 1]) || 1;
  }

  /** Width and height of the box around the nodes' boxes. */
  private extent(): [number, number] {
    const { x, y, hw, hh } = this;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = 0; i < x.length; i++) {
      x0 = Math.min(x0, x[i] - hw[i]); x1 = Math.max(x1, x[i] + hw[i]);
      y0 = Math.min(y0, y[i] - hh[i]); y1 = Math.max(y1, y[i] + hh[i]);
    }
    return [x1 - x0, y1 - y0];
  }
}
