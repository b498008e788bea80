// The schematic drawing of a graph whose nodes all have coordinates
// (logical-layout.ts): positions from schematic-layout.ts, each placed clear
// of its circuits with its sites as boxes (stress-drawing.ts,
// stress-clusters.ts) and measured by the quality module. Candidates: the
// stress drawing (stress-drawing.ts, few crossings) with its circuits evened
// out and straightened without adding a crossing, and the geography evened
// out at a few strengths of compass order, then untangled and evened out
// again. The most promising two (fewest crossings, then shortest) are then
// polished node by node (schematic-polish.ts: crossings, compass order,
// short, even and straight circuits), the first also with even circuits
// weighing most. Of all those with no edge through a
// node and at least MIN_COMPASS of their pairs in compass order, the one
// with the fewest crossings is kept, then the shortest and most even
// circuits; the stress drawing itself competes too, so the schematic is
// never worse by those measures.
import type { LayoutResult } from './layout-thread.mjs';
import { type Quality, quality } from './layout-quality.ts';
import type { Pt } from './paths.ts';
import { polishSchematic } from './schematic-polish.ts';
import { schematicLayout } from './schematic-layout.ts';
import { spreadOrSeparate } from './site-separation.ts';
import { layoutDrawing, narrow, placed, result, type StressInput, straightCrossings, widen } from './stress-drawing.ts';
import { untangle } from './untangle.ts';

const LENGTH = 70;
/** How much the spread of circuit lengths (CV) weighs against their total. */
const EVENNESS = 6;
/** The least share of pairs kept in compass order (the schematic's promise is 90 %). */
const MIN_COMPASS = 0.905;
/**
 * Strengths of compass order tried from the stress drawing, and from the
 * geography: the polish evens out what these leave, so two starts from the
 * stress drawing and one from the geography do what four times as many did
 * before it (and in less time: GÉANT 1.1 s to 0.8 s of CPU).
 */
const REFINE_ORDERS = [1, 0.1];
const GEOGRAPHY_ORDER = 0.2;
/** Room between nodes not linked, in circuit lengths (the polish spaces them further where that evens them out). */
const ROOM = 0.75;
/** How much longer or less even than the stress drawing's a schematic's circuits may be. */
const STRETCH = 1.15;
/** Rounds from a start already settled (the stress drawing, an untangled one): a third of a full layout's. */
const REFINE_ROUNDS = 120;
/** The widest a polished drawing's node centres may lie (width over height); the polish may spread one sideways into a strip. */
const WIDEST = 1.6;
/** Drawings polished, the most promising first. */
const POLISHED = 2;
/**
 * Weights of evenness (against the circuits' total and straightness) the polish climbs with: the schematic's own
 * for every drawing polished, and for the most promising one also a ladder of weights where even circuits count
 * more. North America, its sites kept clear while it is polished: CV 0.149 with [6, 24], 0.135 with [6, 24, 60],
 * 0.098 with this ladder, where neato's is 0.11 (about 0.3 s more).
 */
const POLISH_EVENNESS = [6, 12, 24, 48];

/** Node centres of a drawing (px), by node index. */
function nodeCentres(out: LayoutResult): Pt[] {
  const at: Pt[] = [];
  for (const [id, [x, y, w, h]] of Object.entries(out.nodes)) if (id.startsWith('n')) at[Number(id.slice(1))] = [x + w / 2, y + h / 2];
  return at;
}

/** Node centres of a drawing, scaled so its median circuit is LENGTH long. */
function centres(out: LayoutResult, ends: readonly (readonly [number, number])[]): Pt[] {
  const at = nodeCentres(out);
  const spans = ends.filter(([a, b]) => a !== b).map(([a, b]) => Math.hypot(at[a][0] - at[b][0], at[a][1] - at[b][1])).sort((a, b) => a - b);
  const scale = LENGTH / (spans[Math.floor(spans.length / 2)] || LENGTH);
  return at.map(([x, y]): Pt => [x * scale, y * scale]);
}

