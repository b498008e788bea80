// GET /metrics through HTTP: Prometheus' text format, parsed, moving with the
// requests made (requests by route template and status, durations, renders
// and the output cache, store writes, refused logins); metrics.token and
// metrics.enabled.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeDemoApp, type TestApp } from '../helpers/app.ts';

const DEMO_MAP = 'znfjfuT';

/** Samples of the text format by `name{labels}` as written (labels in the order the registry writes them). */
async function scrape(t: TestApp, token?: string): Promise<Map<string, number>> {
  const res = await t.request('/metrics', { token });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${line}`);
    samples.set(m[1], Number(m[2]));
  }
  return samples;
}

describe('GET /metrics', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await makeDemoApp();
    token = await t.token();
  });
  after(() => t.close());

  const moved = (a: Map<string, number>, b: Map<string, number>, key: string) => (b.get(key) ?? 0) - (a.get(key) ?? 0);

  it('counts requests by route template and status, with their durations', async () => {
    const before = await scrape(t);
    for (let i = 0; i < 3; i++) assert.equal((await t.request(`/api/v1/map/id/${DEMO_MAP}/`, { token })).status, 200);
    assert.equal((await t.request('/api/v1/map/id/nothere/', { token })).status, 404);
    assert.equal((await t.request('/no/such/route')).status, 404);
    assert.equal((await t.request('/web/style.css')).status, 200);
    const after = await scrape(t);
    assert.equal(moved(before, after, 'http_requests_total{method="GET",route="/web/style.css",status="200"}'), 1);
    assert.equal(moved(before, after, 'http_requests_total{method="GET",route="/api/v1/map/id/:mapId",status="200"}'), 3);
    assert.equal(moved(before, after, 'http_requests_total{method="GET",route="/api/v1/map/id/:mapId",status="404"}'), 1);
    assert.equal(moved(before, after, 'http_requests_total{method="GET",route="unmatched",status="404"}'), 1, 'a path no route matches is one series');
    assert.equal(moved(before, after, 'http_request_duration_seconds_count{method="GET",route="/api/v1/map/id/:mapId"}'), 4);
    assert.equal(moved(before, after, 'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/v1/map/id/:mapId"}'), 4);
  });

  it('counts renders, output cache hits and misses and their bytes', async () => {
    const before = await scrape(t);
    const first = await t.request(`/api/v1/public/output/map/${DEMO_MAP}/svg/?width=333`);
    const bytes = (await first.arrayBuffer()).byteLength;
    await (await t.request(`/api/v1/public/output/map/${DEMO_MAP}/svg/?width=333`)).arrayBuffer();
    const after = await scrape(t);
    assert.equal(moved(before, after, 'mts_output_cache_requests_total{kind="svg",result="miss"}'), 1);
    assert.equal(moved(before, after, 'mts_output_cache_requests_total{kind="svg",result="hit"}'), 1);
    assert.equal(moved(before, after, 'mts_output_cache_bytes_total{kind="svg",result="hit"}'), bytes);
    assert.equal(moved(before, after, 'mts_render_duration_seconds_count{kind="svg"}'), 1);
  });

  it('times store writes and counts refused logins', async () => {
    const before = await scrape(t);
    const put = await t.request(`/api/v1/map/id/${DEMO_MAP}/`, { method: 'PUT', token, json: { name: 'Renamed for metrics' } });
    assert.equal(put.status, 200);
    const refused = await t.request('/api/v1/auth/token', { method: 'POST', json: { grant_type: 'password', username: 'admin', password: 'not it at all' } });
    assert.equal(refused.status, 400);
    const after = await scrape(t);
    assert.ok(moved(before, after, 'mts_store_write_duration_seconds_count{operation="append"}') >= 1);
    assert.equal(moved(before, after, 'mts_failed_logins_total{reason="wrong username or password"}'), 1);
  });
});

describe('metrics.token and metrics.enabled', () => {
  const TOKEN = 'a-long-metrics-token-0123456789';
  it('answers only the configured bearer token', async () => {
    const t = await makeDemoApp({ settings: { metrics: { token: TOKEN } } });
    try {
      const without = await t.request('/metrics');
      assert.equal(without.status, 401);
      assert.match((await without.json() as { detail: string }).detail, /metrics\.token/);
      assert.equal((await t.request('/metrics', { token: `${TOKEN}x` })).status, 401);
      assert.ok((await scrape(t, TOKEN)).size > 0);
    } finally {
      await t.close();
    }
  });

  it('serves no /metrics when turned off', async () => {
    const t = await makeDemoApp({ settings: { metrics: { enabled: false } } });
    try {
      assert.equal((await t.request('/metrics')).status, 404);
    } finally {
      await t.close();
    }
  });
});
