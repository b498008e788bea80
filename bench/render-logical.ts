// Logical layouts beside Graphviz `dot` on the same graphs (issue 20): for
// each demo dataset laid out logically (its own grouping, as the service
// draws it), for the generated dense network of render-readable.ts grouped by
// metro, and for a generated 300-router backbone grouped in sites of two:
// our time, crossings, edges through nodes and aspect ratio, beside dot's
// (`dot -Tjson`, rankdir TB, its default; groups as subgraph clusters). Both
// are read back and counted the same way (render/drawing-geometry.ts):
// ours from the SVG the service serves (orthogonal polylines), dot's from
// its splines sampled as polylines; a crossing is a proper crossing of two
// segments of edges with no node in common. Targets: crossings at most 1x
// dot's, edges through nodes 0.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EdgeRecord } from '../datasources/types.ts';
import { forgetLayouts } from '../render/layout-client.ts';
import { renderTopologySvg } from '../render/svg.ts';
import { buildTopology } from '../render/topology.ts';
import type { Topology } from '../render/types.ts';
import { crossings, type Drawing, throughNodes } from '../render/drawing-geometry.ts';
import { dotDrawing, dotSource, svgDrawing } from '../test/helpers/layout-geometry.ts';
import { denseMetros } from './render-readable.ts';

const DATA = fileURLToPath(new URL('../data/', import.meta.url));

type Case = { name: string; records: EdgeRecord[]; query: Record<string, unknown> };

/** The demo datasets: their latest definition (name, query) and stored results. */
function demoDatasets(): Case[] {
  return readdirSync(`${DATA}datasets`).sort().flatMap((id) => {
    const versions = readdirSync(`${DATA}datasets/${id}`).filter((f) => /^v\d+\.json$/.test(f)).sort((a, b) => Number(a.slice(1, -5)) - Number(b.slice(1, -5)));
    const def = JSON.parse(readFileSync(`${DATA}datasets/${id}/${versions.at(-1)}`, 'utf8')) as { name: string; query: Record<string, unknown>; resultsKey?: string | null };
    const key = def.resultsKey ?? `${id}.v2`;
    try {
      const { records } = JSON.parse(readFileSync(`${DATA}results/${key}.json`, 'utf8')) as { records: EdgeRecord[] };
      return [{ name: `demo dataset "${def.name}"`, records, query: def.query }];
    } catch {
      return [];
    }
  });
}

const describe = (d: Drawing) =>
  `${crossings(d.lines)} crossings, ${throughNodes(d).length} edges through nodes, ${d.width.toFixed(0)}x${d.height.toFixed(0)} (${(d.width / d.height).toFixed(2)}:1)`;

/** Best wall time (ms) of `runs` after one warm-up, and the last result. */
async function timed<T>(runs: number, f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  let value = await f();
  let ms = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    value = await f();
    ms = Math.min(ms, performance.now() - t0);
  }
  return { ms, value };
}

/** A logical build whose layouts are computed anew (the layout cache forgotten first). */
const laidOutAnew = (c: Case) => {
  forgetLayouts();
  return buildTopology(c.records, { name: c.name, layout: 'logical', query: c.query as never });
};

async function compare(c: Case, runs: number, withDot: boolean): Promise<string[]> {
  const ours = await timed(runs, () => laidOutAnew(c));
  const t: Topology = ours.value;
  const drawn = svgDrawing(renderTopologySvg(t));
  const groups = t.nodes.filter((n) => n.children).length;
  const head = `logical layout, ${c.name} (${t.nodes.length - groups} nodes, ${t.edges.length} edges, ${groups} groups as clusters): ${ours.ms.toFixed(0)} ms, ${describe(drawn)}`;
  if (!withDot) return [`${head}; dot baseline SKIPPED: Graphviz not installed (apt-get install graphviz)`];
  const t0 = performance.now();
  const dot = dotDrawing(dotSource(t, 'TB'));
  const dotMs = performance.now() - t0;
  const mine = crossings(drawn.lines), theirs = crossings(dot.lines);
  const ratio = theirs === 0 ? (mine === 0 ? '1.00x' : 'more than') : `${(mine / theirs).toFixed(2)}x`;
  return [head, `  beside dot -Tjson (rankdir TB, its default) on the same graph: ${dotMs.toFixed(0)} ms, ${describe(dot)}; ours ${ratio} dot's crossings (target <= 1x, edges through nodes 0)`];
}

/** A generated backbone of `routers` routers in sites of two, `circuits` circuits between near neighbours (render.ts generateGraph). */
function groupedBackbone(generate: (n: number, e: number) => { pts: [number, number][]; links: [number, number][] }, routers: number, circuits: number): EdgeRecord[] {
  const { pts, links } = generate(routers, circuits);
  const ep = (i: number) => ({ name: `router-${i}`, latitude: pts[i][0], longitude: pts[i][1], site: `site-${Math.floor(i / 2)}` });
  return links.map(([a, b], i) => ({ id: String(i), name: `circuit-${i}`, source: `router-${a}`, destination: `router-${b}`, capacity: 100, endpoints: [ep(a), ep(b)] }));
}

export async function benchLogical(generate: (n: number, e: number) => { pts: [number, number][]; links: [number, number][] }, withDot: boolean): Promise<string[]> {
  const lines: string[] = [];
  for (const c of demoDatasets()) lines.push(...await compare(c, 3, withDot));
  // The editor's live logical preview after a change that leaves the data as it was: the layout is kept.
  for (const c of demoDatasets()) {
    const anew = await timed(3, () => laidOutAnew(c));
    const kept = await timed(3, () => buildTopology(c.records, { name: c.name, layout: 'logical', query: c.query as never }));
    lines.push(`logical preview of unchanged data, ${c.name}: ${kept.ms.toFixed(1)} ms beside ${anew.ms.toFixed(0)} ms with the layout computed anew (${(kept.ms / anew.ms).toFixed(3)}x)`);
  }
  const metro = (e: EdgeRecord['endpoints'][number]) => ({ ...e, metro: e.name.split('-')[0] });
  const metros: EdgeRecord[] = denseMetros().map((r) => ({ ...r, endpoints: [metro(r.endpoints[0]), metro(r.endpoints[1])] }));
  lines.push(...await compare({ name: 'generated dense network (60 metros as groups)', records: metros, query: { node_group_criteria: ['metro'] } }, 1, withDot));
  lines.push(...await compare({ name: 'generated 300-router backbone (sites of two as groups)', records: groupedBackbone(generate, 300, 600), query: { node_group_criteria: ['site'] } }, 1, withDot));
  return lines;
}
