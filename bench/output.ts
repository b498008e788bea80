// Full map output (issue 5): the demo map (3 layers over the executed demo
// datasets in data/, copied to a temp folder) through the authenticated route
// /api/v1/output/map/<id>/ and its /svg/ variant, on a real @hono/node-server
// listener: time per request sent one after another, and requests/s
// under 20 concurrent connections. The clients (autocannon, and
// request-worker.ts for one request after another) run in a worker thread so
// the load generator does not share the event loop it measures.
// The output cache (issue 20), each figure beside a same-run baseline: a
// repeated request of a public map whose layers are live (the demo's layers
// as `dynamic`) against its render on a service that keeps nothing
// (output.cacheBytes 0); requests/s of that cached public SVG against a bare
// Hono route sending the same bytes; and the demo map's PNG render against
// its SVG render, both uncached.
import { Hono } from 'hono';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { copyDemoData } from '../test/helpers/demo-data.ts';
import { requestWorker, type Call } from './request-worker.ts';
import { listen, requestsPerSecond, startService } from './service.ts';

const SEQUENTIAL = Number(process.env.BENCH_OUTPUT_REQUESTS ?? 40);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;
/** Renders are slow: fewer of them. */
const RENDERS = Math.max(5, Math.floor(SEQUENTIAL / 4));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Batches of one-after-another requests a sequential figure is the median of. */
const BATCHES = 8;

/**
 * Milliseconds per request of GETs sent one after another on a kept-alive
 * connection, by a client on a thread of its own that reads just enough of
 * each answer (bench/request-worker.ts): the median of BATCHES batches' means,
 * so the machine's other load does not decide the figure, after a few
 * requests to warm up. Not fetch() in this process: it adds most of a
 * millisecond of its own to each request (measured: 0.6-0.9 ms against a bare
 * route), more than a cached answer costs, so a ratio against a render would
 * measure the client.
 */
async function sequentialMs(url: string, headers: Record<string, string>, n = SEQUENTIAL) {
  const { origin, pathname, search } = new URL(url);
  const lane = (count: number): Call[] => Array.from({ length: count }, () => ({ method: 'GET', path: pathname + search, body: '' }));
  const perBatch = Math.max(1, Math.ceil(n / BATCHES));
  const client = requestWorker();
  try {
    await client.send({ origin, headers, lanes: [lane(3)] }); // the first few warm the JIT and caches
    const means: number[] = [];
    for (let i = 0; i < BATCHES; i++) means.push((await client.send({ origin, headers, lanes: [lane(perBatch)] })) / perBatch);
    return median(means);
  } finally {
    await client.close();
  }
}

type Service = Awaited<ReturnType<typeof startService>>;

/** The demo map again, with every layer live, published; its ID. */
async function liveCopy({ app, headers }: Service, mapId: string) {
  const map = (await (await app.request(`/api/v1/map/id/${mapId}/`, { headers })).json()) as
    { name: string; configuration: { layers: Record<string, unknown>[] }; overrides?: unknown };
  const configuration = { ...map.configuration, layers: map.configuration.layers.map((l) => ({ ...l, datatype: 'dynamic', mapjsonUrl: null })) };
  const json = { 'content-type': 'application/json', ...headers };
  const res = await app.request('/api/v1/map/', { method: 'POST', headers: json,
    body: JSON.stringify({ name: `${map.name} (live)`, configuration, overrides: map.overrides ?? {} }) });
  if (res.status !== 201) throw new Error(`live map: ${res.status} ${await res.text()}`);
  const id = ((await res.json()) as { mapId: string }).mapId;
  const published = await app.request(`/api/v1/map/id/${id}/publish/`, { method: 'POST', headers });
  if (published.status !== 200) throw new Error(`publish: ${published.status} ${await published.text()}`);
  return id;
}

