// PUT throughput (issue 2): PUT /api/v1/map/id/{id}/ through a real HTTP
// server (the client in a worker thread, request-worker.ts) and through
// app.request, sequential (one map) and 20-way concurrent (20 maps, one
// writer each), in versions/s. Baseline: a raw loop that durably writes exactly the
// bytes the store wrote, the way the issue describes it: write a temp file,
// fsync, rename; same concurrency. The bytes of each write are the map's
// canonical document cut after that version (checked against the files on
// disk at the end).
import * as nodeFs from 'node:fs/promises';
import { mkdir, mkdtemp, readFile, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseSettings } from '../config/settings.ts';
import { createMemoryLogger } from '../log.ts';
import { createApp } from '../server.ts';
import { canonicalJson } from '../store/canonical-json.ts';
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

type Write = { name: string; bytes: Buffer };
type Doc = { versions: unknown[] };

/** The file writes of the last `count` PUTs on map `id`: its document as it stood after each of them. */
function lastWrites(store: Store, id: string, count: number): Write[] {
  const doc = store.get<Doc>('maps', id)!;
  const writes: Write[] = [];
  for (let n = doc.versions.length - count + 1; n <= doc.versions.length; n++) {
    writes.push({ name: `${id}.json`, bytes: Buffer.from(canonicalJson({ ...doc, versions: doc.versions.slice(0, n) })) });
  }
  return writes;
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
 * The raw baseline: each writer durably writes its byte sequence (temp, fsync,
 * rename), writers in parallel. With `folder` (an open handle of `dir`) each
 * rename is also followed by an fsync of the folder, the guarantee the store
 * gives: a second, informative baseline of the same durability.
 */
async function rawLoop(dir: string, writes: Write[], folder?: FileHandle): Promise<number> {
  const byTarget = new Map<string, Buffer[]>();
  for (const w of writes) {
    const list = byTarget.get(w.name);
    if (list) list.push(w.bytes);
    else byTarget.set(w.name, [w.bytes]);
  }
  const t0 = performance.now();
  await Promise.all([...byTarget].map(async ([name, list]) => {
    for (const bytes of list) {
      const temp = path.join(dir, `${name}.tmp`);
      const handle = await nodeFs.open(temp, 'wx');
      await handle.write(bytes, 0, bytes.length, 0);
      await handle.sync();
      await handle.close();
      await nodeFs.rename(temp, path.join(dir, name));
      await folder?.sync();
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
  puts: (round: number) => Promise<{ count: number; ms: number; writes: () => Write[] }>) {
  await mkdir(rawDir, { recursive: true });
  const folder = await nodeFs.open(rawDir, 'r');
  const total = { count: 0, ms: 0, rawMs: 0, syncedMs: 0, bytes: 0 };
  for (let r = 0; r < rounds; r++) {
    const { count, ms, writes: collect } = await puts(r);
    const writes = collect();
    total.count += count;
    total.ms += ms;
    total.bytes += writes.reduce((n, w) => n + w.bytes.length, 0);
    total.rawMs += await rawLoop(rawDir, writes);
    total.syncedMs += await rawLoop(rawDir, writes, folder);
  }
  await folder.close();
  return total;
}

type Via = 'a real HTTP server' | 'app.request';

async function runPut(via: Via): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-put-'));
  const store = await openFileStore(path.join(dir, 'data'), { log: () => undefined });
  const settings = parseSettings({ data: { dir: path.join(dir, 'data') } }, {}, dir);
  const app = await createApp({ settings, store, log: createMemoryLogger(), adminPassword: PASSWORD });
  const server = via === 'app.request' ? undefined : await listen(app.fetch);
  const client = server ? requestWorker() : undefined;
  try {
    /** One request through app.request; `body` is the JSON text as a client would send it. */
    const call = async (method: string, url: string, body?: string, token?: string) => {
      const res = await app.request(url, { method, body,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, any>;
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
      writes: () => lastWrites(store, ids[0], chunk),
    }));
    const perRound = 5;
    const conc = await interleaved(Math.ceil(PER_WRITER / perRound), path.join(dir, 'raw-conc'), async (r) => ({
      ...(await send(ids.map((id, w) => Array.from({ length: perRound }, (_, i) => put(id, r * perRound + i + 1, w))))),
      writes: () => ids.flatMap((id) => lastWrites(store, id, perRound)),
    }));
    // The baseline wrote what the store wrote: each map's file holds its last document's bytes.
    for (const id of ids) {
      const onDisk = await readFile(path.join(dir, 'data', 'maps', `${id}.json`));
      if (!onDisk.equals(lastWrites(store, id, 1)[0].bytes)) throw new Error(`maps/${id}.json differs from the bytes the baseline writes`);
    }

    const { version } = await call('GET', `/api/v1/map/id/${ids[0]}/`, undefined, token);
    const expected = 1 + seq.count + conc.count / WRITERS;
    if (version !== expected) throw new Error(`map ${ids[0]} is at version ${version}, expected ${expected}`);

    const lines: string[] = [];
    for (const [label, r] of [['sequential', seq], [`${WRITERS}-way concurrent`, conc]] as const) {
      const ours = (r.count / r.ms) * 1000;
      const raw = (r.count / r.rawMs) * 1000;
      const synced = (r.count / r.syncedMs) * 1000;
      lines.push(`PUT /api/v1/map/id/{id}/ ${label} via ${via} (${r.count} versions, avg file ${(r.bytes / r.count / 1024).toFixed(1)} KB): ` +
        `${ours.toFixed(0)} versions/s vs baseline raw durable write loop of the same bytes (temp, fsync, rename; interleaved) ` +
        `${raw.toFixed(0)} writes/s = ${(ours / raw).toFixed(2)} x (target >= 0.5 x); ` +
        `vs the same loop with a folder fsync after each rename ${synced.toFixed(0)} writes/s = ${(ours / synced).toFixed(2)} x (informative)`);
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
