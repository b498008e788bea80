// A small straight-line drawing annealed (anneal.ts) where that finds one
// better and no worse by any quality measure, placed as stress-drawing.ts
// places its drawings (boxes GAP apart, circuits clear of nodes).
import { anneal } from './anneal.ts';
import { blocksOf } from './anneal-counts.ts';
import type { LayoutResult } from './layout-thread.mjs';
import type { Pt } from './paths.ts';
import { placed, result, type StressInput } from './stress-drawing.ts';

/** Graphs annealed: up to this many nodes (anneal.ts bounds a run's work: 120 nodes and 239 circuits take about 2 s). */
const MAX_NODES = 120;

/** `out`, annealed where that finds a better drawing; else `out` itself. */
export function annealed(out: LayoutResult, input: StressInput): LayoutResult {
  const { boxes, ends, geo } = input;
  if (boxes.length > MAX_NODES) return out;
  const at: Pt[] = boxes.map((_, i) => { const [x, y, w, h] = out.nodes[`n${i}`]; return [x + w / 2, y + h / 2]; });
  const better = anneal(at, { boxes, ends, geo });
  const c = better && placed(compact(better, at, boxes, ends), boxes, ends);
  return c ? result(c, input) : out;
}

const meanLength = (at: readonly Pt[], ends: readonly (readonly [number, number])[]) =>
  ends.reduce((sum, [a, b]) => sum + Math.hypot(at[a][0] - at[b][0], at[a][1] - at[b][1]), 0) / Math.max(1, ends.length);

/** Steps of the search for the smallest scale. */
const HALVINGS = 12;

/**
 * `at` shrunk as far as its boxes and circuits stay clear of each other,
 * but its circuits no shorter than `like`'s on average. The quality
 * measures do not see scale, so annealing lets a drawing grow where boxes
 * clear each other more easily (GÉANT came out 4166 px wide against 1077),
 * and a picture's text and markers would shrink with it. Shrinking keeps
 * every measure (a uniform scale), so only the blocks are watched.
 */
function compact(at: Pt[], like: readonly Pt[], boxes: readonly { w: number; h: number }[], ends: readonly (readonly [number, number])[]): Pt[] {
  const scaled = (k: number) => at.map(([x, y]): Pt => [x * k, y * k]);
  const clear = (k: number) => blocksOf(scaled(k), boxes, ends) === 0;
  let lo = Math.min(1, meanLength(like, ends) / (meanLength(at, ends) || 1)), hi = 1;
  if (clear(lo)) return scaled(lo);
  for (let i = 0; i < HALVINGS; i++) {
    const mid = (lo + hi) / 2;
    if (clear(mid)) hi = mid; else lo = mid;
  }
  return scaled(hi);
}