async function cacheLines(dir: string, mapId: string, lines: string[]) {
  const cached = await startService(dir);
  const uncached = await startService(`${dir}-uncached`, { output: { cacheBytes: 0 } });
  const [liveId, liveUncachedId] = [await liveCopy(cached, mapId), await liveCopy(uncached, mapId)];
  const [on, off] = [await listen(cached.app.fetch), await listen(uncached.app.fetch)];
  try {
    const svgPath = `/api/v1/public/output/map/${liveId}/svg/`;
    const first = await sequentialMs(off.url + svgPath.replace(liveId, liveUncachedId), {}, RENDERS);
    const repeat = await sequentialMs(on.url + svgPath, {}, SEQUENTIAL * 10); // fast: more of them
    lines.push(`public map SVG, 3 live layers, repeated request (output cache): ${repeat.toFixed(2)} ms/request vs baseline ` +
      `its render (output.cacheBytes 0) ${first.toFixed(1)} ms = ${(first / repeat).toFixed(0)}x faster (target >= 20x)`);

    const res = await fetch(on.url + svgPath);
    const bytes = Buffer.from(await res.arrayBuffer());
    const kept = /^(content-type|etag|cache-control|content-security-policy|x-content-type-options)$/;
    const svgHeaders = Object.fromEntries([...res.headers].filter(([k]) => kept.test(k)));
    const bare = new Hono();
    // The fastest answer @hono/node-server has: a Response with a plain header object (c.body with several headers is slower).
    bare.get('/svg', () => new Response(bytes, { status: 200, headers: svgHeaders }));
    const baseline = await listen(bare.fetch);
    try {
      // Alternated, best of each: the machine's other load shifts both alike.
      let ours = 0, base = 0;
      for (let round = 0; round < 2; round++) {
        ours = Math.max(ours, await requestsPerSecond(on.url + svgPath, {}, CONNECTIONS, DURATION_S));
        base = Math.max(base, await requestsPerSecond(`${baseline.url}/svg`, {}, CONNECTIONS, DURATION_S));
      }
      lines.push(`public map SVG, 3 live layers, cached (${bytes.length} bytes): ${ours.toFixed(0)} req/s vs bare Hono route sending the same bytes ` +
        `${base.toFixed(0)} req/s = ${(ours / base).toFixed(2)}x (target >= 0.7x)`);
    } finally {
      baseline.close();
    }

    const pngPath = `/api/v1/public/output/map/${mapId}/png/`;
    const png = Buffer.from(await (await fetch(off.url + pngPath)).arrayBuffer());
    const pngMs = await sequentialMs(off.url + pngPath, {}, RENDERS);
    const svgMs = await sequentialMs(off.url + pngPath.replace('/png/', '/svg/'), {}, RENDERS);
    lines.push(`demo map PNG (${png.readUInt32BE(16)} x ${png.readUInt32BE(20)} px, ${png.length} bytes), uncached: ${pngMs.toFixed(1)} ms/request ` +
      `vs baseline its SVG uncached ${svgMs.toFixed(1)} ms = ${(pngMs / svgMs).toFixed(2)}x (the SVG render included; no target)`);
  } finally {
    on.close();
    off.close();
    await cached.store.close();
    await uncached.store.close();
  }
}

export async function benchOutput(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-output-'));
  try {
    await copyDemoData(dir);
    await copyDemoData(`${dir}-uncached`);
    const lines: string[] = [];
    let mapId: string;
    {
      const { app, store, headers } = await startService(dir);
      const maps = (await (await app.request('/api/v1/public/maps/')).json()) as { mapId: string }[];
      if (maps.length === 0) throw new Error('the demo data has no published map (run cli/seed-demo.ts)');
      mapId = maps[0].mapId;
      const server = await listen(app.fetch);
      const base = `${server.url}/api/v1/output/map/${mapId}/`;
      try {
        // The bare route answers the configuration: layers at its top level.
        const layers = ((await (await fetch(base, { headers })).json()) as { layers: unknown[] }).layers.length;
        for (const [label, url] of [['JSON', base], ['SVG', `${base}svg/`]] as const) {
          const ms = await sequentialMs(url, headers);
          const perSecond = await requestsPerSecond(url, headers, CONNECTIONS, DURATION_S);
          lines.push(`map output ${label} (${layers} layers, demo data, output cache on): ${ms.toFixed(1)} ms/request sequential; ` +
            `${perSecond.toFixed(0)} req/s at ${CONNECTIONS} connections`);
        }
      } finally {
        server.close();
        await store.close();
      }
    }
    await cacheLines(dir, mapId, lines);
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}-uncached`, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await benchOutput()) console.log(line);
}
