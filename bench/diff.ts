// History diff benchmarks, each figure beside a same-run baseline:
//  1. diffDataset of two versions of a generated 2,000-node / 5,000-edge
//     dataset (10% of edges with a new capacity, 50 added, 50 removed, 100
//     nodes moved) vs a plain JSON.stringify + JSON.parse of both versions'
//     records (what merely copying the data costs): target under 50 ms;
//  2. diffLines of a 2,000-line template with 20 edited lines and one
//     inserted vs a plain split + line-by-line equality scan of both.
// Best wall time of several runs after a warm-up, as bench/render.ts does:
// interference from other work on the machine only ever adds time.
// Runnable alone: `node --import tsx bench/diff.ts`.
import { fileURLToPath } from 'node:url';
import type { EdgeRecord } from '../datasources/types.ts';
import { diffDataset } from '../history/diff-dataset.ts';
import { diffLines } from '../history/diff-template.ts';
import { generateGraph } from './render.ts';

const SELF = fileURLToPath(import.meta.url);
const RUNS = 15;

function time<T>(runs: number, f: () => T): { ms: number; value: T } {
  let value = f();
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    value = f();
    ts.push(performance.now() - t0);
  }
  return { ms: Math.min(...ts), value };
}

/**
 * Two versions of a backbone dataset and what a diff of them must find,
 * counted here independently of diffDataset (by sets of names), so the bench
 * and the test check the figures are for a right answer.
 */
export function datasetVersions(nodes = 2000, edges = 5000) {
  const { pts, links } = generateGraph(nodes, edges);
  const moved = (i: number) => i % 20 === 5;
  const ep = (i: number, v: 1 | 2) => ({
    name: `router-${i}`, latitude: pts[i][0] + (v === 2 && moved(i) ? 0.25 : 0), longitude: pts[i][1], site: `site-${Math.floor(i / 2)}`, vendor: i % 3 ? 'x' : 'y',
  });
  const record = (k: number, v: 1 | 2): EdgeRecord => {
    const [a, b] = links[k];
    return {
      id: String(k), name: `circuit-${k}`, source: `router-${a}`, destination: `router-${b}`,
      capacity: v === 2 && k % 10 === 0 ? 400 : 100, operator: k % 4 ? 'ours' : 'leased', endpoints: [ep(a, v), ep(b, v)],
    };
  };
  const onlyAfter = (k: number) => k % 100 === 1, onlyBefore = (k: number) => k % 100 === 2;
  const before = links.map((_, k) => k).filter((k) => !onlyAfter(k)).map((k) => record(k, 1));
  const after = links.map((_, k) => k).filter((k) => !onlyBefore(k)).map((k) => record(k, 2));
  const used = (rs: EdgeRecord[]) => new Set(rs.flatMap((r) => [r.source, r.destination]));
  const [na, nb] = [used(before), used(after)];
  const both = [...na].filter((n) => nb.has(n));
  return {
    before, after,
    expected: {
      edgesAdded: links.filter((_, k) => onlyAfter(k)).length,
      edgesRemoved: links.filter((_, k) => onlyBefore(k)).length,
      edgesChanged: links.filter((_, k) => k % 10 === 0 && !onlyAfter(k) && !onlyBefore(k)).length,
      nodesAdded: [...nb].filter((n) => !na.has(n)).length,
      nodesRemoved: [...na].filter((n) => !nb.has(n)).length,
      nodesChanged: both.filter((n) => moved(Number(n.slice('router-'.length)))).length,
    },
  };
}

export async function benchDiff(): Promise<string[]> {
  const lines: string[] = [];
  const { before, after, expected } = datasetVersions();
  const side = (records: EdgeRecord[]) => ({ name: 'bench', query: { endpoint: 'spreadsheet?sheet_id=x&sheet_name=y' }, records });
  const diff = time(RUNS, () => diffDataset(side(before), side(after)));
  const d = diff.value;
  const got = {
    edgesAdded: d.edges.added.length, edgesRemoved: d.edges.removed.length, edgesChanged: d.edges.changed.length,
    nodesAdded: d.nodes.added.length, nodesRemoved: d.nodes.removed.length, nodesChanged: d.nodes.changed.length,
  };
  if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`diffDataset found ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
  const copy = time(RUNS, () => [JSON.parse(JSON.stringify(before)), JSON.parse(JSON.stringify(after))]);
  const nodeCount = new Set([...before, ...after].flatMap((r) => [r.source, r.destination])).size;
  lines.push(`dataset diff, ${nodeCount} nodes / ${before.length + expected.edgesAdded} edges ` +
    `(${before.length} and ${after.length} per version: ${got.edgesChanged} edges changed, ${got.edgesAdded} added, ${got.edgesRemoved} removed, ${got.nodesChanged} nodes moved): ` +
    `${diff.ms.toFixed(1)} ms vs baseline JSON.stringify+parse of both versions' records ${copy.ms.toFixed(1)} ms = ${(diff.ms / copy.ms).toFixed(2)}x (target under 50 ms)`);

  const a = Array.from({ length: 2000 }, (_, i) => `<rect id="r${i}" x="${i % 13}" width="${i % 7}" fill="currentColor"/>`);
  const b = a.map((l, i) => (i % 100 === 50 ? l.replace('fill="currentColor"', 'fill="#ff0000"') : l));
  b.splice(1000, 0, '<circle r="3"/>');
  const [ta, tb] = [a.join('\n'), b.join('\n')];
  const lineDiff = time(RUNS, () => diffLines(ta, tb));
  const scan = time(RUNS, () => {
    const x = ta.split('\n'), y = tb.split('\n');
    let same = 0;
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] === y[i]) same++;
    return same;
  });
  lines.push(`template line diff, 2000 lines (20 edited, 1 inserted; ${lineDiff.value.length} line changes): ` +
    `${lineDiff.ms.toFixed(1)} ms vs baseline split + line-by-line equality scan ${scan.ms.toFixed(2)} ms = ${(lineDiff.ms / scan.ms).toFixed(1)}x (no target; templates are under ~2,000 lines)`);
  return lines;
}

if (process.argv[1] === SELF) {
  for (const line of await benchDiff()) console.log(line);
}
