// Readable pictures (issue 20): overlap counts read back from the SVG (the
// test suite's reader, test/render/picture-geometry.ts) - label-label,
// label-node, node-node, label-legend - with how many labels were placed, for
// the demo map, the demo datasets' geographic pictures and a generated dense
// 300-node network (60 metros of 2-8 sites a few km apart, parallel circuits
// inside metros), plus the dense network's render time. Target: every count 0.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EdgeRecord } from '../datasources/types.ts';
import { renderTopologySvg } from '../render/svg.ts';
import { buildTopology } from '../render/topology.ts';
import { copyDemoData } from '../test/helpers/demo-data.ts';
import { overlapsBetween, pictureBoxes } from '../test/render/picture-geometry.ts';
import { startService } from './service.ts';

/** Metros of 2-8 sites within about 5 km, two parallel circuits between neighbouring sites, each metro tied to its nearest two. */
export function denseMetros(metros = 60, seed = 7): EdgeRecord[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const centres = Array.from({ length: metros }, () => [30 + rnd() * 28, -120 + rnd() * 140]);
  const sites = centres.map(([lat, lng], m) => Array.from({ length: 2 + Math.floor(rnd() * 7) }, (_, i) =>
    ({ name: `M${m}-S${i}`, latitude: lat + (rnd() - 0.5) * 0.08, longitude: lng + (rnd() - 0.5) * 0.1 })));
  const out: EdgeRecord[] = [];
  const link = (a: { name: string }, b: { name: string }, n: number) => {
    for (let k = 0; k < n; k++) {
      out.push({ id: String(out.length), name: `${a.name}-${b.name}-${k}`, source: a.name, destination: b.name, capacity: 400, endpoints: [{ ...a }, { ...b }] });
    }
  };
  for (const group of sites) for (let i = 1; i < group.length; i++) link(group[i - 1], group[i], 2);
  const d2 = (a: number[], b: number[]) => (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2;
  centres.forEach((c, m) => {
    const nearest = centres.map((_, j) => j).filter((j) => j !== m).sort((x, y) => d2(c, centres[x]) - d2(c, centres[y])).slice(0, 2);
    for (const j of nearest) if (j > m) link(sites[m][0], sites[j][0], 1);
  });
  return out;
}

function counts(svg: string): string {
  const p = pictureBoxes(svg);
  const legend = p.legend ? overlapsBetween(p.labels, [{ name: 'legend', box: p.legend }]).length : 0;
  return `label-label ${overlapsBetween(p.labels).length}, label-node ${overlapsBetween(p.labels, p.nodes).length}, ` +
    `node-node ${overlapsBetween(p.nodes).length}, label-legend ${legend} (${p.labels.length} labels placed, ${p.nodes.length} nodes)`;
}

export async function benchReadable(): Promise<string[]> {
  const lines: string[] = [];
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-readable-'));
  try {
    await copyDemoData(dir);
    const { app, headers } = await startService(dir);
    const mapId = ((await (await app.request('/api/v1/public/maps/')).json()) as { mapId: string }[])[0].mapId;
    lines.push(`overlaps, demo map SVG: ${counts(await (await app.request(`/api/v1/public/output/map/${mapId}/svg/`)).text())} (target 0 each)`);
    const datasets = (await (await app.request('/api/v1/datasets/', { headers })).json()) as { datasetId: string; name: string }[];
    for (const d of datasets) {
      const svg = await (await app.request(`/api/v1/output/dataset/${d.datasetId}/geographic/snapshot/svg/`, { headers })).text();
      lines.push(`overlaps, demo dataset "${d.name}" geographic SVG: ${counts(svg)} (target 0 each)`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const topology = await buildTopology(denseMetros(), { name: 'dense', layout: 'geographic' });
  // Best of five after a warm-up: other work on the machine only ever adds time.
  let svg = renderTopologySvg(topology), ms = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    svg = renderTopologySvg(topology);
    ms = Math.min(ms, performance.now() - t0);
  }
  lines.push(`overlaps, generated dense network (${topology.nodes.length} nodes / ${topology.edges.length} edges, 60 metros) geographic SVG in ${ms.toFixed(0)} ms: ${counts(svg)} (target 0 each)`);
  return lines;
}
