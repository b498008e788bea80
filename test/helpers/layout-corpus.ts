// The graphs logical layouts are judged on (docs/render.md: Layout quality):
// real R&E backbones with coordinates (test/render/corpus/, from the Internet
// Topology Zoo), the demo's datasets, and made ones: a ring, a dual-homed
// hierarchy, and a random mesh of nearby links. Each is records, as a sheet
// gives them, with the query that groups them (if any).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import type { CircuitEnd, EdgeRecord } from '../../datasources/types.ts';

export interface CorpusGraph { name: string; records: EdgeRecord[]; query: Record<string, unknown>; geo: boolean }

const CORPUS = fileURLToPath(new URL('../render/corpus/', import.meta.url));
const DATA = fileURLToPath(new URL('../../data/', import.meta.url));

const end = (name: string, lat?: number, lng?: number, extra: Record<string, unknown> = {}): CircuitEnd =>
  ({ name, ...(lat === undefined ? {} : { latitude: lat, longitude: lng }), ...extra });
const circuit = (i: number, a: CircuitEnd, b: CircuitEnd, extra: Record<string, unknown> = {}): EdgeRecord =>
  ({ id: String(i), name: `${a.name}-${b.name}`, source: a.name, destination: b.name, endpoints: [a, b], ...extra });

/** The converted Internet Topology Zoo backbones. */
export function backbones(): CorpusGraph[] {
  return readdirSync(CORPUS).filter((f) => f.endsWith('.csv')).sort().map((file) => {
    const rows = parse(readFileSync(`${CORPUS}${file}`, 'utf8'), { columns: true }) as Record<string, string>[];
    const records = rows.map((r, i) => circuit(i, end(r.source, Number(r.source_latitude), Number(r.source_longitude)),
      end(r.destination, Number(r.destination_latitude), Number(r.destination_longitude)), r.capacity ? { capacity: r.capacity } : {}));
    return { name: `backbone ${file.replace('.csv', '')}`, records, query: {}, geo: true };
  });
}

/** A ring of `n` routers. */
export function ring(n: number): CorpusGraph {
  const r = (i: number) => end(`R${(i % n) + 1}`);
  return { name: `ring of ${n}`, records: Array.from({ length: n }, (_, i) => circuit(i, r(i), r(i + 1))), query: {}, geo: false };
}

/** Two cores; four aggregation routers each homed to both cores; eight access routers each homed to two aggregation routers. */
export function dualHomed(): CorpusGraph {
  const records: EdgeRecord[] = [];
  const core = [end('core1'), end('core2')];
  records.push(circuit(0, core[0], core[1]));
  for (let a = 0; a < 4; a++) for (const c of core) records.push(circuit(records.length, c, end(`agg${a + 1}`)));
  for (let x = 0; x < 8; x++) {
    const pair = Math.floor(x / 4) * 2;
    for (const a of [pair, pair + 1]) records.push(circuit(records.length, end(`agg${a + 1}`), end(`acc${x + 1}`)));
  }
  return { name: 'dual-homed hierarchy (2 cores, 4 aggregation, 8 access)', records, query: {}, geo: false };
}

/** `n` routers at seeded random places, each linked to its nearest neighbours until `m` links. */
export function mesh(n: number, m: number, seed = 7): CorpusGraph {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pts = Array.from({ length: n }, () => [35 + 20 * rnd(), -10 + 40 * rnd()] as [number, number]);
  const pairs: [number, number, number][] = [];
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pairs.push([Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]), i, j]);
  pairs.sort((a, b) => a[0] - b[0]);
  // The shortest links that join two parts first (a minimum spanning tree keeps it connected, with nearby
  // links only, as a real mesh is built), then the shortest of the others.
  const part = [...Array(n).keys()];
  const find = (x: number): number => (part[x] === x ? x : (part[x] = find(part[x])));
  const links = new Set<string>();
  for (const [, i, j] of pairs) if (find(i) !== find(j)) { part[find(i)] = find(j); links.add(`${i},${j}`); }
  for (const [, i, j] of pairs) { if (links.size >= m) break; links.add(`${i},${j}`); }
  const node = (i: number) => end(`M${i + 1}`, pts[i][0], pts[i][1]);
  return { name: `generated mesh (${n} routers, ${m} links)`, records: [...links].map((l, k) => { const [i, j] = l.split(',').map(Number); return circuit(k, node(i), node(j)); }), query: {}, geo: true };
}

/** The demo's datasets: their latest query and stored results. */
export function demoGraphs(): CorpusGraph[] {
  return readdirSync(`${DATA}datasets`).sort().flatMap((id) => {
    const versions = readdirSync(`${DATA}datasets/${id}`).filter((f) => /^v\d+\.json$/.test(f)).sort((a, b) => Number(a.slice(1, -5)) - Number(b.slice(1, -5)));
    const def = JSON.parse(readFileSync(`${DATA}datasets/${id}/${versions.at(-1)}`, 'utf8')) as { name: string; query: Record<string, unknown>; resultsKey?: string | null };
    try {
      const { records } = JSON.parse(readFileSync(`${DATA}results/${def.resultsKey ?? `${id}.v2`}.json`, 'utf8')) as { records: EdgeRecord[] };
      return [{ name: `demo dataset "${def.name}"`, records, query: def.query, geo: true }];
    } catch {
      return [];
    }
  });
}
