// Fresh pictures (issue 29), each beside the same picture drawn without
// spreading markers and placing labels (renderTopologySvg's `plain`), which
// is the cost those two add and what every live layer, size step and
// weathermap bucket pays: a geographic SVG of a generated 2,000-node /
// 5,000-edge backbone, drawn on a thread with a render thread's heap limits
// as the service draws it (fresh-geographic.ts; target at most 80 ms), and
// a one-layer map of the demo's North America dataset over HTTP with the
// output cache off, so every request draws the picture (target at least
// 200 req/s at one connection).
// Times are the best of several runs: other work on the machine only adds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { parseSettings } from '../config/settings.ts';
import { threadLimits } from '../pool/pool.ts';
import { renderMapSvg } from '../render/svg.ts';
import type { MapConfiguration } from '../schema/map.ts';
import { copyDemoData } from '../test/helpers/demo-data.ts';
import { best, type FreshTimes } from './fresh-geographic.ts';
import { listen, requestsPerSecond, startService } from './service.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;

/** The fresh geographic picture's times, drawn on a thread with the default render thread's heap limits. */
function onRenderThread(dir: string): Promise<FreshTimes> {
  const { renderMemoryMB } = parseSettings({ data: { dir } }, {}, dir).output;
  const worker = new Worker(new URL('./fresh-thread.mjs', import.meta.url), { resourceLimits: threadLimits(renderMemoryMB), execArgv: [] });
  return new Promise((resolve, reject) => {
    worker.once('message', (times: FreshTimes) => { resolve(times); void worker.terminate(); });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the fresh picture's thread ended (exit code ${code}) without its times`)));
  });
}

const versus = (what: string, full: number, plain: number) =>
  `${what}: ${full.toFixed(1)} ms vs the same without spreading and label placement ${plain.toFixed(1)} ms = ${(full / plain).toFixed(2)}x ` +
  `(they add ${(full - plain).toFixed(1)} ms)`;

export async function benchFresh(): Promise<string[]> {
  const lines: string[] = [];
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-fresh-'));
  try {
    const { full, plain } = await onRenderThread(dir);
    lines.push(`${versus('fresh geographic SVG, 2,000 nodes / 5,000 edges, on a render thread', full, plain)}; target <= 80 ms`);

    await copyDemoData(dir);
    let renders = 0;
    const { app, store, headers } = await startService(dir, { output: { cacheBytes: 0 } }, undefined, () => { renders++; });
    const json = { 'content-type': 'application/json', ...headers };
    try {
      const maps = (await (await app.request('/api/v1/public/maps/')).json()) as { mapId: string }[];
      const demo = (await (await app.request(`/api/v1/map/id/${maps[0].mapId}/`, { headers })).json()) as { configuration: MapConfiguration };
      // Without its traffic binding: a traffic picture is kept per time step (routes/traffic.ts), not drawn per request.
      const { traffic: _live, ...layer } = { ...demo.configuration.layers[0], mapjsonUrl: null };
      const created = await app.request('/api/v1/map/', { method: 'POST', headers: json,
        body: JSON.stringify({ name: 'One layer', configuration: { ...demo.configuration, layers: [layer] }, overrides: {} }) });
      if (created.status !== 201) throw new Error(`map: ${created.status} ${await created.text()}`);
      const id = ((await created.json()) as { mapId: string }).mapId;
      const resolved = (await (await app.request(`/api/v1/output/map/${id}/json/`, { headers })).json()) as { name: string; configuration: MapConfiguration };
      const server = await listen(app.fetch);
      try {
        const url = `${server.url}/api/v1/output/map/${id}/svg/`;
        // The render pool's threads draw their first pictures slowly (code still cold): a few first, one after another.
        for (let i = 0; i < 8; i++) await (await fetch(url, { headers })).arrayBuffer();
        // Requests in flight at once for one picture share its render (output/send.ts): at one connection each request draws it.
        let perSecond = 0, alone = 0, drawn = 0;
        for (let round = 0; round < 2; round++) {
          perSecond = Math.max(perSecond, await requestsPerSecond(url, headers, CONNECTIONS, SECONDS));
          const [before, t0] = [renders, performance.now()];
          alone = Math.max(alone, await requestsPerSecond(url, headers, 1, SECONDS));
          // What the service says it rendered meanwhile: a check that each request did draw the picture.
          drawn = Math.max(drawn, ((renders - before) * 1000) / (performance.now() - t0));
        }
        const inFull = best(40, () => renderMapSvg(resolved));
        const inPlain = best(40, () => renderMapSvg(resolved, undefined, {}, undefined, { plain: true }));
        lines.push(`fresh 1-layer map SVG over HTTP (demo's ${String(layer.name)}, output cache off): ${alone.toFixed(0)} req/s at 1 connection, renders ` +
          `counted ${drawn.toFixed(0)}/s (target >= 200 req/s); ${perSecond.toFixed(0)} req/s at ${CONNECTIONS} connections, which share renders; its ${versus('render in process', inFull, inPlain)}`);
      } finally {
        server.close();
      }
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return lines;
}