export function schematicDrawing(input: StressInput & { geo: readonly Pt[] }, stress: LayoutResult | null): LayoutResult | null {
  const { boxes, ends, geo, sites = [] } = input;
  const site = boxes.map(() => -1);
  sites.forEach((s, k) => { for (const m of s.members) site[m] = k; });
  const places = new Map(geo.map((g, i) => [`n${i}`, g as [number, number]]));
  let best: { out: LayoutResult; crossings: number; length: number } | null = null;
  // Every drawing placed clear, for the polish (schematic-polish.ts): ranked by crossings, then length.
  const drawn: { out: LayoutResult; crossings: number; length: number }[] = [];
  const consider = (out: LayoutResult) => {
    const q = quality(layoutDrawing(out, ends), places);
    if (q.through === 0) drawn.push({ out, crossings: q.crossings, length: q.totalLength * (1 + EVENNESS * q.lengthCv) });
    if (q.through > 0 || (q.compassKept ?? 1) < MIN_COMPASS) return;
    // Fewer crossings bought with much longer or less even circuits than the stress drawing's read worse (GÉANT: 3
    // crossings against 6, but circuits twice as long and three times as uneven).
    if (limit && (q.totalLength > STRETCH * limit.totalLength || q.lengthCv > STRETCH * limit.lengthCv)) return;
    // Short and even circuits, evenness weighing more (a metro map's circuits are alike).
    const length = q.totalLength * (1 + EVENNESS * q.lengthCv);
    if (!best || q.crossings < best.crossings || (q.crossings === best.crossings && length < best.length)) best = { out, crossings: q.crossings, length };
  };
  // A dashboard is wider than tall: a tall drawing is stretched sideways (as the stress drawing is).
  const place = (at: Pt[]) => {
    const c = spreadOrSeparate(widen(at), boxes, sites, (p) => placed(p, boxes, ends), (p) => straightCrossings(p, ends));
    if (c) consider(result(c, input));
  };
  let stressCrossings: number | null = null, limit: Quality | null = null;
  if (stress) {
    limit = quality(layoutDrawing(stress, ends));
    stressCrossings = limit.crossings;
    consider(stress);
    const from = centres(stress, ends);
    for (const order of REFINE_ORDERS) place(schematicLayout(geo, ends, LENGTH, { order, octilinear: 1, site, from, room: ROOM, keepCrossings: true, rounds: REFINE_ROUNDS }));
  }
  const at = schematicLayout(geo, ends, LENGTH, { order: GEOGRAPHY_ORDER, octilinear: 1, site });
  untangle(at, ends, LENGTH, geo);
  place(schematicLayout(geo, ends, LENGTH, { order: GEOGRAPHY_ORDER, octilinear: 1, site, from: at, keepCrossings: true, rounds: REFINE_ROUNDS }));
  // The most promising drawings polished: the polish only ever lowers crossings, then climbs to the compass order
  // asked for, then shortens and evens out the circuits (and straightens them towards 0/45/90 degrees).
  drawn.sort((a, b) => a.crossings - b.crossings || a.length - b.length);
  for (const [rank, { out }] of drawn.slice(0, POLISHED).entries()) {
    for (const evenness of rank === 0 ? POLISH_EVENNESS : POLISH_EVENNESS.slice(0, 1)) {
      const c = narrow(polishSchematic(nodeCentres(out), input, MIN_COMPASS, evenness), WIDEST);
      const p = spreadOrSeparate(c, boxes, sites, (at) => placed(at, boxes, ends), (at) => straightCrossings(at, ends));
      if (p) consider(result(p, input));
    }
  }
  // The stress drawing out of compass order is still kept where it crosses less than every schematic (crossings matter most).
  const found = best as { out: LayoutResult; crossings: number } | null;
  return found && (stressCrossings === null || found.crossings <= stressCrossings) ? found.out : stress;
}
