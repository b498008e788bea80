// Crossings undone within a length budget, for stress drawings without
// coordinates (stress-drawing.ts): untangle.ts removes crossings whatever
// the circuits cost (the dual-homed hierarchy: 14 crossings to 2, but
// circuits 1.8x as long as neato's and twice as uneven), which is not a
// drawing an engineer reads better. Here a node moves only where its own
// circuits cross fewer others, no two node boxes come within GAP, no node
// comes nearer to another than the drawing's node spacing allows, and the
// circuits stay within a budget of the stress drawing's: their total length
// and its spread (coefficient of variation) at most BUDGET times what they
// were. Greedy and deterministic: the best move of a pass is made, then the
// next pass looks again, within MAX_WORK segment tests.
import { segmentsCross } from './drawing-geometry.ts';
import { hypot } from './hypot.ts';
import type { Pt } from './paths.ts';
import { StarCrossings } from './star-crossings.ts';

type Box = { w: number; h: number };

/** How much longer and more uneven the circuits may get than the stress drawing's: total, spread. */
const BUDGET = { total: 1.1, spread: 1.3 };
/** The least room between a moved node's box and another (px); the least distance to another node, in node spacings (or what it had). */
const GAP = 6;
const SPACING_KEPT = 0.8;
const PASSES = 12;
/** Candidate places: around the node's neighbours' centre and around the node itself, at these radii (node spacings). */
const RADII = [0, 0.15, 0.3, 0.5, 0.75, 1, 1.4, 2];
const DIRECTIONS = 24;
/**
 * Segment pairs tested at most, so the time is bounded (about 0.2 s): the
 * dual-homed hierarchy needs 6 million, a 40-router mesh about 25; a graph
 * of hundreds of routers stops early with the crossings undone so far.
 */
const MAX_WORK = 25e6;

const dist = (a: Pt, b: Pt) => hypot(a[0] - b[0], a[1] - b[1]);

/** The median distance from a node to its nearest neighbour. */
function nodeSpacing(at: readonly Pt[]): number {
  const nearest = at.map((p, i) => Math.min(...at.map((q, j) => (i === j ? Infinity : dist(p, q)))));
  return nearest.sort((a, b) => a - b)[Math.floor(at.length / 2)] || 1;
}

/** Moves nodes of `at` (in place) to remove crossings within the budget; returns the crossings left. */
export function untangleWithin(at: Pt[], ends: readonly (readonly [number, number])[], boxes: readonly Box[]): number {
  const n = at.length;
  const edges = ends.filter(([a, b]) => a !== b);
  if (n < 4 || edges.length < 2) return 0;
  const incident: number[][] = Array.from({ length: n }, () => []);
  edges.forEach(([a, b], k) => { incident[a].push(k); incident[b].push(k); });
  const lengths = edges.map(([a, b]) => dist(at[a], at[b]));
  let sum = lengths.reduce((s, x) => s + x, 0), squares = lengths.reduce((s, x) => s + x * x, 0);
  const spreadOf = (s: number, q: number) => { const mean = s / edges.length; return Math.sqrt(Math.max(0, q / edges.length - mean * mean)) / mean; };
  const maxSum = sum * BUDGET.total, maxSpread = spreadOf(sum, squares) * BUDGET.spread;
  const unit = nodeSpacing(at);

  // Crossings of the circuits at v, were v at p, counted up to `limit` (beyond it a place is of no use).
  const star = new StarCrossings(at, edges, 1e-6);
  const neighbours = incident.map((ks, v) => ks.map((k) => (edges[k][0] === v ? edges[k][1] : edges[k][0])));
  const crossingsAt = (v: number, p: Pt, limit = Infinity) => star.count(v, p, neighbours[v], limit);
  const roomy = (v: number, p: Pt, near: number) => {
    for (let j = 0; j < n; j++) {
      if (j === v) continue;
      if (Math.abs(p[0] - at[j][0]) < (boxes[v].w + boxes[j].w) / 2 + GAP && Math.abs(p[1] - at[j][1]) < (boxes[v].h + boxes[j].h) / 2 + GAP) return false;
      if (dist(p, at[j]) < near) return false;
    }
    return true;
  };

  let total = 0;
  edges.forEach(([a, b], k) => {
    for (let f = k + 1; f < edges.length; f++) {
      const [x, y] = edges[f];
      if (x !== a && x !== b && y !== a && y !== b && segmentsCross(at[a], at[b], at[x], at[y])) total++;
    }
  });
  for (let pass = 0; pass < PASSES && total > 0 && star.work < MAX_WORK; pass++) {
    let best: { v: number; p: Pt; gain: number; sum: number; squares: number; score: number } | null = null;
    for (let v = 0; v < n && star.work < MAX_WORK; v++) {
      const now = crossingsAt(v, at[v]);
      if (now === 0) continue;
      // Not nearer to another node than the drawing's spacing allows, or than it already is.
      const near = Math.min(SPACING_KEPT * unit, ...at.map((q, j) => (j === v ? Infinity : dist(at[v], q))));
      const mine = incident[v].map((k) => lengths[k]);
      const centre: Pt = [0, 0];
      for (const k of incident[v]) { const u = edges[k][0] === v ? edges[k][1] : edges[k][0]; centre[0] += at[u][0] / incident[v].length; centre[1] += at[u][1] / incident[v].length; }
      for (const origin of [centre, at[v]]) {
        for (const r of RADII) {
          for (let d = 0; d < (r === 0 ? 1 : DIRECTIONS); d++) {
            const t = (2 * Math.PI * d) / DIRECTIONS;
            const p: Pt = [origin[0] + r * unit * Math.cos(t), origin[1] + r * unit * Math.sin(t)];
            const gain: number = now - crossingsAt(v, p, now - Math.max(1, best?.gain ?? 1) + 1);
            if (gain <= 0 || (best && gain < best.gain)) continue;
            let s = sum, q = squares;
            incident[v].forEach((k, i) => {
              const u = edges[k][0] === v ? edges[k][1] : edges[k][0];
              const l = dist(p, at[u]);
              s += l - mine[i];
              q += l * l - mine[i] * mine[i];
            });
            if (s > maxSum || spreadOf(s, q) > maxSpread || !roomy(v, p, near)) continue;
            const score = s * (1 + spreadOf(s, q));
            if (!best || gain > best.gain || score < best.score) best = { v, p, gain, sum: s, squares: q, score };
          }
        }
      }
    }
    if (!best) break;
    at[best.v] = best.p;
    for (const k of incident[best.v]) lengths[k] = dist(at[edges[k][0]], at[edges[k][1]]);
    ({ sum, squares } = best);
    total -= best.gain;
  }
  return total;
}
