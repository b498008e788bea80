// A logical drawing by stress layout (stress-layout.ts), in the shape ELK's
// drawings have (layout-thread.mjs LayoutResult: node boxes, edge routes),
// so logical-layout.ts can weigh it against ELK's and keep the better:
// straight circuits centre to centre, nodes spaced so no two boxes come
// closer than GAP, or no drawing (null) when a circuit would pass through a
// node it does not end at.
import { keepCompassOrder } from './compass-order.ts';
import { type Drawing, type P, type Rect, segmentMeetsBox } from './drawing-geometry.ts';
import type { LayoutResult } from './layout-thread.mjs';
import { quality } from './layout-quality.ts';
import { octilinear } from './octilinear.ts';
import type { Pt } from './paths.ts';
import { routeCrossings } from './route-crossings.ts';
import { arrangeSites } from './site-arrangement.ts';
import { spreadOrSeparate } from './site-separation.ts';
import { routerBox, type Site, siteBoxes } from './stress-clusters.ts';
import { COMPASS_GAP, type Start, stressLayout } from './stress-layout.ts';
import { untangle } from './untangle.ts';
import { untangleWithin } from './untangle-within.ts';

/** Ideal circuit length and the least room between two node boxes (px), as ELK's spacing. */
const LENGTH = 70;
const GAP = 20;
const MARGIN = 12;
/** A drawing taller than wide (ASPECT[0]) is stretched wider to ASPECT[1], no further: stretching lengthens circuits. A wide one is left as it is. */
const ASPECT = [1, 1.1];

export type Box = { w: number; h: number };

/** Whether segment p-q enters box b (centre c, shrunk by 1 px: grazing is not through). */
const enters = (p: Pt, q: Pt, c: Pt, b: Box): boolean => segmentMeetsBox(p, q, c, b, -1);

/**
 * The most a schematic may be spread to part two nodes it brought together:
 * beyond it the whole drawing would grow for one pair (the Europe demo
 * dataset came out 2252 px wide for 20 nodes), and the stress drawing is
 * kept instead.
 */
const MAX_SCHEMATIC_SCALE = 1.5;

/** Rounds of nudging nodes off the circuits that pass through them. */
const NUDGES = 30;

/**
 * Nudges each node a circuit passes through off it, across the circuit, just
 * far enough for its box to clear the line (neato leaves such crossings as
 * they are); true when no circuit passes through a node and no two boxes
 * overlap afterwards.
 */
function clearPaths(c: Pt[], boxes: readonly Box[], ends: readonly (readonly [number, number])[]): boolean {
  const n = c.length;
  for (let round = 0; round < NUDGES; round++) {
    let hit = false;
    for (const [a, b] of ends) {
      for (let k = 0; k < n; k++) {
        if (k === a || k === b || !enters(c[a], c[b], c[k], boxes[k])) continue;
        hit = true;
        const [dx, dy] = [c[b][0] - c[a][0], c[b][1] - c[a][1]];
        const len = Math.hypot(dx, dy) || 1;
        let [nx, ny] = [-dy / len, dx / len];
        const side = (c[k][0] - c[a][0]) * nx + (c[k][1] - c[a][1]) * ny;
        if (side < 0) [nx, ny] = [-nx, -ny];
        // Far enough that the box's nearest corner clears the line, plus a little.
        const reach = (Math.abs(nx) * boxes[k].w + Math.abs(ny) * boxes[k].h) / 2 + 4;
        const by = reach - Math.abs(side);
        c[k] = [c[k][0] + nx * by, c[k][1] + ny * by];
      }
    }
    if (!hit) break;
  }
  for (const [a, b] of ends) for (let k = 0; k < n; k++) if (k !== a && k !== b && enters(c[a], c[b], c[k], boxes[k])) return false;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (Math.abs(c[i][0] - c[j][0]) < (boxes[i].w + boxes[j].w) / 2 && Math.abs(c[i][1] - c[j][1]) < (boxes[i].h + boxes[j].h) / 2) return false;
    }
  }
  return true;
}

/** The factor that spreads `at` evenly until no two boxes come within GAP of each other (a scale keeps angles and compass order). */
function spreadScale(at: readonly Pt[], boxes: readonly Box[]): number {
  let scale = 1;
  for (let i = 0; i < at.length; i++) {
    for (let j = i + 1; j < at.length; j++) {
      const dx = Math.abs(at[i][0] - at[j][0]), dy = Math.abs(at[i][1] - at[j][1]);
      const needX = (boxes[i].w + boxes[j].w) / 2 + GAP, needY = (boxes[i].h + boxes[j].h) / 2 + GAP;
      const s = Math.min(dx > 1e-9 ? needX / dx : Infinity, dy > 1e-9 ? needY / dy : Infinity);
      if (Number.isFinite(s)) scale = Math.max(scale, s);
    }
  }
  return scale;
}

