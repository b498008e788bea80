// The schematic drawing of a graph whose nodes all have coordinates
// (logical-layout.ts): positions from schematic-layout.ts, each placed clear
// of its circuits with its sites as boxes (stress-drawing.ts,
// stress-clusters.ts) and measured by the quality module. Candidates: the
// stress drawing (stress-drawing.ts, few crossings) with its circuits evened
// out and straightened without adding a crossing, and the geography evened
// out at a few strengths of compass order, then untangled and evened out
// again. Of those with no edge through a node and at least MIN_COMPASS of
// their pairs in compass order, the one with the fewest crossings is kept,
// then the shortest and most even circuits; the stress drawing itself
// competes too, so the schematic is never worse by those measures.
import type { LayoutResult } from './layout-thread.mjs';
import { type Quality, quality } from './layout-quality.ts';
import type { Pt } from './paths.ts';
import { schematicLayout } from './schematic-layout.ts';
import { spreadOrSeparate } from './site-separation.ts';
import { layoutDrawing, placed, result, type StressInput, straightCrossings, widen } from './stress-drawing.ts';
import { untangle } from './untangle.ts';

const LENGTH = 70;
/** How much the spread of circuit lengths (CV) weighs against their total. */
const EVENNESS = 6;
/** The least share of pairs kept in compass order (the schematic's promise is 90 %). */
const MIN_COMPASS = 0.905;
/** Strengths of compass order tried, from the stress drawing and from the geography. */
const REFINE_ORDERS = [1, 0.2, 0.1, 0.05];
/** Room between nodes tried (circuit lengths): a star needs less, a sparse backbone reads better with more. */
const ROOMS = [0.75, 1];
/** How much longer or less even than the stress drawing's a schematic's circuits may be. */
const STRETCH = 1.15;
/** Rounds from a start already settled (the stress drawing, an untangled one): a third of a full layout's. */
const REFINE_ROUNDS = 120;
const GEOGRAPHY_ORDERS = [0.2, 0.1];

/** Node centres of a drawing, scaled so its median circuit is LENGTH long. */
function centres(out: LayoutResult, ends: readonly (readonly [number, number])[]): Pt[] {
  const c = Object.keys(out.nodes).filter((id) => id.startsWith('n')).map((id): Pt => {
    const [x, y, w, h] = out.nodes[id];
    return [x + w / 2, y + h / 2];
  });
  const ids = Object.keys(out.nodes).filter((id) => id.startsWith('n')).map((id) => Number(id.slice(1)));
  const at: Pt[] = [];
  ids.forEach((i, k) => { at[i] = c[k]; });
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
  const consider = (out: LayoutResult) => {
    const q = quality(layoutDrawing(out, ends), places);
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
    for (const room of ROOMS) {
      for (const order of REFINE_ORDERS) place(schematicLayout(geo, ends, LENGTH, { order, octilinear: 1, site, from, room, keepCrossings: true, rounds: REFINE_ROUNDS }));
    }
  }
  for (const order of GEOGRAPHY_ORDERS) {
    const at = schematicLayout(geo, ends, LENGTH, { order, octilinear: 1, site });
    untangle(at, ends, LENGTH, geo);
    place(schematicLayout(geo, ends, LENGTH, { order, octilinear: 1, site, from: at, keepCrossings: true, rounds: REFINE_ROUNDS }));
  }
  // The stress drawing out of compass order is still kept where it crosses less than every schematic (crossings matter most).
  const found = best as { out: LayoutResult; crossings: number } | null;
  return found && (stressCrossings === null || found.crossings <= stressCrossings) ? found.out : stress;
}
