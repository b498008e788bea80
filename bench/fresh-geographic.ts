// The fresh geographic picture of bench/render-fresh.ts, drawn where the
// service draws pictures: on a thread with a render thread's heap limits
// (pool/pool.ts threadLimits), started by fresh-thread.mjs. A generated
// 2,000-router / 5,000-circuit backbone, the best of several renders with
// spreading and label placement and without them (renderTopologySvg's
// `plain`), in ms.
import { parentPort } from 'node:worker_threads';
import type { EdgeRecord } from '../datasources/types.ts';
import { renderTopologySvg } from '../render/svg.ts';
import { buildTopology } from '../render/topology.ts';
import { generateGraph } from './render.ts';

/** The least time of `runs` calls of `f`, after three to warm it. */
export function best(runs: number, f: () => unknown): number {
  for (let i = 0; i < 3; i++) f();
  let ms = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    ms = Math.min(ms, performance.now() - t0);
  }
  return ms;
}

export type FreshTimes = { full: number; plain: number };

async function freshGeographic(): Promise<FreshTimes> {
  const { pts, links } = generateGraph(2000, 5000);
  const ep = (i: number) => ({ name: `router-${i}`, latitude: pts[i][0], longitude: pts[i][1], site: `site-${Math.floor(i / 2)}` });
  const records: EdgeRecord[] = links.map(([a, b], i) => ({ id: String(i), name: `circuit-${i}`, source: `router-${a}`, destination: `router-${b}`,
    capacity: 100, endpoints: [ep(a), ep(b)] }));
  const topo = await buildTopology(records, { name: 'bench', layout: 'geographic' });
  return {
    full: best(15, () => renderTopologySvg(topo, { layout: 'geographic' })),
    plain: best(15, () => renderTopologySvg(topo, { layout: 'geographic', plain: true })),
  };
}

if (parentPort) parentPort.postMessage(await freshGeographic());
