// Crossing reduction after the stress layout (stress-drawing.ts): stress
// majorization keeps circuits short and alike but leaves crossings a person
// would undo at a glance (a node on the wrong side of a circuit). Each node
// with a crossing circuit tries places around its neighbours' centre and
// around where it is, and moves to the one with the fewest crossings of its
// own circuits, then the shortest circuits, where it comes no nearer than
// half a circuit to another node, no circuit passes close by it, none of its
// circuits grows beyond MAX_STRETCH, and, in a schematic, the drawing keeps
// at least MIN_COMPASS of its pairs in compass order; then two nodes trade
// places where that crosses less. Greedy and deterministic,
// O(passes * n * (candidates + n) * degree * edges), and bounded by work
// counted, not by the clock (MAX_UNTANGLE_WORK): the same graph always gets
// the same drawing, however busy the machine.
import { compassKeptBy } from './compass-order.ts';
import { hypot } from './hypot.ts';
import type { Pt } from './paths.ts';
import { StarCrossings } from './star-crossings.ts';

const PASSES = 8;
/** The least share of pairs kept in compass order (the schematic's promise is 90 %, and a little margin). */
const MIN_COMPASS = 0.92;
/** The longest a moved node's circuits may get, in ideal lengths. */
const MAX_STRETCH = 2.2;
/** The least room between a moved node and another node, and between it and a circuit passing by, in ideal lengths. */
const NODE_ROOM = 0.5;
const LINE_ROOM = 0.25;
const RADII = [0, 0.35, 0.7, 1, 1.4];
/** How much longer two swapped nodes' circuits may get together. */
const SWAP_STRETCH = 1.35;
const DIRECTIONS = 16;

const EPS = 1e-9;
const side = (o: Pt, a: Pt, b: Pt) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
/** Whether segments p1-p2 and q1-q2 properly cross, within EPS (the schematic polish counts with it too). */
export const cross = (p1: Pt, p2: Pt, q1: Pt, q2: Pt) => {
  const d1 = side(q1, q2, p1), d2 = side(q1, q2, p2), d3 = side(p1, p2, q1), d4 = side(p1, p2, q2);
  return ((d1 > EPS && d2 < -EPS) || (d1 < -EPS && d2 > EPS)) && ((d3 > EPS && d4 < -EPS) || (d3 < -EPS && d4 > EPS));
};
/** Distance from p to segment a-b. */
function toSegment(p: Pt, a: Pt, b: Pt): number {
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
  const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy || 1)));
  return hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

/**
 * The most circuit pairs one untangling looks at (StarCrossings.work): the
 * bound on its time, counted in work so the drawing does not depend on the
 * machine. The corpus's graphs need under 2 million, a generated 120-router
 * mesh 18 million; 20 million take about 0.25 s. Beyond the bound no
 * further move or swap is tried and the drawing keeps the crossings undone
 * so far.
 */
const MAX_UNTANGLE_WORK = 20e6;

/**
 * Moves nodes of `at` (in place) to remove crossings; `geo` ([lat, lng] per
 * node) bounds the compass order given up. Returns the circuit pairs looked
 * at: at most `maxWork`, and what one node's candidates or swaps take.
 */
