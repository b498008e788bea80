// Store benchmarks (issue 2, and the append-only layout), each figure beside a
// same-run baseline:
// - start-up with 10,000 maps x 5 versions (maps/<id>/v<N>.json): openFileStore
//   in a fresh child process vs a fresh child running a plain loop over the
//   files the store needs, the latest file of each map (readdir of maps/, then
//   read + JSON.parse of each maps/<id>/v5.json, one after another with
//   fs/promises, as this benchmark always measured it); time and peak RSS.
//   Beside it, informative, the same loop with readFileSync: the bare cost of
//   the reads and parses, without thread-pool round trips.
// - history (store-history.ts): bytes written and latency of a PUT as the
//   history grows, start-up with one map of 10,000 versions, a version=all list
//   over that map while /healthz is polled.
// - PUT throughput (store-put.ts) vs a raw loop durably writing the same files.
// Runnable alone: `node --import tsx bench/store.ts`. Data goes to temp folders.
// Smaller runs: BENCH_MAPS, and the variables of store-history.ts and store-put.ts.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../store/canonical-json.ts';
import { openFileStore } from '../store/file.ts';
import { forEachLimit, mapIdOf, median, runChild, type Sample } from './store-data.ts';

const MAPS = Number(process.env.BENCH_MAPS ?? 10_000);
const VERSIONS = 5;
const RUNS = 5;

/** One small map version shaped like the service stores them (a layer, no overrides, the record fields). */
export function mapVersion(mapId: string, version: number, i: number) {
  return {
    mapId, version, name: `Backbone ${i}`, lastUpdatedBy: 'admin', public: version === VERSIONS,
    lastUpdatedOn: new Date(Date.UTC(2026, 0, 1) + i * 60_000 + version * 1000).toISOString(),
    change: version === 1 ? 'created' : 'renamed the map',
    configuration: {
      initialViewStrategy: 'manual', viewport: { center: { lat: 39.8 + (i % 10), lng: -98.5 }, zoom: 4 },
      background: '#f8f8f8', showLegend: true, enableScrolling: true, zIndexBase: 100,
      layers: [{ name: 'Core', visible: true, color: '#1f77b4', nodeWidth: 6, edgeWidth: 3, pathOffset: 2,
        datasetId: `d${(i % 997).toString(36).padStart(6, '0')}`, layout: 'geographic', datatype: 'snapshot' }],
    },
    overrides: {},
  };
}

/** MAPS maps of VERSIONS versions each, in the append-only layout; the bytes of all files and of the latest ones. */
async function generate(dir: string): Promise<{ bytes: number; latest: number }> {
  const sizes = { bytes: 0, latest: 0 };
  await forEachLimit(Array.from({ length: MAPS }, (_, i) => i), 16, async (i) => {
    const id = mapIdOf(i);
    await mkdir(path.join(dir, 'maps', id), { recursive: true });
    for (let v = 1; v <= VERSIONS; v++) {
      const text = canonicalJson(mapVersion(id, v, i));
      sizes.bytes += Buffer.byteLength(text);
      if (v === VERSIONS) sizes.latest += Buffer.byteLength(text);
      await writeFile(path.join(dir, 'maps', id, `v${v}.json`), text);
    }
  });
  return sizes;
}

export async function benchStartup(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-store-'));
  try {
    const { bytes, latest } = await generate(dir);
    await (await openFileStore(dir, { log: () => undefined })).close(); // the folder made ready once: every child restarts
    spawnSync('sync'); // the generated files on disk, so that write-back does not run under one child and not another
    const store: Sample[] = [];
    const plain: Sample[] = [];
    const bare: Sample[] = [];
    for (let r = 0; r < RUNS; r++) {
      plain.push(await runChild('latest-of-each', dir, String(VERSIONS)));
      bare.push(await runChild('latest-of-each-sync', dir, String(VERSIONS)));
      store.push(await runChild('store', dir));
    }
    if (store.some((s) => s.items !== MAPS || s.versions !== MAPS * VERSIONS)) {
      throw new Error(`store loaded ${store[0].items} of ${MAPS} maps, ${store[0].versions} of ${MAPS * VERSIONS} versions`);
    }
    if ([...plain, ...bare].some((s) => s.items !== MAPS)) throw new Error(`a plain loop read ${plain[0].items} of ${MAPS} files`);
    const time = (xs: Sample[]) => median(xs.map((s) => s.ms));
    const rss = (xs: Sample[]) => median(xs.map((s) => s.rssMB));
    const what = `${MAPS} maps x ${VERSIONS} versions, ${(bytes / 2 ** 20).toFixed(1)} MB, latest files ${(latest / 2 ** 20).toFixed(1)} MB`;
    const baseline = `baseline plain loop (readdir maps/, read + JSON.parse of each maps/<id>/v${VERSIONS}.json, fs/promises, one at a time)`;
    const sync = 'the same loop with readFileSync';
    return [
      `start-up time (${what}; median of ${RUNS} fresh processes): openFileStore ${time(store).toFixed(0)} ms vs ${baseline} ` +
        `${time(plain).toFixed(0)} ms = ${(time(store) / time(plain)).toFixed(2)}x (target <= 1.5x); ` +
        `vs ${sync} ${time(bare).toFixed(0)} ms = ${(time(store) / time(bare)).toFixed(2)}x (informative)`,
      `start-up peak RSS (${what}): openFileStore ${rss(store).toFixed(0)} MB vs ${baseline} ${rss(plain).toFixed(0)} MB = ` +
        `${(rss(store) / rss(plain)).toFixed(2)}x (target < 200 MB); vs ${sync} ${rss(bare).toFixed(0)} MB`,
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchStore(): Promise<string[]> {
  const lines = await benchStartup();
  const { benchHistory } = await import('./store-history.ts');
  lines.push(...(await benchHistory()));
  const { benchPut } = await import('./store-put.ts');
  lines.push(...(await benchPut()));
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await benchStore()) console.log(line);
}
