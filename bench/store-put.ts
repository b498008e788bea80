// PUT throughput (issue 2): PUT /api/v1/map/id/{id}/ through a real HTTP
// server (the client in a worker thread, request-worker.ts) and through
// app.request, sequential (one map) and 20-way concurrent (20 maps, one
// writer each), in versions/s. Baseline: a raw loop that durably writes
// exactly the files the store wrote, the way the store must: each PUT is one
// new version file, maps/<id>/v<N>.json, written to a temp file, fsynced,
// renamed, and its folder fsynced; same concurrency (one lane per map). The
// bytes are read back from the store's own files after each round, and the
// raw loop's files are checked against the store's at the end.
import * as nodeFs from 'node:fs/promises';
import { mkdir, mkdtemp, readFile, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseSettings } from '../config/settings.ts';
import { createMemoryLogger } from '../log.ts';
import { createApp } from '../server.ts';
import { openFileStore } from '../store/file.ts';
import type { Store } from '../store/types.ts';
import { requestWorker, type Call } from './request-worker.ts';
import { listen } from './service.ts';

const SEQUENTIAL = Number(process.env.BENCH_PUTS ?? 300);
const WRITERS = 20;
const PER_WRITER = Math.max(5, Math.round(SEQUENTIAL / 30) * 5);
const PASSWORD = 'benchmark password 1';
const WARM_UP = 200;
const WARM_UP_PER_WRITER = 25;

/** One file the store wrote: `<id>/v<N>.json` under maps/, and its bytes. */
type Write = { folder: string; name: string; bytes: Buffer };

/** The file writes of the last `count` PUTs on map `id`: its last `count` version files, read back from the data folder. */
async function lastWrites(store: Store, dataDir: string, id: string, count: number): Promise<Write[]> {
  const numbers = store.versions('maps', id).slice(-count);
  return Promise.all(numbers.map(async (n) =>
    ({ folder: id, name: `v${n}.json`, bytes: await readFile(path.join(dataDir, 'maps', id, `v${n}.json`)) })));
}

function revision(i: number, writer: number) {
  return {
    name: `Backbone ${writer} rev ${i}`,
    configuration: {
      initialViewStrategy: 'manual', viewport: { center: { lat: 39.8, lng: -98.5 }, zoom: 4 }, background: '#f8f8f8',
      showLegend: true, layers: [{ name: 'Core', visible: true, color: '#1f77b4', nodeWidth: 6, edgeWidth: 3 }],
    },
    overrides: {},
  };
}

/**
 * The raw baseline: each map's lane durably writes its version files in
 * order (temp, write, fsync, close, rename, fsync of the map's folder), lanes
 * in parallel. Folder descriptors are opened once (`folders`), as the store's
 * writer keeps them open.
 */
async function rawLoop(dir: string, writes: Write[], folders: Map<string, FileHandle>): Promise<number> {
  const byFolder = new Map<string, Write[]>();
  for (const w of writes) {
    const list = byFolder.get(w.folder);
    if (list) list.push(w);
    else byFolder.set(w.folder, [w]);
  }
  for (const folder of byFolder.keys()) {
    if (!folders.has(folder)) {
      await mkdir(path.join(dir, folder), { recursive: true });
      folders.set(folder, await nodeFs.open(path.join(dir, folder), 'r'));
    }
  }
  const t0 = performance.now();
  await Promise.all([...byFolder].map(async ([folder, list]) => {
    const handleOf = folders.get(folder)!;
    for (const { name, bytes } of list) {
      const temp = path.join(dir, folder, `.${name}.tmp`);
      const handle = await nodeFs.open(temp, 'wx');
      await handle.write(bytes, 0, bytes.length, 0);
      await handle.sync();
      await handle.close();
      await nodeFs.rename(temp, path.join(dir, folder, name));
      await handleOf.sync();
    }
  }));
  return performance.now() - t0;
}

/**
 * Runs `rounds` rounds of: our PUTs (timed), then the raw loop over the bytes
 * of their file writes (timed). Interleaving in short rounds lets both see the
 * same disk and machine load, which on a shared machine drifts.
 */
async function interleaved(rounds: number, rawDir: string,
  puts: (round: number) => Promise<{ count: number; ms: number; writes: () => Promise<Write[]> }>) {
  await mkdir(rawDir, { recursive: true });
  const folders = new Map<string, FileHandle>();
  const total = { count: 0, ms: 0, rawMs: 0, bytes: 0 };
  try {
    for (let r = 0; r < rounds; r++) {
      const { count, ms, writes: collect } = await puts(r);
      const writes = await collect();
      if (writes.length !== count) throw new Error(`${count} PUTs, but ${writes.length} version files to write`);
      total.count += count;
      total.ms += ms;
      total.bytes += writes.reduce((n, w) => n + w.bytes.length, 0);
      total.rawMs += await rawLoop(rawDir, writes, folders);
    }
  } finally {
    for (const handle of folders.values()) await handle.close();
  }
  return total;
}

type Via = 'a real HTTP server' | 'app.request';

