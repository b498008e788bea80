// Live traffic from a Prometheus scraping, every second, a small exporter
// this test serves (counters rising at known rates, as snmp_exporter's
// if_mib exports them): the rates come through, a link reported down is
// drawn down, and a port the exporter stops exporting (Prometheus marks it
// stale) reads as no data. Waits for events (the next scrapes), never for
// a fixed time.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { noPrometheus, startPrometheus, type Prometheus } from '../helpers/prometheus.ts';
import { mapBody } from './fixture.ts';

interface Port { instance: string; ifName: string; outBps: number; inBps: number; oper: number; exported: boolean; out: number; in: number; at: number }
const ports: Port[] = [
  { instance: 'r1', ifName: 'xe-1', outBps: 2e9, inBps: 5e8, oper: 1, exported: true, out: 0, in: 0, at: Date.now() },
  { instance: 'r2', ifName: 'xe-1', outBps: 5e8, inBps: 2e9, oper: 1, exported: true, out: 0, in: 0, at: Date.now() },
  { instance: 'r3', ifName: 'xe-1', outBps: 1e9, inBps: 1e9, oper: 1, exported: true, out: 0, in: 0, at: Date.now() },
];
/** Counters as of now, each rising at its rate. */
function exposition(): string {
  const now = Date.now();
  const lines: string[] = [];
  for (const [metric, help] of [['ifHCInOctets', 'in'], ['ifHCOutOctets', 'out'], ['ifHighSpeed', 'speed'], ['ifOperStatus', 'oper']] as const) {
    lines.push(`# TYPE ${metric} ${help === 'in' || help === 'out' ? 'counter' : 'gauge'}`);
    for (const p of ports.filter((x) => x.exported)) {
      const value = help === 'speed' ? 10_000 : help === 'oper' ? p.oper : p[help];
      lines.push(`${metric}{instance="${p.instance}",ifName="${p.ifName}"} ${value}`);
    }
  }
  for (const p of ports) {
    const dt = (now - p.at) / 1000;
    p.out += (p.outBps * dt) / 8;
    p.in += (p.inBps * dt) / 8;
    p.at = now;
  }
  return `${lines.join('\n')}\n`;
}

let exporter: http.Server, prom: Prometheus, t: TestApp;
before(async () => {
  if (noPrometheus) return;
  exporter = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' }).end(exposition()));
  await new Promise<void>((resolve) => exporter.listen(0, '127.0.0.1', resolve));
  prom = await startPrometheus([], `127.0.0.1:${(exporter.address() as AddressInfo).port}`);
  t = await makeTestApp({ settings: { metrics: { sources: { main: { url: prom.url, job: 'snmp', window: '5s', step: '1s', timeout: '2s' } } } } });
});
after(async () => {
  if (noPrometheus) return;
  await t.close();
  await prom.stop();
  exporter.close();
});

const circuits = [
  { name: 'ab', a: ['r1', 'xe-1'] as [string, string], z: ['r2', 'xe-1'] as [string, string], cap: '10' },
  { name: 'c', a: ['r3', 'xe-1'] as [string, string], z: null, cap: '10' },
];

/** The rows, asked again (a new step bucket each second) until `ready` holds of them; at most a minute of scrapes. */
async function rowsWhen(id: string, ready: (rows: Record<string, Record<string, unknown>>) => boolean) {
  let rows: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < 120; i++) {
    const res = await t.request(`/api/v1/public/output/map/${id}/traffic/`);
    rows = Object.fromEntries(((await res.json()) as Record<string, unknown>[]).map((r) => [String(r.edge), r]));
    if (ready(rows)) return rows;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.fail(`never ready: ${JSON.stringify(rows)}`);
}

describe('a Prometheus scraping an exporter every second', { skip: noPrometheus }, () => {
  let id: string;
  before(async () => {
    const token = await t.token();
    const res = await t.request('/api/v1/map/', { method: 'POST', token, json: mapBody('Scraped', circuits) });
    id = ((await res.json()) as { mapId: string }).mapId;
    await t.request(`/api/v1/map/id/${id}/publish/`, { method: 'POST', token });
  });

  it('reads the rates the counters rise at, by the direction rule', async () => {
    // Once the rate window holds a full window of scrapes (rate() extrapolates a series younger than its window).
    const near = (x: unknown, y: number) => Math.abs(Number(x) - y) / y < 0.1;
    const rows = await rowsWhen(id, (r) => r.ab?.status === 'ok' && r.c?.status === 'ok' && near(r.ab.aToZ, 2e9));
    assert.ok(near(rows.ab.zToA, 5e8), JSON.stringify(rows.ab));
    assert.ok(near(rows.c.aToZ, 1e9), JSON.stringify(rows.c));
  });

  it('draws a link reported down as down', async () => {
    ports[1].oper = 2;
    try {
      await rowsWhen(id, (r) => r.ab?.status === 'down');
    } finally {
      ports[1].oper = 1;
    }
  });

  it('reads a port the exporter no longer exports as no data (Prometheus marks it stale)', async () => {
    ports[2].exported = false;
    const rows = await rowsWhen(id, (r) => r.c?.status === 'nodata');
    assert.equal(rows.c.aToZ, null);
    const svg = await (await t.request(`/api/v1/public/output/map/${id}/svg/`)).text();
    assert.match(svg, /c: A→Z: no data/);
  });
});
