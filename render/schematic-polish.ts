// The last step of a schematic drawing (schematic-drawing.ts): a local
// search over node positions, scored as the quality module scores a
// drawing (layout-quality.ts). The compass order never falls (further)
// short of the one asked for. Compared in order: crossings; how far the
// compass order falls short; then a score of the
// circuits: their total length in node spacings (the median distance to a
// nearest node), times one plus EVENNESS (or the weight asked for) times their coefficient of
// variation, times one plus STRAIGHT times their mean turn off 0/45/90
// degrees. A node moves to the best place tried that is better by that
// order, keeping its box GAP off the others and every circuit off the nodes
// it does not end at. Places tried: its stress target (circuits pulled to
// the mean length, nodes too close pushed off) and part of the way there, a
// ring of steps around it, and, for a node whose circuits cross others,
// places around its neighbours' centre and just beyond each circuit it
// crosses. Sites stay boxes clear of one another and of other routers
// (stress-clusters.ts), as the drawing was placed: a site's routers drawn
// evenly but apart would otherwise open its box over its neighbours, and
// the drawing would be spread until they clear (the North America demo
// came out 7078 px wide, five times the drawing it was polished from).
// Deterministic (nodes in index order, places in a fixed order) and
// bounded: until a pass gains under SETTLED, at most MAX_PASSES passes or
// MAX_WORK segment tests. O(n + degree * edges) a place.
import { compassKeptBy } from './compass-order.ts';
import { segmentMeetsBox } from './drawing-geometry.ts';
import type { Pt } from './paths.ts';
import { apart, routerBox, type Site, siteBox } from './stress-clusters.ts';
import { cross } from './untangle.ts';

type Box = { w: number; h: number };

/** How much the spread of circuit lengths (CV) weighs against their total, by default (as schematic-drawing.ts chooses). */
const EVENNESS = 6;
/** How much circuits off 0/45/90 degrees weigh (their mean turn off it, 1 half way between): a schematic's lines are straight. */
const STRAIGHT = 1.5;
const OCTANT = Math.PI / 4;
/** The least room between two node boxes (px), as stress-drawing.ts places them; a circuit keeps CLEAR px off a node it passes. */
const GAP = 20;
const CLEAR = 3;
/** Nodes not linked are pushed apart when nearer than this, in mean circuit lengths. */
const ROOM = 0.9;
/** Steps tried around a node, in mean circuit lengths, each in STEP_DIRECTIONS directions; and parts of the way to its target. */
const STEPS = [0.04, 0.12, 0.3, 0.6];
const STEP_DIRECTIONS = 8;
const TOWARDS = [1, 0.5, 0.25];
/** Places tried around a crossing node's neighbours' centre, in mean circuit lengths, each in JUMP_DIRECTIONS directions. */
const JUMPS = [0.3, 0.6, 1];
const JUMP_DIRECTIONS = 12;
/** How far beyond a circuit it crosses a node is tried, in mean circuit lengths. */
const ACROSS = [0.25, 0.5];
/** A pass that changes no crossing and no compass pair and gains less than this share of the score ends the search. */
const SETTLED = 0.002;
const MAX_PASSES = 60;
/** Segment and box tests at most (a few tenths of a second). */
const MAX_WORK = 40e6;

const dist = (a: Pt, b: Pt) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/** Whether segment p-q comes into box b around c, grown by CLEAR. */
const passes = (p: Pt, q: Pt, c: Pt, b: Box): boolean => segmentMeetsBox(p, q, c, b, CLEAR);

export interface PolishInput {
  boxes: readonly Box[];
  ends: readonly (readonly [number, number])[];
  /** [lat, lng] per node. */
  geo: readonly Pt[];
  /** Sites drawn as boxes around their routers. */
  sites?: readonly Site[];
}