async function runPut(via: Via): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-put-'));
  const dataDir = path.join(dir, 'data');
  const store = await openFileStore(dataDir, { log: () => undefined });
  const settings = parseSettings({ data: { dir: dataDir } }, {}, dir);
  const app = await createApp({ settings, store, log: createMemoryLogger(), adminPassword: PASSWORD });
  const server = via === 'app.request' ? undefined : await listen(app.fetch);
  const client = server ? requestWorker() : undefined;
  try {
    /** One request through app.request; `body` is the JSON text as a client would send it. */
    const call = async (method: string, url: string, body?: string, token?: string) => {
      const res = await app.request(url, { method, body,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, string & number>;
    };
    const token = (await call('POST', '/api/v1/auth/token', JSON.stringify({ grant_type: 'password', username: 'admin', password: PASSWORD }))).access_token;
    const headers = { authorization: `Bearer ${token}` };
    /** Sends each lane's PUTs in order, lanes in parallel; the elapsed ms. */
    const send = async (lanes: Call[][]): Promise<{ count: number; ms: number }> => {
      const count = lanes.reduce((n, lane) => n + lane.length, 0);
      if (server && client) return { count, ms: await client.send({ origin: server.url, headers, lanes }) };
      const t0 = performance.now();
      await Promise.all(lanes.map(async (lane) => {
        for (const c of lane) await call(c.method, c.path, c.body, token);
      }));
      return { count, ms: performance.now() - t0 };
    };
    const put = (id: string, i: number, writer: number): Call =>
      ({ method: 'PUT', path: `/api/v1/map/id/${id}/`, body: JSON.stringify(revision(i, writer)) });
    const create = async (count: number) => {
      const created: string[] = [];
      for (let w = 0; w < count; w++) created.push((await call('POST', '/api/v1/map/', JSON.stringify(revision(0, w)), token)).mapId);
      return created;
    };
    const ids = await create(WRITERS);

    // Warm-up on maps of their own, untimed, sequential and concurrent: the
    // first thousand or so requests run while V8 is still compiling the
    // request path (and the store starts its writer threads); the raw loop
    // has next to nothing to compile.
    const warm = await create(WRITERS);
    await send([Array.from({ length: WARM_UP }, (_, i) => put(warm[0], i + 1, 0))]);
    await send(warm.map((id, w) => Array.from({ length: WARM_UP_PER_WRITER }, (_, i) => put(id, WARM_UP + i + 1, w))));

    const chunk = 25;
    const seq = await interleaved(Math.ceil(SEQUENTIAL / chunk), path.join(dir, 'raw-seq'), async (r) => ({
      ...(await send([Array.from({ length: chunk }, (_, i) => put(ids[0], r * chunk + i + 1, 0))])),
      writes: () => lastWrites(store, dataDir, ids[0], chunk),
    }));
    const perRound = 5;
    const conc = await interleaved(Math.ceil(PER_WRITER / perRound), path.join(dir, 'raw-conc'), async (r) => ({
      ...(await send(ids.map((id, w) => Array.from({ length: perRound }, (_, i) => put(id, r * perRound + i + 1, w))))),
      writes: async () => (await Promise.all(ids.map((id) => lastWrites(store, dataDir, id, perRound)))).flat(),
    }));
    // The baseline wrote what the store wrote: every version file it wrote is the store's, byte for byte.
    for (const [raw, lane] of [[path.join(dir, 'raw-seq'), [ids[0]]], [path.join(dir, 'raw-conc'), ids]] as const) {
      for (const id of lane) {
        for (const name of await nodeFs.readdir(path.join(raw, id))) {
          const [ours, theirs] = await Promise.all([readFile(path.join(dataDir, 'maps', id, name)), readFile(path.join(raw, id, name))]);
          if (!ours.equals(theirs)) throw new Error(`maps/${id}/${name} differs from the bytes the baseline wrote`);
        }
      }
    }

    const { version } = await call('GET', `/api/v1/map/id/${ids[0]}/`, undefined, token);
    const expected = 1 + seq.count + conc.count / WRITERS;
    if (version !== expected) throw new Error(`map ${ids[0]} is at version ${version}, expected ${expected}`);

    const lines: string[] = [];
    for (const [label, r] of [['sequential', seq], [`${WRITERS}-way concurrent`, conc]] as const) {
      const ours = (r.count / r.ms) * 1000;
      const raw = (r.count / r.rawMs) * 1000;
      lines.push(`PUT /api/v1/map/id/{id}/ ${label} via ${via} (${r.count} versions, avg version file ${(r.bytes / r.count / 1024).toFixed(1)} KB): ` +
        `${ours.toFixed(0)} versions/s vs baseline raw durable write loop of the same files ` +
        `(temp, fsync, rename, folder fsync; interleaved) ${raw.toFixed(0)} writes/s = ${(ours / raw).toFixed(2)}x (target >= 0.5x)`);
    }
    return lines;
  } finally {
    await client?.close();
    server?.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchPut(): Promise<string[]> {
  return [...(await runPut('a real HTTP server')), ...(await runPut('app.request'))];
}
