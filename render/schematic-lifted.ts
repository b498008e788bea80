// A second chance for a schematic that would lose to the layered drawing
// on crossings (logical-layout.ts): the geography with the units whose
// circuits cross moved across the drawing (relocate.ts), then evened out at
// a few strengths of compass order without a crossing more
// (schematic-layout.ts, keepCrossings), placed with its sites clear. A
// ring whose closing circuit runs back across the whole geography has one
// crossing in every schematic drawn from it, and none once the node at
// that circuit's end is lifted above the rest; left to the layered
// drawing, such circuits were 2.3x neato's (measured on the Exchange points
// demo while graphs round the world were still drawn as schematics;
// compass-order.ts). Tried only there, and kept only with fewer crossings
// than the usual schematic and circuits no longer and no less even than
// the layered drawing's it would replace: elsewhere a crossing less bought this way
// costs more than it gives (SURFnet: 0 crossings but 1.4x neato's length,
// against 1 crossing, neato's own count, at 1.2x; the generated mesh: 9
// crossings against 10, but its CV doubled). Of the drawings with no edge
// through a node and MIN_COMPASS of their pairs in compass order, the
// fewest crossings, then the shortest and most even circuits.
import type { LayoutResult } from './layout-thread.mjs';
import { quality } from './layout-quality.ts';
import type { Pt } from './paths.ts';
import { relocate } from './relocate.ts';
import { EVENNESS, LENGTH, MIN_COMPASS } from './schematic-drawing.ts';
import { schematicLayout } from './schematic-layout.ts';
import { spreadOrSeparate } from './site-separation.ts';
import { layoutDrawing, placed, result, type StressInput, straightCrossings, widen } from './stress-drawing.ts';

/** Strengths of compass order the lifted geography is evened out at. */
const ORDERS = [1, 0.5, 0.2];
const ROUNDS = 120;

/**
 * The lifted schematic, where it crosses less than `than` (the schematic
 * drawn as usual) with circuits no longer and no less even than those of
 * `instead`, the drawing it would replace (the layered one; `than` itself
 * when not given); else null.
 */
export function liftedSchematic(input: StressInput & { geo: readonly Pt[] }, than: LayoutResult, instead: LayoutResult = than): LayoutResult | null {
  const { boxes, ends, geo, sites = [] } = input;
  const crossings = quality(layoutDrawing(than, ends)).crossings;
  const limit = quality(layoutDrawing(instead, ends));
  const site = boxes.map(() => -1);
  sites.forEach((s, k) => { for (const m of s.members) site[m] = k; });
  // The geography as the schematic layout starts from it (no rounds), then the crossed units moved.
  const lifted = schematicLayout(geo, ends, LENGTH, { order: 1, octilinear: 0, site, rounds: 0 });
  if (!relocate(lifted, ends, LENGTH, site, geo)) return null;
  const places = new Map(geo.map((g, i) => [`n${i}`, g as [number, number]]));
  let best: { out: LayoutResult; crossings: number; cost: number } | null = null;
  for (const order of ORDERS) {
    const at = widen(schematicLayout(geo, ends, LENGTH, { order, octilinear: 1, site, from: lifted, keepCrossings: true, rounds: ROUNDS }));
    const c = spreadOrSeparate(at, boxes, sites, (p) => placed(p, boxes, ends), (p) => straightCrossings(p, ends));
    if (!c) continue;
    const out = result(c, input);
    const q = quality(layoutDrawing(out, ends), places);
    if (q.through > 0 || (q.compassKept ?? 1) < MIN_COMPASS || q.crossings >= crossings) continue;
    if (q.totalLength > limit.totalLength || q.lengthCv > limit.lengthCv) continue;
    const cost = q.totalLength * (1 + EVENNESS * q.lengthCv);
    if (!best || q.crossings < best.crossings || (q.crossings === best.crossings && cost < best.cost)) best = { out, crossings: q.crossings, cost };
  }
  return best?.out ?? null;
}
