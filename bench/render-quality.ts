// Logical layouts beside Graphviz `dot` and `neato` on the layout corpus
// (test/helpers/layout-corpus.ts: a ring, a dual-homed hierarchy, a
// generated mesh, four Internet Topology Zoo backbones, the demo's
// datasets), measured by render/layout-quality.ts the same way for all
// three: time, crossings, edges through nodes, edge length total and spread,
// bends, area per node, compass order kept. Each figure of ours is printed
// beside the better of dot's and neato's as a ratio.
import type { Quality } from '../render/layout-quality.ts';
import { describeQuality, quality } from '../render/layout-quality.ts';
import { backbones, demoGraphs, dualHomed, mesh, ring, type CorpusGraph } from '../test/helpers/layout-corpus.ts';
import { dotDrawing, dotSource, svgDrawing } from '../test/helpers/layout-geometry.ts';
import { renderTopologySvg } from '../render/svg.ts';
import { buildTopology } from '../render/topology.ts';

const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? '1.00x' : `${a} vs 0`) : `${(a / b).toFixed(2)}x`);

async function measure(g: CorpusGraph, withGraphviz: boolean): Promise<string[]> {
  const geo = new Map<string, [number, number]>();
  for (const r of g.records) for (const e of r.endpoints) if (typeof e.latitude === 'number') geo.set(e.name, [e.latitude, Number(e.longitude)]);
  const t0 = performance.now();
  const t = await buildTopology(g.records, { name: g.name, layout: 'logical', query: g.query as never });
  const ms = performance.now() - t0;
  const ours = quality(svgDrawing(renderTopologySvg(t)), g.geo ? geo : undefined);
  const out = [`layout quality, ${g.name}: ours ${ms.toFixed(0)} ms, ${describeQuality(ours)}`];
  if (!withGraphviz) return [...out, '  dot and neato baselines SKIPPED: Graphviz not installed (apt-get install graphviz)'];
  const source = dotSource(t, 'TB');
  const run = (engine: 'dot' | 'neato'): [number, Quality] => {
    const s = performance.now();
    const q = quality(dotDrawing(source, engine), g.geo ? geo : undefined, false);
    return [performance.now() - s, q];
  };
  const [dotMs, dot] = run('dot'), [neatoMs, neato] = run('neato');
  out.push(`  dot   ${dotMs.toFixed(0)} ms, ${describeQuality(dot)}`, `  neato ${neatoMs.toFixed(0)} ms, ${describeQuality(neato)}`);
  out.push(`  ours against the better of the two: crossings ${ratio(ours.crossings, Math.min(dot.crossings, neato.crossings))}, ` +
    `total length ${ratio(ours.totalLength, neato.totalLength)} of neato's, CV ${ratio(ours.lengthCv, neato.lengthCv)} of neato's, ` +
    `area per node ${ratio(ours.areaPerNode, dot.areaPerNode)} of dot's, time ${ratio(ms, Math.min(dotMs, neatoMs))}`);
  return out;
}

export async function benchQuality(withGraphviz: boolean): Promise<string[]> {
  const lines: string[] = [];
  for (const g of [ring(6), dualHomed(), mesh(40, 70), ...backbones(), ...demoGraphs()]) lines.push(...await measure(g, withGraphviz));
  return lines;
}
