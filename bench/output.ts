// Full map output (issue 5): the demo map (3 layers over the executed demo
// datasets in data/, copied to a temp folder) through the authenticated route
// /api/v1/output/map/<id>/ and its /svg/ variant, on a real @hono/node-server
// listener: median time per request sent one after another, and requests/s
// under 20 concurrent connections. autocannon runs in a worker thread so the
// load generator does not share the event loop it measures.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { copyDemoData } from '../test/helpers/demo-data.ts';
import { listen, requestsPerSecond, startService } from './service.ts';

const SEQUENTIAL = Number(process.env.BENCH_OUTPUT_REQUESTS ?? 40);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function sequentialMs(url: string, headers: Record<string, string>) {
  const times: number[] = [];
  for (let i = 0; i < SEQUENTIAL + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    if (i >= 3) times.push(performance.now() - t0); // the first few warm the JIT and caches
  }
  return median(times);
}

export async function benchOutput(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-output-'));
  try {
    await copyDemoData(dir);
    const { app, store, headers } = await startService(dir);
    const maps = (await (await app.request('/api/v1/public/maps/')).json()) as { mapId: string }[];
    if (maps.length === 0) throw new Error('the demo data has no published map (run cli/seed-demo.ts)');
    const mapId = maps[0].mapId;
    const server = await listen(app.fetch);
    const base = `${server.url}/api/v1/output/map/${mapId}/`;
    const lines: string[] = [];
    try {
      const layers = ((await (await fetch(base, { headers })).json()) as { configuration: { layers: unknown[] } }).configuration.layers.length;
      for (const [label, url] of [['JSON', base], ['SVG', `${base}svg/`]] as const) {
        const ms = await sequentialMs(url, headers);
        const perSecond = await requestsPerSecond(url, headers, CONNECTIONS, DURATION_S);
        lines.push(`map output ${label} (${layers} layers, demo data): ${ms.toFixed(1)} ms/request sequential; ` +
          `${perSecond.toFixed(0)} req/s at ${CONNECTIONS} connections`);
      }
    } finally {
      server.close();
      await store.close();
    }
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await benchOutput()) console.log(line);
}
