// What a long history costs in the append-only store (one file per version),
// each figure beside a same-run baseline:
// - bytes written per PUT of a 100 KB map at 10, 100 and 1,000 versions,
//   counted at the store's writeSync calls (a recording node:fs facade given as
//   openFileStore's syncFs), vs the size of the version the PUT stored;
// - PUT latency at 1,000 versions vs at 10 versions (median, interleaved), both
//   through createApp + app.request with the store's writer threads;
// - one map of 10,000 versions of 42 KB: start-up (openFileStore + createApp)
//   time and peak RSS of a fresh child vs a fresh child that reads and parses
//   the map's latest file;
// - GET /api/v1/maps/?version=all&mapId=<id>&limit=10 over that map through a
//   real HTTP server vs a raw loop reading and parsing its 10,000 files, and
//   the latency of /healthz polled meanwhile (from a worker thread, one request
//   every 5 ms whether or not the previous one has answered) vs /healthz alone;
//   and that list as the first request after a restart, the versions' outlines
//   stored (maps/<id>/.outlines), vs the same after a restart without them (a
//   folder of an earlier release: each restart's first list before outlines).
// Versions are generated straight on disk. Smaller runs: BENCH_HISTORY_LEVELS
// (10,100,1000), BENCH_BYTES_PUTS (5), BENCH_LATENCY_PUTS (200),
// BENCH_LONG_VERSIONS (10000).
import { spawnSync } from 'node:child_process';
import * as fsSync from 'node:fs';
import * as nodeFsPromises from 'node:fs/promises';
import { mkdtemp, readFile, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SyncFs } from '../store/write-thread.mjs';
import { listen } from './service.ts';
import {
  mapIdOf, mapRevision, median, nodesFor, openService, percentile, runChild, writeMapVersions, type Sample,
} from './store-data.ts';

const LEVELS = (process.env.BENCH_HISTORY_LEVELS ?? '10,100,1000').split(',').map(Number);
const BYTES_PUTS = Number(process.env.BENCH_BYTES_PUTS ?? 5);
const LATENCY_PUTS = Number(process.env.BENCH_LATENCY_PUTS ?? 200);
const LATENCY_WARM_UP = 40;
const LONG_VERSIONS = Number(process.env.BENCH_LONG_VERSIONS ?? 10_000);
const PUT_BYTES = 100 * 1024;
const LONG_BYTES = 42 * 1024;
const RUNS = 3;
const POLL_MS = 5;

/** node:fs as the store's write calls see it, counting the bytes written and the files created. */
function recordingFs() {
  const written = { bytes: 0, files: 0 };
  const fs: SyncFs = {
    openSync: (file, flags, mode) => {
      if (flags.includes('w')) written.files++;
      return fsSync.openSync(file, flags, mode);
    },
    writeSync: (fd, buffer, offset, length, position) => {
      const n = fsSync.writeSync(fd, buffer, offset, length, position);
      written.bytes += n;
      return n;
    },
    fsyncSync: (fd) => fsSync.fsyncSync(fd),
    closeSync: (fd) => fsSync.closeSync(fd),
    renameSync: (from, to) => fsSync.renameSync(from, to),
    unlinkSync: (file) => fsSync.unlinkSync(file),
    statSync: (file, options) => fsSync.statSync(file, options),
    fstatSync: (fd, options) => fsSync.fstatSync(fd, options),
  };
  return { fs, written };
}

const putBody = (nodes: number, rev: number, seed: number) => JSON.stringify(mapRevision(nodes, rev, seed));