export const straightCrossings = (at: readonly Pt[], ends: readonly (readonly [number, number])[]) =>
  routeCrossings(ends as [number, number][], Object.fromEntries(ends.map(([a, b], i) => [`e${i}`, [at[a], at[b]]])));

/**
 * Positions spread apart, shifted to start at MARGIN, with every circuit
 * clear of the nodes it does not end at; null when that cannot be had.
 */
export function placed(at: readonly Pt[], boxes: readonly Box[], ends: readonly (readonly [number, number])[], maxScale = Infinity): Pt[] | null {
  const scale = spreadScale(at, boxes);
  if (scale > maxScale) return null;
  const x0 = Math.min(...at.map((p, i) => p[0] * scale - boxes[i].w / 2)) - MARGIN;
  const y0 = Math.min(...at.map((p, i) => p[1] * scale - boxes[i].h / 2)) - MARGIN;
  const c = at.map((p): Pt => [p[0] * scale - x0, p[1] * scale - y0]);
  return clearPaths(c, boxes, ends) ? c : null;
}

/** Width over height of the box around `at`. */
function aspectOf(at: readonly Pt[]): number {
  const span = (k: 0 | 1) => Math.max(...at.map((p) => p[k])) - Math.min(...at.map((p) => p[k]));
  return span(0) / Math.max(span(1), 1e-9);
}

/** `at`, stretched sideways in place to ASPECT[1] when it is taller than ASPECT[0] allows. */
export function widen(at: Pt[]): Pt[] {
  const aspect = aspectOf(at);
  if (aspect < ASPECT[0]) for (const p of at) p[0] *= ASPECT[1] / aspect;
  return at;
}

/** `at`, stretched upwards in place to `widest` when it is wider than that (a strip reads badly on a dashboard panel). */
export function narrow(at: Pt[], widest: number): Pt[] {
  const aspect = aspectOf(at);
  if (aspect > widest) for (const p of at) p[1] *= aspect / widest;
  return at;
}

/** What the stress drawing needs of a graph: node sizes, circuits (node indices), coordinates and sites, if any. */
export interface StressInput {
  boxes: readonly Box[];
  ends: readonly (readonly [number, number])[];
  /** [lat, lng] per node, when every node has one: the drawing becomes a schematic. */
  geo?: readonly Pt[];
  /** Sites (groups of routers, one level), drawn as boxes `g0`, `g1`… around their routers. */
  sites?: readonly Site[];
}

/** One drawing from one start, or null when it cannot be placed clear. */
function drawFrom({ start, order, within }: Candidate, { boxes, ends, geo, sites = [] }: StressInput): Pt[] | null {
  const site = boxes.map(() => -1);
  sites.forEach((s, k) => { for (const m of s.members) site[m] = k; });
  const at = stressLayout(boxes.length, ends, LENGTH, { start, geo, site, order });
  if (within) untangleWithin(at, ends, boxes);
  else untangle(at, ends, LENGTH, geo);
  arrangeSites(at, ends, site, geo);
  // A dashboard is wider than tall: a tall drawing is stretched sideways, which keeps the compass order and every
  // crossing as it was, and only ever moves nodes apart.
  widen(at);
  const place = (p: Pt[]) => placed(p, boxes, ends);
  // With geography, the schematic: circuits straightened towards 0/45/90 degrees (octilinear.ts), in compass order,
  // kept where that adds no crossing and the nodes can still be placed clear of the circuits (widened again if it
  // came out tall: its level and upright circuits stay so).
  if (geo) {
    const schematic = widen(octilinear(at, ends, (c) => keepCompassOrder(c, geo, COMPASS_GAP * LENGTH, order)));
    arrangeSites(schematic, ends, site, geo);
    if (straightCrossings(schematic, ends) <= straightCrossings(at, ends)) {
      const c = spreadOrSeparate(schematic, boxes, sites, (p) => placed(p, boxes, ends, MAX_SCHEMATIC_SCALE), (p) => straightCrossings(p, ends));
      if (c) return c;
    }
  }
  return spreadOrSeparate(at, boxes, sites, place, (p) => straightCrossings(p, ends));
}

/** The drawing as ELK's layouts come (nodes `n<i>`, sites `g<k>`, straight routes `e<k>`), shifted to start at MARGIN. */
export function result(c: Pt[], { boxes, ends, sites = [] }: StressInput): LayoutResult {
  const rects: Record<string, [number, number, number, number]> = {};
  c.forEach((p, i) => { rects[`n${i}`] = routerBox(p, boxes[i]); });
  siteBoxes(c, boxes, sites).forEach((r, k) => { rects[`g${k}`] = r; });
  const all = Object.values(rects);
  const x0 = Math.min(...all.map((r) => r[0])) - MARGIN, y0 = Math.min(...all.map((r) => r[1])) - MARGIN;
  const out: LayoutResult = { width: 0, height: 0, nodes: {}, routes: {} };
  for (const [id, [x, y, w, h]] of Object.entries(rects)) {
    out.nodes[id] = [x - x0, y - y0, w, h];
    out.width = Math.max(out.width, x - x0 + w + MARGIN);
    out.height = Math.max(out.height, y - y0 + h + MARGIN);
  }
  ends.forEach((_, k) => { out.routes[`e${k}`] = []; });
  return out;
}

