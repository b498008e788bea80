// The built-in OpenID provider under anonymous load: 50,000 `GET /oidc/auth`
// requests (each a new sign-in interaction, as crawlers and attackers make
// them; no cookies), 50 connections. Throughput over the last 5,000 beside
// the first 5,000 of the same run (flat: nothing scans the stored
// interactions), the heap after a GC and the RSS along the way (flat once
// auth.oidc.maxInteractions interactions are held), how many are held, and
// how often the provider's document in the data folder was written (never,
// for requests without a password). Then 5,000 anonymous visits of the
// logout page, which make oidc-provider save a session each.
// BENCH_OIDC_REQUESTS scales the run down (the first and last tenth are
// measured). Runnable alone: `node --import tsx bench/oidc.ts`.
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { responseEnd } from './http-response.ts';

const TOTAL = Number(process.env.BENCH_OIDC_REQUESTS ?? 50_000);
const CONNECTIONS = 50;
const CB = 'https://app.example.net/callback';

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
let gc: (() => void) | undefined;
function memory() {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

// ---- the load generator, in a worker thread so it does not share the server's event loop ----
// (autocannon ends a run of a fixed number of requests on its one-second tick, too coarse
// here, and bench/request-worker.ts takes a 3xx for a failure.)

type Job = { port: number; path: string; count: number; connections: number; status: number };
/** `job.count` requests over `job.connections` keep-alive connections; resolves with the elapsed ms. */
async function load(job: Job): Promise<number> {
  const request = Buffer.from(`GET ${job.path} HTTP/1.1\r\nhost: 127.0.0.1:${job.port}\r\naccept: text/html\r\n\r\n`);
  let left = job.count;
  const lane = () => new Promise<void>((resolve, reject) => {
    const socket = net.connect({ port: job.port, host: '127.0.0.1', noDelay: true });
    let received: Buffer = Buffer.alloc(0);
    const next = () => {
      if (left <= 0) {
        socket.destroy();
        resolve();
        return;
      }
      left--;
      socket.write(request);
    };
    socket.on('connect', next);
    socket.on('error', reject);
    socket.on('data', (data: Buffer) => {
      received = received.length ? Buffer.concat([received, data]) : data;
      try {
        const done = responseEnd(received);
        if (!done) return;
        if (done.status !== job.status) throw new Error(`${job.path}: answered ${done.status}, expected ${job.status}`);
        received = received.subarray(done.end);
        next();
      } catch (e) {
        socket.destroy();
        reject(e);
      }
    });
  });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: job.connections }, lane));
  return performance.now() - t0;
}

if (!isMainThread && workerData?.oidcBenchClient) {
  parentPort!.on('message', (job: Job) => {
    load(job).then((ms) => parentPort!.postMessage({ ms }), (e: Error) => parentPort!.postMessage({ error: e.message }));
  });
}

