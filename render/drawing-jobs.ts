// The straight drawings of the logical layout (logical-layout.ts), as work
// for the drawing thread (drawing-thread.ts): the stress drawing, or with
// coordinates the schematic; the annealed drawing.
// Each takes seconds at most on the graphs they are drawn for (GÉANT's
// annealing about 2.5 s), which on the service's own thread would hold
// every other request, health checks included, for as long. Plain data in
// and out, so a job crosses to the thread and back by structured clone.
import { annealed } from './annealed-drawing.ts';
import type { LayoutResult } from './layout-thread.mjs';
import { schematicDrawing } from './schematic-drawing.ts';
import { stressDrawing, type StressInput } from './stress-drawing.ts';

export type DrawingJob =
  /** The stress drawing, a schematic when the nodes have coordinates; null where it cannot be placed clear. */
  | { kind: 'straight'; input: StressInput }
  /** `out` annealed (annealed-drawing.ts): itself where annealing finds nothing better. */
  | { kind: 'annealed'; input: StressInput; out: LayoutResult };

/** Does `job` here: the drawing, or null where there is none. */
export function drawingJob(job: DrawingJob): LayoutResult | null {
  switch (job.kind) {
    case 'straight': {
      const { input } = job;
      return input.geo ? schematicDrawing({ ...input, geo: input.geo }, stressDrawing(input)) : stressDrawing(input);
    }
    case 'annealed': return annealed(job.out, job.input);
    default: throw new Error(`no such drawing: ${String((job as { kind?: unknown }).kind)}`);
  }
}
