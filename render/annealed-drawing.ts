// A small straight-line drawing annealed (anneal.ts) where that finds one
// better and no worse by any quality measure, placed as stress-drawing.ts
// places its drawings (boxes GAP apart, circuits clear of nodes).
import { anneal } from './anneal.ts';
import type { LayoutResult } from './layout-thread.mjs';
import type { Pt } from './paths.ts';
import { placed, result, type StressInput } from './stress-drawing.ts';

/** Graphs annealed: up to this many nodes (a step is quadratic in them; 120 nodes take about a second). */
const MAX_NODES = 120;

/** `out`, annealed where that finds a better drawing; else `out` itself. */
export function annealed(out: LayoutResult, input: StressInput): LayoutResult {
  const { boxes, ends, geo } = input;
  if (boxes.length > MAX_NODES) return out;
  const at: Pt[] = boxes.map((_, i) => { const [x, y, w, h] = out.nodes[`n${i}`]; return [x + w / 2, y + h / 2]; });
  const better = anneal(at, { boxes, ends, geo });
  const c = better && placed(better, boxes, ends);
  return c ? result(c, input) : out;
}
