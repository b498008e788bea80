// Live traffic (issue 30), each figure beside a same-run baseline, against a
// real Prometheus (backfilled with promtool: 500 circuits with rates) behind
// a counting proxy: requests to the source per render at 10, 500 and 2,500
// circuits beside shumoku's rule of 2 queries per link; a live render of a
// 500-circuit map (traffic read and picture drawn, nothing kept) beside the
// same map's static render (output cache off), with the source's own answer
// time; 50 concurrent viewers of one bound map in one step bucket: round
// trips to the source and requests/s beside a cached static picture.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseSettings } from '../config/settings.ts';
import { createMemoryLogger } from '../log.ts';
import { createApp } from '../server.ts';
import { openFileStore } from '../store/file.ts';
import { createTrafficSources } from '../traffic/sources.ts';
import { noPrometheus, startPrometheus, startProxy, type Series } from '../test/helpers/prometheus.ts';
import { manyCircuits, mapBody, topology } from '../test/traffic/fixture.ts';
import { listen, requestsPerSecond } from './service.ts';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const RENDERS = Number(process.env.BENCH_TRAFFIC_RENDERS ?? 8);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const NOW = Math.floor(Date.now() / 60_000) * 60 - 120;

/** Counters of the circuits' ports rising at steady rates for the ten minutes before NOW. */
function seriesOf(n: number): Series[] {
  const out: Series[] = [];
  const ports = manyCircuits(n).flatMap((c) => [c.a, c.z]).filter((p): p is [string, string] => p !== null);
  for (const metric of ['ifHCInOctets', 'ifHCOutOctets', 'ifHighSpeed', 'ifOperStatus']) {
    ports.forEach(([instance, ifName], i) => {
      const samples: [number, number][] = [];
      for (let t = NOW - 600; t <= NOW; t += 15) {
        const bps = 1e8 * (1 + (i % 90));
        samples.push([t, metric === 'ifHighSpeed' ? 10_000 : metric === 'ifOperStatus' ? 1 : (bps * (t - NOW + 600)) / 8 * (metric === 'ifHCInOctets' ? 0.7 : 1)]);
      }
      out.push({ metric, labels: { job: 'snmp', instance, ifName }, samples });
    });
  }
  return out;
}

export async function benchTraffic(): Promise<string[]> {
  if (noPrometheus) return [`skipped: ${noPrometheus}`];
  const prom = await startPrometheus(seriesOf(500));
  const proxy = await startProxy(prom.url);
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-traffic-'));
  const lines: string[] = [];
  // Maps are created ten minutes back, so that ?at= instants before now find them.
  let clock = (NOW - 600) * 1000;
  try {
    const sources = { main: { url: proxy.url, job: 'snmp', window: '2m', step: '60s', timeout: '10s' } };
    const settings = parseSettings({ data: { dir }, metrics: { sources }, output: { cacheBytes: 0 } }, {}, dir);
    const store = await openFileStore(dir);
    const app = await createApp({ settings, store, log: createMemoryLogger(), adminPassword: 'benchmark password 1', now: () => new Date(clock) });
    const tokenRes = await app.request('/api/v1/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: 'admin', password: 'benchmark password 1' }) });
    const headers = { authorization: `Bearer ${((await tokenRes.json()) as { access_token: string }).access_token}` };
    const create = async (body: object) => {
      const now = clock;
      clock = (NOW - 600) * 1000;
      const res = await app.request('/api/v1/map/', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const { mapId } = (await res.json()) as { mapId: string };
      await app.request(`/api/v1/map/id/${mapId}/publish/`, { method: 'POST', headers });
      clock = now;
      return mapId;
    };
    const get = async (url: string) => {
      const res = await app.request(url, { headers });
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };

    clock = (NOW + 5) * 1000;
    // Requests per render.
    for (const n of [10, 500, 2500]) {
      const id = await create(mapBody(`${n}`, manyCircuits(n)));
      proxy.queries = 0;
      await get(`/api/v1/output/map/${id}/svg/`);
      lines.push(`requests to the source per render, ${n} circuits: ${proxy.queries} (shumoku's 2 per link: ${2 * n}; ratio ${(proxy.queries / (2 * n)).toFixed(4)})`);
    }

    // A live render beside the static render of the same map, nothing kept, and the source's own answer time.
    const circuits = manyCircuits(500);
    const live = await create(mapBody('live 500', circuits));
    const plain = await create({ name: 'static 500', configuration: { layers: [{ name: 'Backbone', mapjson: JSON.stringify(topology(circuits)), layout: 'geographic' }] } });
    const source = createTrafficSources(settings).get('main')!;
    const interfaces = circuits.flatMap((c) => [c.a, c.z]).filter((p): p is [string, string] => p !== null).map(([instance, ifName]) => ({ instance, ifName: String(ifName) }));
    const time = async (f: (i: number) => Promise<unknown>) => {
      await f(-1);
      const xs: number[] = [];
      for (let i = 0; i < RENDERS; i++) {
        const t0 = performance.now();
        await f(i);
        xs.push(performance.now() - t0);
      }
      return median(xs);
    };
    const staticMs = await time(() => get(`/api/v1/output/map/${plain}/svg/`));
    // Each live render at an instant of its own step: a new read and a new picture every time.
    const liveMs = await time((i) => get(`/api/v1/output/map/${live}/svg/?at=${NOW - 60 * (i + 2)}`));
    const sourceMs = await time((i) => source.read(interfaces, { at: NOW - 30 - 60 * (i + 2) }));
    lines.push(`live render, 500 circuits, traffic read and drawn: ${liveMs.toFixed(1)} ms; static render of the same map: ${staticMs.toFixed(1)} ms; the source's own answer: ${sourceMs.toFixed(1)} ms; (live - source) / static: ${((liveMs - sourceMs) / staticMs).toFixed(2)}x (target at most 1.5x)`);

    // 50 viewers of one map in one bucket beside a cached static picture.
    const cachedSettings = parseSettings({ data: { dir }, metrics: { sources } }, {}, dir);
    await store.close();
    const store2 = await openFileStore(dir);
    const app2 = await createApp({ settings: cachedSettings, store: store2, log: createMemoryLogger(), now: () => new Date(clock) });
    const server = await listen(app2.fetch);
    try {
      clock = (NOW + 65) * 1000; // a new bucket, held for the run
      proxy.queries = 0;
      const liveRps = await requestsPerSecond(`${server.url}/api/v1/public/output/map/${live}/svg/`, {}, 50, DURATION_S);
      const trips = proxy.queries;
      const staticRps = await requestsPerSecond(`${server.url}/api/v1/public/output/map/${plain}/svg/`, {}, 50, DURATION_S);
      const kb = async (id: string) => ((await (await fetch(`${server.url}/api/v1/public/output/map/${id}/svg/`)).arrayBuffer()).byteLength / 1024).toFixed(0);
      lines.push(`50 concurrent viewers of one bound map in one bucket: ${trips} round trip(s) to the source; ${liveRps.toFixed(0)} req/s (${await kb(live)} KiB a picture) beside a cached static picture's ${staticRps.toFixed(0)} req/s (${await kb(plain)} KiB) (ratio ${(liveRps / staticRps).toFixed(2)})`);
    } finally {
      server.close();
      await store2.close();
    }
  } finally {
    await proxy.close();
    await prom.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return lines;
}
