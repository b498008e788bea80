// Read throughput under load (issue 2): GET one map and GET the map list with
// 10,000 maps, 50 connections, beside a bare Hono route that returns the same
// bytes from memory, all in this one process.
import { Hono } from 'hono';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { canonicalJson } from '../store/canonical-json.ts';
import { cpuPerGet } from './http-cpu.ts';
import { listen, requestsPerSecond, startService } from './service.ts';

const MAPS = 10_000;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);

const id = (i: number) => `m${i.toString(36).padStart(6, '0')}`;

/** MAPS maps of one version each, in the store's layout: maps/<id>/v1.json, the version's canonical JSON. */
async function writeMaps(dir: string) {
  const on = new Date(Date.UTC(2026, 0, 1)).toISOString();
  for (let i = 0; i < MAPS; i++) {
    const mapId = id(i);
    const version = { mapId, version: 1, name: `Map ${i}`, lastUpdatedBy: 'admin', lastUpdatedOn: on, public: false, change: 'created',
      configuration: { initialViewStrategy: 'manual', viewport: { center: { lat: 40, lng: -100 }, zoom: 4 },
        background: '#ffffff', layers: [] }, overrides: {} };
    await mkdir(path.join(dir, 'maps', mapId), { recursive: true });
    await writeFile(path.join(dir, 'maps', mapId, 'v1.json'), canonicalJson(version));
  }
}

export async function benchHttp(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-http-'));
  try {
    await writeMaps(dir);
    const { app, store, headers } = await startService(dir);
    const paths = { one: `/api/v1/map/id/${id(4242)}/`, list: '/api/v1/maps/' };
    const bodies: Record<string, string> = {};
    for (const [k, p] of Object.entries(paths)) {
      const res = await app.request(p, { headers });
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      bodies[k] = await res.text();
    }
    const bare = new Hono();
    // The same bytes from memory, answered the fastest way @hono/node-server has (a Response with a plain header object).
    const one = Buffer.from(bodies.one);
    const list = Buffer.from(bodies.list);
    const json = { 'content-type': 'application/json' };
    bare.get('/one', () => new Response(one, { status: 200, headers: json }));
    bare.get('/list', () => new Response(list, { status: 200, headers: json }));
    // CPU per GET first, in process, while no listener runs: the steadier figure on a shared machine.
    const ours = await cpuPerGet(app.fetch, paths.one, headers);
    const base = await cpuPerGet(bare.fetch, '/one', {});
    const cpuLine = `GET ${paths.one} (1 map), in-process CPU per call: ${ours.toFixed(2)} µs vs bare Hono route ${base.toFixed(2)} µs = ${(base / ours).toFixed(2)}x`;
    const service = await listen(app.fetch);
    const baseline = await listen(bare.fetch);
    const lines: string[] = [cpuLine];
    try {
      for (const [k, target] of [['one', 0.7], ['list', 0.3]] as const) {
        const ours = await requestsPerSecond(service.url + paths[k as 'one' | 'list'], headers, 50, DURATION_S);
        const base = await requestsPerSecond(`${baseline.url}/${k}`, {}, 50, DURATION_S);
        const label = k === 'one' ? `GET ${paths.one} (1 map)` : `GET /api/v1/maps/ (${MAPS} maps, ${bodies.list.length} bytes)`;
        lines.push(`${label}: ${ours.toFixed(0)} req/s vs bare Hono route ${base.toFixed(0)} req/s = ${(ours / base).toFixed(2)}x (target >= ${target}x)`);
      }
    } finally {
      service.close();
      baseline.close();
      await store.close();
    }
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await benchHttp()) console.log(line);
}
