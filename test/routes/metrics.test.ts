// GET /metrics through HTTP: Prometheus' text format, parsed, moving with the
// requests made (requests by route template and status, durations, renders
// and the output cache, store writes, refused logins); metrics.token and
// metrics.enabled.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { makeDemoApp, stepClock, type TestApp } from '../helpers/app.ts';

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

/** How much a sample moved between two scrapes. */
const moved = (a: Map<string, number>, b: Map<string, number>, key: string) => (b.get(key) ?? 0) - (a.get(key) ?? 0);

describe('GET /metrics', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await makeDemoApp({ now: stepClock() });
    token = await t.token();
  });
  after(() => t.close());

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

/** A port on 127.0.0.1 that nothing listens on (taken, then given back): a connection to it is refused. */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('GET /metrics: the render pool', () => {
  it('exports the queue length and counts jobs refused as busy', async () => {
    // One thread and a queue of 1: of eight pictures asked at once, one is drawn, one waits,
    // and those asked while both places are taken are refused at once with 503.
    const t = await makeDemoApp({ settings: { output: { renderThreads: 1, renderQueue: 1 } } });
    try {
      // The demo map without its traffic binding: a live picture is drawn apart, a static one on the pool.
      const token = await t.token();
      const demo = await (await t.request(`/api/v1/map/id/${DEMO_MAP}/`, { token })).json() as { configuration: { layers: { traffic?: unknown }[] } };
      for (const layer of demo.configuration.layers) delete layer.traffic;
      const { mapId } = await (await t.request('/api/v1/map/', { method: 'POST', token, json: { name: 'Static', configuration: demo.configuration } })).json() as { mapId: string };
      const before = await scrape(t);
      assert.equal(before.get('mts_render_queue_length'), 0);
      const asked = [300, 320, 340, 360, 380, 400, 420, 440].map((w) => t.request(`/api/v1/output/map/${mapId}/png/?width=${w}`, { token }));
      let settled = false;
      const all = Promise.all(asked).finally(() => { settled = true; });
      // The queue is seen holding the waiting pictures before they are drawn (scraped until then, not timed).
      let seen = 0;
      // A scrape settles in microtasks alone: each turn yields to the event loop, where the render threads' answers arrive.
      while (!settled && seen === 0) {
        seen = (await scrape(t)).get('mts_render_queue_length') ?? 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const statuses = (await all).map((r) => r.status);
      assert.ok(seen > 0, 'the queue length was seen above 0 while pictures waited');
      const refused = statuses.filter((s) => s === 503).length;
      assert.ok(refused >= 1, `some picture refused as busy: ${statuses}`);
      const after = await scrape(t);
      // A job refused is counted once; pictures of one drawing (PNGs of one SVG) share its answer.
      const rejections = moved(before, after, 'mts_render_rejections_total{reason="busy"}');
      assert.ok(rejections >= 1 && rejections <= refused, `${rejections} jobs refused for ${refused} answers 503`);
      assert.equal(moved(before, after, 'mts_render_rejections_total{reason="budget"}'), 0);
      assert.equal(after.get('mts_render_queue_length'), 0, 'an empty queue once every picture is answered');
    } finally {
      await t.close();
    }
  });
});

describe('GET /metrics: live traffic sources', () => {
  it('counts reads of a source, shared by renders, and a refused connection as a network error', async () => {
    const port = await refusingPort();
    const t = await makeDemoApp({ now: stepClock(), settings: { metrics: { sources: { down: { url: `http://127.0.0.1:${port}`, timeout: '5s' } } } } });
    try {
      const token = await t.token();
      const before = await scrape(t);
      // The demo map is bound to the synthetic `demo` source: two sizes in one step are one read.
      for (const width of [410, 420]) assert.equal((await t.request(`/api/v1/public/output/map/${DEMO_MAP}/svg/?width=${width}`)).status, 200);
      const demo = await (await t.request(`/api/v1/map/id/${DEMO_MAP}/`, { token })).json() as { configuration: { layers: { traffic?: { source: string } }[] } };
      for (const layer of demo.configuration.layers) if (layer.traffic) layer.traffic.source = 'down';
      const created = await t.request('/api/v1/map/', { method: 'POST', token, json: { name: 'Down', configuration: demo.configuration } });
      assert.equal(created.status, 201, await created.clone().text());
      const { mapId } = await created.json() as { mapId: string };
      const res = await t.request(`/api/v1/output/map/${mapId}/svg/`, { token });
      assert.equal(res.status, 200, 'a source that cannot be read never fails the picture');
      const after = await scrape(t);
      assert.equal(moved(before, after, 'mts_traffic_source_queries_total{source="demo"}'), 1);
      assert.equal(moved(before, after, 'mts_traffic_source_queries_total{source="down"}'), 1);
      assert.equal(moved(before, after, 'mts_traffic_source_errors_total{source="down",reason="network"}'), 1);
      assert.equal(moved(before, after, 'mts_traffic_source_errors_total{source="demo",reason="network"}'), 0);
    } finally {
      await t.close();
    }
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

  it('the OpenAPI document lists the 401 only when a token is set', async () => {
    for (const [settings, statuses] of [[{ token: TOKEN }, ['200', '401']], [{}, ['200']]] as Array<[{ token?: string }, string[]]>) {
      const t = await makeDemoApp({ settings: { metrics: settings } });
      try {
        const doc = await (await t.request('/openapi.json')).json() as { paths: Record<string, { get: { responses: Record<string, unknown> } }> };
        const listed = Object.keys(doc.paths['/metrics'].get.responses);
        for (const s of statuses) assert.ok(listed.includes(s), `${JSON.stringify(settings)}: ${s} in ${listed}`);
        if (!statuses.includes('401')) assert.ok(!listed.includes('401'), `no token: no 401 in ${listed}`);
      } finally {
        await t.close();
      }
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