export function untangle(at: Pt[], ends: readonly (readonly [number, number])[], length: number, geo?: readonly Pt[], maxWork = MAX_UNTANGLE_WORK): number {
  const n = at.length;
  const edges = ends.filter(([a, b]) => a !== b);
  const incident: number[][] = Array.from({ length: n }, () => []);
  edges.forEach(([a, b], k) => { incident[a].push(k); incident[b].push(k); });
  const neighbours = incident.map((ks, v) => ks.map((k) => (edges[k][0] === v ? edges[k][1] : edges[k][0])));
  let kept = 0, pairs = 0;
  if (geo) at.forEach((p, v) => { const c = compassKeptBy(v, p, at, geo); kept += c.kept; pairs += c.pairs; });
  // Each pair is counted from both ends above: a move changes v's pairs on both sides, so twice its own count.

  const star = new StarCrossings(at, edges, EPS);
  /** Crossings of v's circuits were v at p, counted up to `limit`. */
  const crossingsAt = (v: number, p: Pt, limit = Infinity) => star.count(v, p, neighbours[v], limit);
  const lengthAt = (v: number, p: Pt) => neighbours[v].reduce((s, u) => s + hypot(p[0] - at[u][0], p[1] - at[u][1]), 0);
  // Each test passes over what lies further than its distance along an axis (no nearer then, whatever the other axis).
  const nodeRoom = NODE_ROOM * length, lineRoom = LINE_ROOM * length, reach = lineRoom + 1e-6;
  const nearSegment = (p: Pt, a: Pt, b: Pt) => !(p[0] < Math.min(a[0], b[0]) - reach || p[0] > Math.max(a[0], b[0]) + reach
    || p[1] < Math.min(a[1], b[1]) - reach || p[1] > Math.max(a[1], b[1]) + reach) && toSegment(p, a, b) < lineRoom;
  const roomy = (v: number, p: Pt) => {
    for (const u of neighbours[v]) if (hypot(p[0] - at[u][0], p[1] - at[u][1]) > MAX_STRETCH * length) return false;
    for (let j = 0; j < n; j++) {
      if (j === v || Math.abs(p[0] - at[j][0]) >= nodeRoom + 1e-6 || Math.abs(p[1] - at[j][1]) >= nodeRoom + 1e-6) continue;
      if (hypot(p[0] - at[j][0], p[1] - at[j][1]) < nodeRoom) return false;
    }
    for (const [a, b] of edges) if (a !== v && b !== v && nearSegment(p, at[a], at[b])) return false;
    // Its own circuits clear of the other nodes.
    for (const u of neighbours[v]) for (let j = 0; j < n; j++) if (j !== v && j !== u && nearSegment(at[j], p, at[u])) return false;
    return true;
  };

  // Crossings of the circuits at `vs` with any circuit, each pair once, counted up to `limit`.
  const crossingsOf = (vs: number[], limit = Infinity) => star.among(vs.flatMap((v) => incident[v]), limit);
  // Two nodes trading places (a pair of access routers on the wrong sides), where that crosses less, keeps the
  // compass order within budget and lengthens their circuits by at most a third. The cheap tests come first:
  // most pairs are far apart, and trading them would stretch their circuits too far.
  const swapped = () => {
    let any = false;
    for (let v = 0; v < n && star.work < maxWork; v++) {
      if (neighbours[v].length === 0 || crossingsAt(v, at[v], 1) === 0) continue;
      for (let w = 0; w < n; w++) {
        if (w === v || neighbours[w].length === 0) continue;
        const [pv, pw] = [at[v], at[w]];
        const length = lengthAt(v, pv) + lengthAt(w, pw);
        at[v] = pw; at[w] = pv;
        const longer = lengthAt(v, at[v]) + lengthAt(w, at[w]) > length * SWAP_STRETCH;
        at[v] = pv; at[w] = pw;
        if (longer) continue;
        const before = crossingsOf([v, w]);
        const keptBefore = geo ? compassKeptBy(v, pv, at, geo).kept + compassKeptBy(w, pw, at, geo).kept : 0;
        at[v] = pw; at[w] = pv;
        const keptAfter = geo ? compassKeptBy(v, pw, at, geo).kept + compassKeptBy(w, pv, at, geo).kept : 0;
        const ok = (!geo || (kept + 2 * (keptAfter - keptBefore)) / pairs >= MIN_COMPASS) && crossingsOf([v, w], before) < before;
        if (!ok) { at[v] = pv; at[w] = pw; continue; }
        kept += 2 * (keptAfter - keptBefore);
        any = true;
        break;
      }
    }
    return any;
  };

  for (let pass = 0; pass < PASSES && star.work < maxWork; pass++) {
    let improved = false;
    for (let v = 0; v < n && star.work < maxWork; v++) {
      if (neighbours[v].length === 0) continue;
      let best = crossingsAt(v, at[v]);
      if (best === 0) continue;
      let bestLength = Infinity, bestAt: Pt | null = null;
      const centre: Pt = [0, 0];
      for (const u of neighbours[v]) { centre[0] += at[u][0] / neighbours[v].length; centre[1] += at[u][1] / neighbours[v].length; }
      // v stays where it is while its candidates are weighed: its own compass order there is counted once.
      const keptHere = geo ? compassKeptBy(v, at[v], at, geo).kept : 0;
      for (const origin of [centre, at[v]]) {
        for (const r of RADII) {
          for (let k = 0; k < (r === 0 ? 1 : DIRECTIONS); k++) {
            const t = (2 * Math.PI * k) / DIRECTIONS;
            const p: Pt = [origin[0] + r * length * Math.cos(t), origin[1] + r * length * Math.sin(t)];
            // More crossings than the best so far: of no use (counted no further than that).
            const c = crossingsAt(v, p, best + 1);
            if (c > best) continue;
            const len = lengthAt(v, p);
            if (c === best && (bestAt === null || len >= bestLength)) continue;
            if (geo && (kept + 2 * (compassKeptBy(v, p, at, geo).kept - keptHere)) / pairs < MIN_COMPASS) continue;
            if (!roomy(v, p)) continue;
            if (c < best || bestAt !== null) { best = c; bestLength = len; bestAt = p; }
          }
        }
      }
      if (bestAt) {
        if (geo) kept += 2 * (compassKeptBy(v, bestAt, at, geo).kept - keptHere);
        at[v] = bestAt;
        improved = true;
      }
    }
    if (swapped()) improved = true;
    if (!improved) break;
  }
  return star.work;
}
