// Store benchmarks (issue 2), each figure beside a same-run baseline:
// - start-up with 10,000 maps x 5 versions: openFileStore in a fresh child
//   process vs a fresh child running a plain loop that reads and parses every
//   one of those files; time and peak RSS.
// - PUT /api/v1/map/id/{id}/ sequential and 20-way concurrent through a real
//   HTTP server vs a raw loop durably writing the same bytes (bench/store-put.ts).
// Runnable alone: `node --import tsx bench/store.ts`. Data goes to a temp folder.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../store/canonical-json.ts';
import { openFileStore } from '../store/file.ts';

const MAPS = Number(process.env.BENCH_MAPS ?? 10_000);
const VERSIONS = 5;
const RUNS = 3;
const SELF = fileURLToPath(import.meta.url);

/** One map version shaped like the service stores them (a layer, overrides, the record fields). */
export function mapVersion(mapId: string, version: number, i: number) {
  return {
    mapId, version, name: `Backbone ${i}`, lastUpdatedBy: 'admin', public: version === VERSIONS,
    lastUpdatedOn: new Date(Date.UTC(2026, 0, 1) + i * 60_000 + version * 1000).toISOString(),
    configuration: {
      initialViewStrategy: 'manual', viewport: { center: { lat: 39.8 + (i % 10), lng: -98.5 }, zoom: 4 },
      background: '#f8f8f8', showLegend: true, enableScrolling: true, zIndexBase: 100,
      layers: [{ name: 'Core', visible: true, color: '#1f77b4', nodeWidth: 6, edgeWidth: 3, pathOffset: 2,
        datasetId: `d${(i % 997).toString(36).padStart(6, '0')}`, layout: 'geographic', datatype: 'snapshot' }],
    },
    overrides: {},
  };
}

const mapId = (i: number) => `m${i.toString(36).padStart(6, '0')}`;

async function generate(dir: string): Promise<number> {
  await mkdir(path.join(dir, 'maps'), { recursive: true });
  let bytes = 0;
  for (let i = 0; i < MAPS; i++) {
    const id = mapId(i);
    const versions = Array.from({ length: VERSIONS }, (_, v) => mapVersion(id, v + 1, i));
    const text = canonicalJson({ versions });
    bytes += Buffer.byteLength(text);
    await writeFile(path.join(dir, 'maps', `${id}.json`), text);
  }
  return bytes;
}

interface Sample { ms: number; rssMB: number; docs: number }

/** Runs in a fresh child: measures one way of loading the folder, keeping what it loaded alive. */
async function child(mode: string, dir: string): Promise<Sample> {
  const t0 = performance.now();
  let docs: number;
  let keep: unknown;
  if (mode === 'store') {
    const store = await openFileStore(dir, { log: () => undefined });
    docs = store.entries('maps').length;
    keep = store;
  } else {
    const loaded: unknown[] = [];
    for (const name of await readdir(path.join(dir, 'maps'))) {
      loaded.push(JSON.parse(await readFile(path.join(dir, 'maps', name), 'utf8')));
    }
    docs = loaded.length;
    keep = loaded;
  }
  const ms = performance.now() - t0;
  void keep;
  return { ms, rssMB: (process.resourceUsage().maxRSS * 1024) / 2 ** 20, docs };
}

function runChild(mode: string, dir: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', SELF, '--startup-child', mode, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.on('error', reject);
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Sample) : reject(new Error(`startup child (${mode}) exited ${code}`))));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchStartup(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-store-'));
  try {
    const bytes = await generate(dir);
    const store: Sample[] = [];
    const plain: Sample[] = [];
    for (let r = 0; r < RUNS; r++) {
      plain.push(await runChild('plain', dir));
      store.push(await runChild('store', dir));
    }
    if (store.some((s) => s.docs !== MAPS)) throw new Error(`store loaded ${store[0].docs} of ${MAPS} maps`);
    const [ms, baseMs] = [median(store.map((s) => s.ms)), median(plain.map((s) => s.ms))];
    const [rss, baseRss] = [median(store.map((s) => s.rssMB)), median(plain.map((s) => s.rssMB))];
    const what = `${MAPS} maps x ${VERSIONS} versions, ${(bytes / 2 ** 20).toFixed(1)} MB`;
    return [
      `start-up time (${what}; median of ${RUNS} fresh processes): openFileStore ${ms.toFixed(0)} ms vs baseline plain read+parse loop ${baseMs.toFixed(0)} ms = ${(ms / baseMs).toFixed(2)} x (target <= 1.5 x and < 3000 ms)`,
      `start-up peak RSS (${what}): openFileStore ${rss.toFixed(0)} MB vs baseline plain read+parse loop ${baseRss.toFixed(0)} MB = ${(rss / baseRss).toFixed(2)} x (target < 400 MB)`,
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchStore(): Promise<string[]> {
  const lines = await benchStartup();
  const { benchPut } = await import('./store-put.ts');
  lines.push(...(await benchPut()));
  return lines;
}

if (process.argv[1] === SELF) {
  const at = process.argv.indexOf('--startup-child');
  if (at > 0) {
    process.stdout.write(JSON.stringify(await child(process.argv[at + 1], process.argv[at + 2])));
  } else {
    for (const line of await benchStore()) console.log(line);
  }
}