function client() {
  // A worker does not inherit the TypeScript loader of the thread that starts it (Node 20).
  const self = JSON.stringify(import.meta.url);
  const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${self}); })`,
    { eval: true, workerData: { oidcBenchClient: true } });
  return {
    /** Requests per second of `count` requests of `path`, each of which must be answered `status`. */
    rate: (port: number, path: string, count: number, status: number) => new Promise<number>((resolve, reject) => {
      const failed = (e: Error) => reject(e);
      worker.once('error', failed);
      worker.once('message', (m: { ms?: number; error?: string }) => {
        worker.off('error', failed);
        if (m.error) reject(new Error(m.error));
        else resolve(count / (m.ms! / 1000));
      });
      worker.postMessage({ port, path, count, connections: CONNECTIONS, status } satisfies Job);
    }),
    close: () => worker.terminate(),
  };
}

export async function benchOidc(): Promise<string[]> {
  // Loaded here, not above: the client worker loads this module too and needs none of it.
  const { oidcStorageOf, OIDC_STATE } = await import('../auth/oidc/adapter.ts');
  const { parseSettings } = await import('../config/settings.ts');
  const { createMemoryLogger } = await import('../log.ts');
  const { createApp } = await import('../server.ts');
  const { openFileStore } = await import('../store/file.ts');
  const { listen } = await import('./service.ts');

  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-oidc-'));
  const store = await openFileStore(dir);
  let stateWrites = 0;
  const update = store.update.bind(store);
  store.update = ((collection, key, fn) => {
    if (key === OIDC_STATE) stateWrites++;
    return update(collection, key, fn);
  }) as typeof store.update;
  let server: { url: string; close: () => void } | undefined;
  const load = client();
  try {
    // baseUrl is only named in URLs the provider writes; the requests go to the listener's address.
    const settings = parseSettings({
      server: { baseUrl: 'https://maps.example.net' },
      auth: { backend: 'oidc', oidc: { issuer: 'builtin', clients: [
        { client_id: 'editor', redirect_uris: [CB], scope: 'svc:maps:read', default_scopes: 'svc:maps:read' },
      ] } },
    }, {}, dir);
    const app = await createApp({ settings, store: store, log: createMemoryLogger(), adminPassword: 'benchmark password 1' });
    server = await listen(app.fetch);
    const port = Number(new URL(server.url).port);
    const max = settings.auth.oidc.maxInteractions;
    const query = new URLSearchParams({ client_id: 'editor', redirect_uri: CB, response_type: 'code', scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
    const auth = `/oidc/auth?${query}`;
    const run = (target: string, count: number, status: number) => load.rate(port, target, count, status);
    const held = () => oidcStorageOf(store)?.counts().memory ?? {};

    const WARM_UP = 1_000;
    await run(auth, WARM_UP, 303); // JIT warm-up; these interactions are held too
    const edge = Math.max(1, Math.round(TOTAL / 10));
    const start = memory();
    const first = await run(auth, edge, 303);
    const afterFirst = memory();
    const half = Math.max(0, Math.round(TOTAL / 2) - edge);
    if (half) await run(auth, half, 303);
    const middle = memory();
    const rest = TOTAL - 2 * edge - half;
    if (rest > 0) await run(auth, rest, 303);
    const last = await run(auth, edge, 303);
    const end = memory();
    const interactions = held().Interaction ?? 0;

    const logout = await run('/oidc/session/end', edge, 200);
    const sessions = held().Session ?? 0;
    const n = (x: number) => x.toLocaleString('en-US');
    return [
      `GET /oidc/auth (anonymous, a new interaction each), ${n(TOTAL)} requests after ${n(WARM_UP)} of warm-up, ${CONNECTIONS} connections: last ${n(edge)} ${last.toFixed(0)} req/s vs first ${n(edge)} ${first.toFixed(0)} req/s = ${(last / first).toFixed(2)}x (target >= 0.9x)`,
      `  heap after GC: ${mb(start.heapUsed)} at start, ${mb(afterFirst.heapUsed)} after ${n(edge)}, ${mb(middle.heapUsed)} after ${n(edge + half)}, ${mb(end.heapUsed)} after ${n(TOTAL)}: ${(end.heapUsed - middle.heapUsed >= 0 ? '+' : '')}${mb(end.heapUsed - middle.heapUsed)} over the second half (target: flat once ${n(max)} are held)`,
      `  RSS: ${mb(start.rss)} at start, ${mb(middle.rss)} after ${n(edge + half)}, ${mb(end.rss)} after ${n(TOTAL)}`,
      `  interactions held: ${n(interactions)} (auth.oidc.maxInteractions ${n(max)}); writes of private/${OIDC_STATE}.json: ${stateWrites}`,
      `GET /oidc/session/end (anonymous, saves a session each), ${n(edge)} requests: ${logout.toFixed(0)} req/s; sessions held: ${n(sessions)} (at most ${n(max)}), all in memory; writes of private/${OIDC_STATE}.json: ${stateWrites}`,
    ];
  } finally {
    await load.close();
    server?.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await benchOidc()) console.log(line);
}
