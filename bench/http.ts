// Read throughput under load (issue 2): GET one map and GET the map list with
// 10,000 maps, 50 connections, beside a bare Hono route that returns the same
// bytes from memory, all in this one process.
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseSettings } from '../config/settings.ts';
import { createMemoryLogger } from '../log.ts';
import { createApp } from '../server.ts';
import { canonicalJson } from '../store/canonical-json.ts';
import { openFileStore } from '../store/file.ts';

const MAPS = 10_000;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const PASSWORD = 'benchmark password 1';

const id = (i: number) => `m${i.toString(36).padStart(6, '0')}`;

async function writeMaps(dir: string) {
  await mkdir(path.join(dir, 'maps'), { recursive: true });
  const on = new Date(Date.UTC(2026, 0, 1)).toISOString();
  for (let i = 0; i < MAPS; i++) {
    const mapId = id(i);
    const version = { mapId, version: 1, name: `Map ${i}`, lastUpdatedBy: 'admin', lastUpdatedOn: on, public: false,
      configuration: { initialViewStrategy: 'manual', viewport: { center: { lat: 40, lng: -100 }, zoom: 4 },
        background: '#ffffff', layers: [] }, overrides: {} };
    await writeFile(path.join(dir, 'maps', `${mapId}.json`), canonicalJson({ versions: [version] }));
  }
}

function listen(fetch: (req: Request) => Response | Promise<Response>) {
  return new Promise<{ url: string; close: () => void }>((resolve) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, close: () => server.close() }));
  });
}

async function rps(url: string, headers: Record<string, string>) {
  // The load generator runs in a worker thread, so it does not share the event loop it measures.
  const result = await autocannon({ url, connections: 50, duration: DURATION_S, headers, workers: 1 });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

export async function benchHttp(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-http-'));
  try {
    await writeMaps(dir);
    const settings = parseSettings({ data: { dir } }, {}, dir);
    const store = await openFileStore(dir);
    const app = await createApp({ settings, store, log: createMemoryLogger(), adminPassword: PASSWORD });
    const tokenRes = await app.request('/api/v1/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: 'admin', password: PASSWORD }) });
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;
    const headers = { authorization: `Bearer ${token}` };
    const paths = { one: `/api/v1/map/id/${id(4242)}/`, list: '/api/v1/maps/' };
    const bodies: Record<string, string> = {};
    for (const [k, p] of Object.entries(paths)) {
      const res = await app.request(p, { headers });
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      bodies[k] = await res.text();
    }
    const bare = new Hono();
    bare.get('/one', (c) => c.body(bodies.one, 200, { 'content-type': 'application/json' }));
    bare.get('/list', (c) => c.body(bodies.list, 200, { 'content-type': 'application/json' }));
    const service = await listen(app.fetch);
    const baseline = await listen(bare.fetch);
    const lines: string[] = [];
    try {
      for (const [k, target] of [['one', 0.7], ['list', 0.3]] as const) {
        const ours = await rps(service.url + paths[k as 'one' | 'list'], headers);
        const base = await rps(`${baseline.url}/${k}`, {});
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
