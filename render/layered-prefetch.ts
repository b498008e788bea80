// The layered drawings a logical layout may want, asked for ahead
// (logical-layout.ts): the stress drawing is computed on the drawing thread
// and the layered ones on the layout thread (layout-client.ts), and the
// layered ones are needed only when the stress drawing crosses. Asking for
// the first of them before the stress drawing is computed lets the layout
// thread draw them meanwhile, on the other core; the drawings are kept by
// their graph, so when they are wanted they are ready, and the same as
// drawn then. Nothing is decided by this: only when the work is done.
// It costs layout-thread time when the stress drawing has no crossing and
// they are not wanted, so it is done only for graphs with many independent
// cycles, where stress drawings of the corpus all cross (GÉANT 2012,
// SURFnet, the North America demo, the dual-homed hierarchy, the generated
// mesh), not for rings and sparse backbones, which they rarely do.
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { layOut } from './layout-client.ts';

/** Independent cycles (circuits beyond a spanning forest) from which a stress drawing is taken to cross. */
const TANGLED_CYCLES = 10;

/** Whether a graph of `n` nodes and circuits `ends` has TANGLED_CYCLES independent cycles or more. */
export function tangled(n: number, ends: readonly (readonly [number, number])[]): boolean {
  const parent = [...Array(n).keys()];
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x])));
  let cycles = 0;
  for (const [a, b] of ends) {
    const [ra, rb] = [find(a), find(b)];
    if (ra === rb) cycles++;
    else parent[ra] = rb;
  }
  return cycles >= TANGLED_CYCLES;
}

/** Starts the layouts of `graphs` on the layout thread without waiting for them (a failure shows when one is wanted). */
export function prefetch(graphs: ElkNode[]): void {
  for (const graph of graphs) layOut(graph).catch(() => undefined);
}