/** Bytes per PUT at each history length, and PUT latency at the longest vs the shortest. */
async function benchPutHistory(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-history-'));
  try {
    const nodes = nodesFor(PUT_BYTES);
    const [short, long] = [LEVELS[0], LEVELS[LEVELS.length - 1]];
    const level = (n: number) => mapIdOf(n, 'h');
    // Maps at `short` versions for the latency baseline: each gets at most 5 of its PUTs, so it stays near `short`.
    const shorts = Array.from({ length: Math.ceil(LATENCY_PUTS / 5) }, (_, i) => mapIdOf(i, 's'));
    for (const n of LEVELS) await writeMapVersions(dir, level(n), n, nodes);
    for (const id of shorts) await writeMapVersions(dir, id, short, nodes);
    const versionSize = (await stat(path.join(dir, 'maps', level(long), `v${long}.json`))).size;
    spawnSync('sync'); // the generated files on disk: their write-back does not run under the timed PUTs

    const lines: string[] = [];
    // Bytes: the writes run inline through the recording facade.
    const recording = recordingFs();
    let service = await openService(dir, { syncFs: recording.fs });
    try {
      for (const n of LEVELS) {
        const id = level(n);
        let bytes = 0, files = 0, own = 0;
        for (let k = 0; k < BYTES_PUTS; k++) {
          const body = putBody(nodes, k + 1, n);
          recording.written.bytes = recording.written.files = 0;
          const { version } = JSON.parse(await service.call('PUT', `/api/v1/map/id/${id}/`, body)) as { version: number };
          bytes += recording.written.bytes;
          files += recording.written.files;
          own += (await stat(path.join(dir, 'maps', id, `v${version}.json`))).size;
          if (version !== n + k + 1) throw new Error(`map ${id} is at version ${version}, expected ${n + k + 1}`);
        }
        lines.push(`bytes written per PUT of a ${(versionSize / 1024).toFixed(0)} KB map at ${n} versions ` +
          `(mean of ${BYTES_PUTS} PUTs via app.request, counted at the store's writeSync; ${(files / BYTES_PUTS).toFixed(1)} file(s) created per PUT): ` +
          `${(bytes / BYTES_PUTS).toFixed(0)} bytes vs the version's own size ${(own / BYTES_PUTS).toFixed(0)} bytes = ` +
          `${(bytes / own).toFixed(2)}x (target <= 1.5x, flat across history lengths)`);
      }
    } finally {
      await service.store.close();
    }

    // Latency: the service as it runs (writer threads), PUTs at `long` and at `short` versions taking turns.
    service = await openService(dir);
    try {
      const mid = level(LEVELS[Math.floor(LEVELS.length / 2)]);
      for (let i = 0; i < LATENCY_WARM_UP; i++) await service.call('PUT', `/api/v1/map/id/${mid}/`, putBody(nodes, 100 + i, 1));
      const timed = async (id: string, body: string) => {
        const t0 = performance.now();
        await service.call('PUT', `/api/v1/map/id/${id}/`, body);
        return performance.now() - t0;
      };
      const [atLong, atShort]: number[][] = [[], []];
      for (let i = 0; i < LATENCY_PUTS; i++) {
        // Bodies made before the clock starts; which goes first alternates.
        const [bodyLong, bodyShort] = [putBody(nodes, 200 + i, 2), putBody(nodes, 200 + i, 3)];
        if (i % 2) atShort.push(await timed(shorts[i % shorts.length], bodyShort));
        atLong.push(await timed(level(long), bodyLong));
        if (!(i % 2)) atShort.push(await timed(shorts[i % shorts.length], bodyShort));
      }
      const [ms, baseMs] = [median(atLong), median(atShort)];
      const reached = service.store.versions('maps', level(long)).length;
      lines.push(`PUT latency of a ${(versionSize / 1024).toFixed(0)} KB map at ${long}-${reached} versions ` +
        `(median of ${LATENCY_PUTS}, via app.request, writer threads): ${ms.toFixed(2)} ms vs the same PUT at ${short}-${short + 5} versions ` +
        `${baseMs.toFixed(2)} ms = ${(ms / baseMs).toFixed(2)}x (target <= 1.2x)`);
    } finally {
      await service.store.close();
    }
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Polls a URL from a worker thread: one GET every `interval` ms (open loop: a
// stalled server shows as many slow answers, not one), each answer's latency
// in ms. Plain JavaScript, so the worker needs no TypeScript loader.
const POLLER = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
parentPort.once('message', ({ url, interval }) => {
  const agent = new http.Agent({ keepAlive: true });
  const latencies = [];
  let pending = 0, stopped = false, failure;
  const done = () => { if (stopped && pending === 0) { agent.destroy(); parentPort.postMessage({ latencies, failure }); } };
  const one = () => {
    const t0 = performance.now();
    pending++;
    http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode !== 200) failure = 'status ' + res.statusCode;
        latencies.push(performance.now() - t0);
        pending--;
        done();
      });
    }).on('error', (e) => { failure = e.message; pending--; done(); });
  };
  const timer = setInterval(one, interval);
  one();
  parentPort.once('message', () => { clearInterval(timer); stopped = true; done(); });
});`;

/** Starts polling `url`; `stop()` resolves with the latencies. */
function poll(url: string, interval: number) {
  const worker = new Worker(POLLER, { eval: true });
  worker.postMessage({ url, interval });
  return {
    stop: () => new Promise<number[]>((resolve, reject) => {
      worker.once('message', (m: { latencies: number[]; failure?: string }) => {
        void worker.terminate();
        if (m.failure) reject(new Error(`${url}: ${m.failure}`));
        else resolve(m.latencies);
      });
      worker.once('error', reject);
      worker.postMessage('stop');
    }),
  };
}

/** Start-up and a version=all list with one map of LONG_VERSIONS versions. */
async function benchLongHistory(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-long-'));
  try {
    const id = mapIdOf(0, 'l');
    const bytes = await writeMapVersions(dir, id, LONG_VERSIONS, nodesFor(LONG_BYTES));
    const latestFile = path.join(dir, 'maps', id, `v${LONG_VERSIONS}.json`);
    const latestSize = (await stat(latestFile)).size;
    await (await openService(dir)).store.close(); // first start (admin, keys, default templates): every child restarts
    spawnSync('sync'); // the generated files on disk: their write-back does not run under a child or the list
    const lines: string[] = [];
    const what = `one map of ${LONG_VERSIONS} versions of ${(latestSize / 1024).toFixed(0)} KB, ${(bytes / 2 ** 20).toFixed(0)} MB`;

    const app: Sample[] = [];
    const plain: Sample[] = [];
    for (let r = 0; r < RUNS; r++) {
      plain.push(await runChild('one-file', latestFile));
      app.push(await runChild('store-app', dir));
    }
    if (app.some((s) => s.versions !== LONG_VERSIONS)) throw new Error(`the store knew ${app[0].versions} of ${LONG_VERSIONS} versions`);
    const [ms, baseMs] = [median(app.map((s) => s.ms)), median(plain.map((s) => s.ms))];
    const [rss, baseRss] = [median(app.map((s) => s.rssMB)), median(plain.map((s) => s.rssMB))];
    const [total, baseTotal] = [median(app.map((s) => s.sinceStartMs)), median(plain.map((s) => s.sinceStartMs))];
    const baseline = 'baseline fresh child reading + JSON.parse of its latest file';
    lines.push(`start-up time (${what}; median of ${RUNS} fresh processes): openFileStore + createApp ${ms.toFixed(0)} ms ` +
      `(process start to ready ${total.toFixed(0)} ms) vs ${baseline} ${baseMs.toFixed(1)} ms (process start to done ${baseTotal.toFixed(0)} ms) = ` +
      `${(ms / baseMs).toFixed(1)}x (target < 2000 ms)`);
    lines.push(`start-up peak RSS (${what}): openFileStore + createApp ${rss.toFixed(0)} MB vs ${baseline} ${baseRss.toFixed(0)} MB = ` +
      `${(rss / baseRss).toFixed(2)}x (target < 300 MB)`);

    const service = await openService(dir);
    const server = await listen(service.app.fetch);
    try {
      const healthz = `${server.url}/healthz`;
      const idle = poll(healthz, POLL_MS);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const alone = await idle.stop();

      const listPath = `/api/v1/maps/?version=all&mapId=${id}&limit=10`;
      const rssBefore = process.memoryUsage().rss;
      const polling = poll(healthz, POLL_MS);
      const t0 = performance.now();
      const res = await fetch(server.url + listPath, { headers: service.headers });
      const items = (await res.json()) as Array<{ version: number }>;
      const listMs = performance.now() - t0;
      const during = await polling.stop();
      const rssAfter = process.memoryUsage().rss;
      if (res.status !== 200 || res.headers.get('x-total-count') !== String(LONG_VERSIONS) || items.length !== 10 || items[0].version !== 1) {
        throw new Error(`${listPath}: ${res.status}, X-Total-Count ${res.headers.get('x-total-count')}, ${items.length} items`);
      }

      const t1 = performance.now();
      let parsed = 0;
      for (let n = 1; n <= LONG_VERSIONS; n++) {
        if ((JSON.parse(await readFile(path.join(dir, 'maps', id, `v${n}.json`), 'utf8')) as { version: number }).version === n) parsed++;
      }
      const rawMs = performance.now() - t1;
      if (parsed !== LONG_VERSIONS) throw new Error(`the raw loop parsed ${parsed} of ${LONG_VERSIONS} versions`);

      lines.push(`GET ${listPath.replace(id, '<id>')} (${what}; through a real HTTP server, first request): ${listMs.toFixed(0)} ms ` +
        `vs baseline raw loop reading + JSON.parse of its ${LONG_VERSIONS} files ${rawMs.toFixed(0)} ms = ${(listMs / rawMs).toFixed(2)}x ` +
        `(informative; server RSS ${(rssBefore / 2 ** 20).toFixed(0)} -> ${(rssAfter / 2 ** 20).toFixed(0)} MB)`);
      lines.push(`GET /healthz while that list runs (${during.length} requests, one every ${POLL_MS} ms from a worker thread): ` +
        `p99 ${percentile(during, 99).toFixed(1)} ms, max ${Math.max(...during).toFixed(1)} ms vs /healthz alone (${alone.length} requests) ` +
        `p99 ${percentile(alone, 99).toFixed(1)} ms, max ${Math.max(...alone).toFixed(1)} ms = ${(percentile(during, 99) / percentile(alone, 99)).toFixed(1)}x (target p99 < 50 ms)`);
    } finally {
      server.close();
      await service.store.close();
    }
    lines.push(await benchListAfterRestart(dir, id, what));
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A filtered list's first request after a restart: wall and CPU time (all threads) and version files read. */
async function firstListAfterRestart(dir: string, id: string) {
  let reads = 0;
  const counting = { ...nodeFsPromises, readFile: ((file: string, encoding: BufferEncoding) => {
    if (/[/\\]v\d+\.json$/.test(file)) reads++;
    return nodeFsPromises.readFile(file, encoding);
  }) as typeof nodeFsPromises.readFile };
  const service = await openService(dir, { fs: counting });
  try {
    reads = 0;
    const [cpu0, t0] = [process.cpuUsage(), performance.now()];
    const items = JSON.parse(await service.call('GET', `/api/v1/maps/?version=all&mapId=${id}&name=Backbone%20rev%20${Math.ceil(LONG_VERSIONS / 2)}&limit=10`)) as unknown[];
    const ms = performance.now() - t0;
    const { user, system } = process.cpuUsage(cpu0);
    if (items.length !== 1) throw new Error(`the filtered list found ${items.length} versions, not 1`);
    return { ms, cpuMs: (user + system) / 1000, reads };
  } finally {
    await service.store.close();
  }
}

/** The first filtered list after a restart with the versions' outlines stored, beside the same without them (median of RUNS each). */
async function benchListAfterRestart(dir: string, id: string, what: string): Promise<string> {
  const outlines = path.join(dir, 'maps', id, '.outlines');
  const [kept, missing]: Array<Array<{ ms: number; cpuMs: number; reads: number }>> = [[], []];
  for (let r = 0; r < RUNS; r++) {
    await unlink(outlines); // as a folder of an earlier release: the first list reads every version once and stores their outlines
    missing.push(await firstListAfterRestart(dir, id));
    kept.push(await firstListAfterRestart(dir, id));
  }
  const [ms, baseMs] = [median(kept.map((s) => s.ms)), median(missing.map((s) => s.ms))];
  const [cpu, baseCpu] = [median(kept.map((s) => s.cpuMs)), median(missing.map((s) => s.cpuMs))];
  return `GET /api/v1/maps/?version=all&mapId=<id>&name=<one version's>&limit=10 as the first request after a restart (${what}; ` +
    `app.request, median of ${RUNS}): outlines stored ${ms.toFixed(0)} ms, CPU ${cpu.toFixed(0)} ms, ${kept[0].reads} version files read ` +
    `vs baseline the same without outlines (a folder of an earlier release) ${baseMs.toFixed(0)} ms, CPU ${baseCpu.toFixed(0)} ms, ` +
    `${missing[0].reads} version files read = ${(ms / baseMs).toFixed(3)}x time, ${(cpu / baseCpu).toFixed(3)}x CPU (target: reads at most its page)`;
}

export async function benchHistory(): Promise<string[]> {
  return [...(await benchPutHistory()), ...(await benchLongHistory())];
}