/** `start` (node centres, px, placed clear) moved node by node as long as that scores better (CV weighing `evenness`); a new array. */
export function polishSchematic(start: readonly Pt[], { boxes, ends, geo, sites = [] }: PolishInput, minCompass: number, evenness = EVENNESS): Pt[] {
  const n = start.length;
  const at = start.map((p): Pt => [p[0], p[1]]);
  const edges = ends.filter(([a, b]) => a !== b);
  if (n < 3 || edges.length === 0) return at;
  const incident: number[][] = Array.from({ length: n }, () => []);
  edges.forEach(([a, b], k) => { incident[a].push(k); incident[b].push(k); });
  const other = (k: number, v: number) => (edges[k][0] === v ? edges[k][1] : edges[k][0]);
  const linked = incident.map((ks, v) => new Set(ks.map((k) => other(k, v))));
  let work = 0;

  // Circuit lengths: each, their sum and sum of squares.
  const len = edges.map(([a, b]) => dist(at[a], at[b]));
  let s1 = len.reduce((s, x) => s + x, 0), s2 = len.reduce((s, x) => s + x * x, 0);
  // Each circuit's turn off its nearest multiple of 45 degrees (0 on it, 1 half way between), and their sum.
  const offOf = (p: Pt, q: Pt) => { const a = Math.atan2(q[1] - p[1], q[0] - p[0]) / OCTANT; return 2 * Math.abs(a - Math.round(a)); };
  const off = edges.map(([a, b]) => offOf(at[a], at[b]));
  let s3 = off.reduce((s, x) => s + x, 0);
  const m = edges.length;
  // Each node's nearest other node and its distance: the node spacing is their median.
  const nearest = new Array<number>(n), near = new Array<number>(n);
  const findNearest = (i: number) => {
    let best = Infinity, who = -1;
    for (let j = 0; j < n; j++) if (j !== i) { const d = dist(at[i], at[j]); if (d < best) { best = d; who = j; } }
    near[i] = best; nearest[i] = who;
  };
  for (let i = 0; i < n; i++) findNearest(i);
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] || 1;
  const scoreOf = (t1: number, t2: number, t3: number, unit: number) => {
    const mean = t1 / m, cv = mean > 0 ? Math.sqrt(Math.max(0, t2 / m - mean * mean)) / mean : 0;
    return (t1 / unit) * (1 + evenness * cv) * (1 + STRAIGHT * (t3 / m));
  };
  let score = scoreOf(s1, s2, s3, median([...near]));

  // Compass order: pairs (and axes) kept, of all.
  let kept = 0, pairs = 0;
  for (let v = 0; v < n; v++) { const c = compassKeptBy(v, at[v], at, geo); kept += c.kept; pairs += c.pairs; }
  kept /= 2; pairs /= 2;
  const need = minCompass * pairs;
  let crossed = 0;
  for (let i = 0; i < edges.length; i++) {
    for (let j = i + 1; j < edges.length; j++) {
      const [a, b] = edges[i], [c, d] = edges[j];
      if (a !== c && a !== d && b !== c && b !== d && cross(at[a], at[b], at[c], at[d])) crossed++;
    }
  }

  const crossingsAt = (v: number, p: Pt, hit?: number[]) => {
    let c = 0;
    for (const k of incident[v]) {
      const q = at[other(k, v)], u = other(k, v);
      const [x0, x1, y0, y1] = [Math.min(p[0], q[0]), Math.max(p[0], q[0]), Math.min(p[1], q[1]), Math.max(p[1], q[1])];
      edges.forEach(([a, b], f) => {
        if (a === v || b === v || a === u || b === u) return;
        const pa = at[a], pb = at[b];
        if ((pa[0] < x0 && pb[0] < x0) || (pa[0] > x1 && pb[0] > x1) || (pa[1] < y0 && pb[1] < y0) || (pa[1] > y1 && pb[1] > y1)) return;
        if (cross(p, q, pa, pb)) { c++; hit?.push(f); }
      });
      work += m;
    }
    return c;
  };
  // Each router's site (-1: none) and each site's box as the routers stand.
  const siteOf = new Int32Array(n).fill(-1);
  sites.forEach((s, k) => { for (const i of s.members) siteOf[i] = k; });
  const siteRects = sites.map((s) => siteBox(s, at, boxes));
  /** The box of v's site were v at p. */
  const siteBoxAt = (v: number, p: Pt) => {
    const was = at[v];
    at[v] = p;
    const box = siteBox(sites[siteOf[v]], at, boxes);
    at[v] = was;
    return box;
  };
  /** Whether v at p keeps every site's box clear of the other sites' boxes and of routers not its own. */
  const sitesClearAt = (v: number, p: Pt) => {
    const mine = siteOf[v], own = routerBox(p, boxes[v]);
    for (let k = 0; k < sites.length; k++) if (k !== mine && !apart(siteRects[k], own)) return false;
    if (mine < 0) return true;
    const box = siteBoxAt(v, p);
    for (let k = 0; k < sites.length; k++) if (k !== mine && !apart(siteRects[k], box)) return false;
    for (let j = 0; j < n; j++) if (siteOf[j] !== mine && !apart(box, routerBox(at[j], boxes[j]))) return false;
    return true;
  };
  /** Whether v can stand at p: boxes apart, its circuits clear of other nodes, other circuits clear of it, sites clear. */
  const clearAt = (v: number, p: Pt) => {
    if (sites.length > 0 && !sitesClearAt(v, p)) return false;
    for (let j = 0; j < n; j++) {
      if (j === v) continue;
      if (Math.abs(p[0] - at[j][0]) < (boxes[v].w + boxes[j].w) / 2 + GAP && Math.abs(p[1] - at[j][1]) < (boxes[v].h + boxes[j].h) / 2 + GAP) return false;
    }
    for (const k of incident[v]) {
      const u = other(k, v);
      for (let j = 0; j < n; j++) if (j !== v && j !== u && passes(p, at[u], at[j], boxes[j])) return false;
    }
    for (const [a, b] of edges) if (a !== v && b !== v && passes(at[a], at[b], p, boxes[v])) return false;
    work += n * (incident[v].length + 1) + m;
    return true;
  };
  /** The score with v at p. */
  const scoreAt = (v: number, p: Pt) => {
    let t1 = s1, t2 = s2, t3 = s3;
    for (const k of incident[v]) {
      const d = dist(p, at[other(k, v)]);
      t1 += d - len[k]; t2 += d * d - len[k] * len[k]; t3 += offOf(p, at[other(k, v)]) - off[k];
    }
    const nn = near.slice();
    let mine = Infinity;
    for (let j = 0; j < n; j++) {
      if (j === v) continue;
      const d = dist(p, at[j]);
      if (d < mine) mine = d;
      if (nearest[j] === v) {
        let best = d;
        for (let k = 0; k < n; k++) if (k !== j && k !== v) best = Math.min(best, dist(at[j], at[k]));
        nn[j] = best;
      } else if (d < nn[j]) nn[j] = d;
    }
    nn[v] = mine;
    return scoreOf(t1, t2, t3, median(nn));
  };
  /** Where the circuits of v would pull it (to the mean length), nodes too close pushing it off. */
  const target = (v: number): Pt | null => {
    const mean = s1 / m;
    let sx = 0, sy = 0, sw = 0;
    const pull = (j: number, d: number) => {
      const dx = at[v][0] - at[j][0], dy = at[v][1] - at[j][1], r = Math.hypot(dx, dy) || 1;
      sx += at[j][0] + (d * dx) / r; sy += at[j][1] + (d * dy) / r; sw++;
    };
    for (const k of incident[v]) pull(other(k, v), mean);
    for (let j = 0; j < n; j++) if (j !== v && !linked[v].has(j) && dist(at[v], at[j]) < ROOM * mean) pull(j, ROOM * mean);
    return sw > 0 ? [sx / sw, sy / sw] : null;
  };

  for (let pass = 0; pass < MAX_PASSES && work < MAX_WORK; pass++) {
    let moved = false;
    const before = { crossed, kept, score };
    for (let v = 0; v < n; v++) {
      if (incident[v].length === 0) continue;
      const here = at[v], step = s1 / m;
      const places: Pt[] = [];
      const t = target(v);
      if (t) for (const f of TOWARDS) places.push([here[0] + f * (t[0] - here[0]), here[1] + f * (t[1] - here[1])]);
      for (const r of STEPS) {
        for (let k = 0; k < STEP_DIRECTIONS; k++) {
          const a = (2 * Math.PI * k) / STEP_DIRECTIONS;
          places.push([here[0] + r * step * Math.cos(a), here[1] + r * step * Math.sin(a)]);
        }
      }
      const hit: number[] = [];
      const crossHere = crossingsAt(v, here, hit), keptHere = compassKeptBy(v, here, at, geo).kept;
      // A node whose circuits cross others also tries places around its neighbours' centre (where a crossing undoes).
      if (crossHere > 0) {
        const c: Pt = [0, 0];
        for (const k of incident[v]) { c[0] += at[other(k, v)][0] / incident[v].length; c[1] += at[other(k, v)][1] / incident[v].length; }
        places.push(c);
        // Across each circuit crossed, just beyond it.
        for (const f of hit) {
          const [a, b] = edges[f], dx = at[b][0] - at[a][0], dy = at[b][1] - at[a][1], l = Math.hypot(dx, dy) || 1;
          const side = ((here[0] - at[a][0]) * -dy + (here[1] - at[a][1]) * dx) / l;
          for (const beyond of ACROSS) places.push([here[0] + (dy / l) * (side + beyond * step * Math.sign(side)), here[1] - (dx / l) * (side + beyond * step * Math.sign(side))]);
        }
        for (const r of JUMPS) {
          for (let k = 0; k < JUMP_DIRECTIONS; k++) {
            const a = (2 * Math.PI * (k + 0.5)) / JUMP_DIRECTIONS;
            places.push([c[0] + r * step * Math.cos(a), c[1] + r * step * Math.sin(a)]);
          }
        }
      }
      // Compared in order: crossings, how far the compass order falls short of the one asked for, the score.
      const crossingsWith = (c: number) => crossed + c - crossHere;
      const shortOf = (k: number) => Math.max(0, need - (kept + k - keptHere));
      let best = { p: here, crossed: crossed, short: shortOf(keptHere), score: score - 1e-9, crossings: crossHere, kept: keptHere };
      const start = best;
      for (const p of places) {
        const k = compassKeptBy(v, p, at, geo).kept, short = shortOf(k);
        // The compass order never falls further short, whatever else a place gains.
        if (short > start.short) continue;
        // No crossing to undo here: a place can only win by adding none and by the order, then the score (the cheaper
        // tests first).
        const cheap = crossHere === 0;
        if (cheap && short > best.short) continue;
        const s = scoreAt(v, p);
        if (cheap && short === best.short && s >= best.score) continue;
        const c = crossingsAt(v, p), total = crossingsWith(c);
        if (total !== best.crossed ? total > best.crossed : short !== best.short ? short > best.short : s >= best.score) continue;
        if (!clearAt(v, p)) continue;
        best = { p, crossed: total, short, score: s, crossings: c, kept: k };
      }
      if (best === start) continue;
      at[v] = best.p;
      if (siteOf[v] >= 0) siteRects[siteOf[v]] = siteBox(sites[siteOf[v]], at, boxes);
      kept += best.kept - keptHere;
      crossed += best.crossings - crossHere;
      for (const k of incident[v]) {
        const d = dist(at[v], at[other(k, v)]);
        s1 += d - len[k]; s2 += d * d - len[k] * len[k]; len[k] = d;
        const o = offOf(at[v], at[other(k, v)]);
        s3 += o - off[k]; off[k] = o;
      }
      for (let j = 0; j < n; j++) if (j === v || nearest[j] === v || dist(at[v], at[j]) < near[j]) findNearest(j);
      score = scoreOf(s1, s2, s3, median([...near]));
      moved = true;
    }
    // Settled: a pass that changes neither crossings nor compass order and gains under SETTLED of the score.
    if (!moved || (crossed === before.crossed && kept === before.kept && score > (1 - SETTLED) * before.score)) break;
  }
  return at;
}