/**
 * Where a drawing starts and how firmly a schematic holds compass order: all
 * the way keeps every pair but lengthens circuits (1.8x neato's total on
 * GÉANT); softer orders give some pairs up for shorter, more even circuits.
 */
type Candidate = { start: Start; order: number; within?: boolean };
const SCHEMATICS: Candidate[] = [1, 0.7, 0.5, 0.35, 0.25, 0.1, 0].map((order) => ({ start: 'geography', order }));
const DRAWINGS: Candidate[] = (['scaling', 'circle'] as const).flatMap((start) => [{ start, order: 0 }, { start, order: 0, within: true }]);
/** The least share of pairs a schematic keeps in compass order (its promise is 90 %). */
const MIN_COMPASS = 0.905;

/**
 * The stress drawing of a graph: from the geography when it has one (a
 * schematic, at several strengths of compass order), else from classical
 * scaling and from a circle. Each is measured by the quality module: of
 * those with no edge through a node (and, in a schematic, MIN_COMPASS of
 * its pairs in order), the one with the fewest crossings is kept, then the
 * shortest and most even circuits; a schematic with its compass order free
 * is kept only with fewer crossings than all of those (GÉANT: 6 against
 * 21). Without coordinates, crossings count only among drawings whose
 * circuits are short (keptShort). Null when none can be placed clear.
 */
export function stressDrawing(input: StressInput): LayoutResult | null {
  const { geo, ends } = input;
  const places = geo ? new Map(geo.map((g, i) => [`n${i}`, g as [number, number]])) : undefined;
  let best: Measured | null = null;
  const drawn: Measured[] = [];
  for (const candidate of geo ? SCHEMATICS : DRAWINGS) {
    const c = drawFrom(candidate, input);
    if (!c) continue;
    const out = result(c, input);
    const q = quality(layoutDrawing(out, ends), places);
    if (q.through > 0) continue;
    // Compass order free (order 0): kept only for fewer crossings than every drawing in order (crossings matter most).
    if (q.compassKept !== null && q.compassKept < MIN_COMPASS && !(candidate.order === 0 && best && q.crossings < best.crossings)) continue;
    const length = q.totalLength * (1 + q.lengthCv);
    if (!geo) drawn.push({ out, crossings: q.crossings, length });
    else if (!best || q.crossings < best.crossings || (q.crossings === best.crossings && length < best.length)) best = { out, crossings: q.crossings, length };
  }
  return (geo ? best : keptShort(drawn))?.out ?? null;
}

type Measured = { out: LayoutResult; crossings: number; length: number };

/**
 * How much longer (total length x (1 + CV)) than the shortest drawing a
 * drawing without coordinates may be and still win by fewer crossings:
 * crossings matter most, but a drawing whose circuits are a half longer and
 * twice as uneven reads worse (the dual-homed hierarchy: 2 crossings at
 * 1.8x neato's total length, against 12, neato's own count, at 1.1x).
 */
const LENGTH_SLACK = 1.25;

/** Of the drawings within LENGTH_SLACK of the shortest, the one with the fewest crossings, then the shortest. */
function keptShort(drawn: Measured[]): Measured | null {
  const shortest = Math.min(...drawn.map((d) => d.length));
  let best: Measured | null = null;
  for (const d of drawn) {
    if (d.length > shortest * LENGTH_SLACK) continue;
    if (!best || d.crossings < best.crossings || (d.crossings === best.crossings && d.length < best.length)) best = d;
  }
  return best;
}

/** A laid-out graph as the quality module reads drawings (nodes `n<i>`, edges `e<k>` from centre to centre through their routes). */
export function layoutDrawing(out: LayoutResult, ends: readonly (readonly [number, number])[]): Drawing {
  const nodes = new Map<string, Rect>();
  for (const [id, [x, y, w, h]] of Object.entries(out.nodes)) if (id.startsWith('n')) nodes.set(id, { x, y, w, h });
  const centre = (i: number): P => { const r = nodes.get(`n${i}`)!; return [r.x + r.w / 2, r.y + r.h / 2]; };
  const lines = ends.map(([a, b], k) => ({ a: `n${a}`, b: `n${b}`, pts: [centre(a), ...(out.routes[`e${k}`] ?? []), centre(b)] }));
  return { nodes, lines, clusters: new Map(), width: out.width, height: out.height };
}
