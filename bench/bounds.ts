// Bounded work (issue 27), each figure beside a same-run baseline: /healthz
// and an authenticated list's p99 while 8 anonymous clients hammer the
// worst-case picture (a public map drawn with a template that draws one rect
// 8,000 units wide, SVG and PNG at changing widths) against the same with no
// load; an ordinary public SVG's throughput while the hostile one is asked
// for, against it alone; the renders 100 distinct widths cost against the
// size steps they fall in; a cached picture's req/s against a bare route
// sending the same bytes; and RSS fresh, at the peak of a mixed load and a
// while after it (bench/bounds-rss.ts: the service in a process of its own).
// Load generators (autocannon) and the timed requests run in worker threads.
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SIZE_STEPS_PX } from '../schema/picture.ts';
import { copyDemoData } from '../test/helpers/demo-data.ts';
import { benchBoundsRss } from './bounds-rss.ts';
import { hostileMap, widthsOf } from './hostile-map.ts';
import { requestWorker } from './request-worker.ts';
import { listen, requestsPerSecond, startService } from './service.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const HOSTILE_CLIENTS = 8;

type Service = Awaited<ReturnType<typeof startService>>;

/**
 * Anonymous clients asking `paths` in turn for `seconds`; any answer counts (503s are the point).
 * A hostile request may wait for a thread and then draw for a whole time budget: autocannon's
 * default 10 s timeout dropped them all uncounted, so it waits longer than any budget.
 */
function hammer(url: string, paths: string[], connections: number, seconds: number) {
  return autocannon({ url, connections, duration: seconds, timeout: 120, workers: 1, requests: paths.map((p) => ({ method: 'GET', path: p })) });
}

/** Answers the service sent to requests whose path contains `marker`, by status: counted where they leave, whatever the client made of them. */
function countAnswers(fetch: Service['app']['fetch'], marker: string) {
  const counts = new Map<number, number>();
  const counted = async (req: Request, env?: unknown) => {
    const res = await fetch(req, env);
    if (req.url.includes(marker)) counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
    return res;
  };
  const take = () => {
    const text = [...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${n} ${status}`).join(', ') || 'none';
    counts.clear();
    return text;
  };
  return { counted, take };
}

/**
 * p99 latency (ms, to the microsecond) of `url` from one keep-alive connection
 * for `seconds`, each request timed in a worker thread (autocannon rounds to
 * whole milliseconds, so an idle p99 read 0 and no ratio meant anything); any
 * non-2xx fails.
 */
async function p99(url: string, headers: Record<string, string>, seconds: number) {
  const client = requestWorker();
  try {
    const { origin, pathname } = new URL(url);
    const latencies = await client.latencies({ origin, headers, lanes: [[{ method: 'GET', path: pathname, body: '' }]], forMs: seconds * 1000 })
      .catch((e: Error) => Promise.reject(new Error(`timed GET ${url}: ${e.message}`)));
    latencies.sort((a, b) => a - b);
    return latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];
  } finally {
    await client.close();
  }
}
const ms = (x: number) => `${x.toFixed(3)} ms`;

export async function benchBounds(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-bounds-'));
  const lines: string[] = [];
  try {
    await copyDemoData(dir);
    const rendered: string[] = [];
    const service = await startService(dir, {}, undefined, (key) => rendered.push(key));
    const { app, headers } = service;
    const mapId = ((await (await app.request('/api/v1/public/maps/')).json()) as { mapId: string }[])[0].mapId;
    const hostileId = await hostileMap(app.request, headers, mapId);
    // The service's own fetch gets the connection (env) that per-address fairness reads.
    const answers = countAnswers(app.fetch, hostileId);
    const server = await listen(answers.counted);
    const widths = widthsOf();
    const hostilePaths = widths.flatMap((w) => [`/api/v1/public/output/map/${hostileId}/svg/?width=${w}`, `/api/v1/public/output/map/${hostileId}/png/?width=${w}`]);
    try {
      const list = `${server.url}/api/v1/maps/`;
      const health = `${server.url}/healthz`;
      const idle = { health: await p99(health, {}, SECONDS), list: await p99(list, headers, SECONDS) };
      answers.take();
      const load = hammer(server.url, hostilePaths, HOSTILE_CLIENTS, 2 * SECONDS + 2);
      const busy = { health: await p99(health, {}, SECONDS), list: await p99(list, headers, SECONDS) };
      const hostile = await load;
      lines.push(`/healthz p99 while ${HOSTILE_CLIENTS} anonymous clients hammer the large-shape picture (SVG and PNG, 100 widths): ${ms(busy.health)} ` +
        `vs idle ${ms(idle.health)} = ${(busy.health / idle.health).toFixed(1)}x (target < 50 ms, within 3x)`);
      lines.push(`GET /api/v1/maps/ (admin token) p99 meanwhile: ${ms(busy.list)} vs idle ${ms(idle.list)} = ${(busy.list / idle.list).toFixed(1)}x ` +
        `(target < 50 ms, within 3x); the service answered the hostile clients ${answers.take()} ` +
        `(they saw ${hostile['2xx']} 2xx, ${hostile.non2xx} non-2xx, ${hostile.timeouts} timeouts, ${hostile.errors} errors)`);

      const ordinary = `${server.url}/api/v1/public/output/map/${mapId}/svg/`;
      const alone = await requestsPerSecond(ordinary, {}, 4, SECONDS);
      const during = hammer(server.url, hostilePaths, HOSTILE_CLIENTS, SECONDS + 1);
      const withHostile = await requestsPerSecond(ordinary, {}, 4, SECONDS);
      await during;
      lines.push(`ordinary public SVG while the hostile one is asked for: ${withHostile.toFixed(0)} req/s vs alone ${alone.toFixed(0)} req/s = ` +
        `${(withHostile / alone).toFixed(2)}x (target >= 0.5x)`);

      rendered.length = 0;
      for (const w of widths) await fetch(`${server.url}/api/v1/public/output/map/${mapId}/svg/?width=${w + 1}`).then((r) => r.arrayBuffer());
      const steps = new Set(widths.map((w) => SIZE_STEPS_PX.find((s) => s >= w + 1))).size;
      lines.push(`100 distinct widths (${widths[0] + 1}-${widths[99] + 1} px) of the demo map's SVG: ${rendered.filter((k) => k.startsWith('svg')).length} renders ` +
        `vs ${steps} size steps they fall in (target: at most the steps)`);

      const res = await fetch(ordinary);
      const bytes = Buffer.from(await res.arrayBuffer());
      const bare = new Hono();
      bare.get('/svg', () => new Response(bytes, { status: 200, headers: { 'content-type': 'image/svg+xml', etag: res.headers.get('etag') ?? '' } }));
      const baseline = await listen(bare.fetch);
      try {
        let ours = 0, base = 0;
        for (let round = 0; round < 2; round++) {
          ours = Math.max(ours, await requestsPerSecond(ordinary, {}, 20, SECONDS));
          base = Math.max(base, await requestsPerSecond(`${baseline.url}/svg`, {}, 20, SECONDS));
        }
        lines.push(`cached public SVG (${bytes.length} bytes): ${ours.toFixed(0)} req/s vs bare Hono route sending the same bytes ${base.toFixed(0)} req/s = ` +
          `${(ours / base).toFixed(2)}x (target >= 0.7x)`);
      } finally {
        baseline.close();
      }
    } finally {
      server.close();
      await service.store.close();
    }
    lines.push(...await benchBoundsRss());
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await benchBounds()) console.log(line);
}
