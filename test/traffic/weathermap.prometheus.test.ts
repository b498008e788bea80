// Live traffic against a real Prometheus (docs/traffic.md), backfilled with
// known rates at a known instant T; a counting proxy in front of it. The
// clock is pinned inside T's step bucket, so "now" reads the traffic of T.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { noPrometheus, startPrometheus, startProxy, type Prometheus, type CountingProxy } from '../helpers/prometheus.ts';
import { BEFORE, CIRCUITS, halves, manyCircuits, mapBody, series, T } from './fixture.ts';

const SECRET = 'tok-3f9a1c-never-shown';
let prom: Prometheus, proxy: CountingProxy, t: TestApp, token: string, secretDir: string;
let clock = (T + 15) * 1000;

before(async () => {
  if (noPrometheus) return;
  prom = await startPrometheus(series());
  proxy = await startProxy(prom.url);
  secretDir = await mkdtemp(path.join(tmpdir(), 'mts-secret-'));
  await writeFile(path.join(secretDir, 'token'), `${SECRET}\n`);
  t = await makeTestApp({
    now: () => new Date(clock),
    settings: { metrics: { sources: {
      main: { url: proxy.url, job: 'snmp', window: '5m', step: '60s', timeout: '2s', bearerTokenFile: path.join(secretDir, 'token') },
    } } },
  });
  token = await t.token();
});
after(async () => {
  if (noPrometheus) return;
  await t.close();
  await proxy.close();
  await prom.stop();
  await rm(secretDir, { recursive: true, force: true });
});

const create = async (body: object) => {
  const res = await t.request('/api/v1/map/', { method: 'POST', token, json: body });
  assert.equal(res.status, 201, await res.clone().text());
  const { mapId } = (await res.json()) as { mapId: string };
  assert.equal((await t.request(`/api/v1/map/id/${mapId}/publish/`, { method: 'POST', token })).status, 200);
  return mapId;
};
const svgOf = async (url: string) => {
  const res = await t.request(url, { token });
  assert.equal(res.status, 200, await res.clone().text());
  return { res, svg: await res.text() };
};

describe('the picture of a bound map (colours, direction, states)', { skip: noPrometheus }, () => {
  let id: string;
  let drawn: ReturnType<typeof halves>;
  before(async () => {
    id = await create(mapBody('Known rates', CIRCUITS));
    drawn = halves((await svgOf(`/api/v1/public/output/map/${id}/svg/`)).svg);
  });

  // [half, stroke, dash, words its title holds]
  const cases: [string, string, string | undefined, string][] = [
    ['both aToZ', '#00c0ff', undefined, '4.0 Gb/s of 10.0 Gb/s (40.0 %'],
    ['both zToA', '#8c00ff', undefined, '1.0 Gb/s of 10.0 Gb/s (10.0 %'],
    ['direction aToZ', '#00f000', undefined, '5.0 Gb/s of 10.0 Gb/s (50.0 %'],
    ['direction zToA', '#8c00ff', undefined, '500 Mb/s of 10.0 Gb/s (5.0 %'],
    ['one-sided aToZ', '#f0f000', undefined, '6.0 Gb/s of 10.0 Gb/s (60.0 %'],
    ['one-sided zToA', '#2020ff', undefined, '2.0 Gb/s of 10.0 Gb/s (20.0 %'],
    ['lag aToZ', '#00c0ff', undefined, '6.0 Gb/s of 20.0 Gb/s (30.0 %'],
    ['lag zToA', '#8c00ff', undefined, '2.0 Gb/s of 20.0 Gb/s (10.0 %'],
    ['asymmetric aToZ', '#00f000', undefined, '250 Mb/s of 500 Mb/s (50.0 %'],
    ['asymmetric zToA', '#2020ff', undefined, '250 Mb/s of 1.0 Gb/s (25.0 %'],
    ['from-speed aToZ', '#f0f000', undefined, '7.0 Gb/s of 10.0 Gb/s (70.0 %'],
    ['unknown aToZ', '#5f7d8c', undefined, '3.0 Gb/s (3000000000 bit/s), capacity unknown'],
    ['down aToZ', '#000000', '2 3', 'interface down'],
    ['stale aToZ', '#8c00ff', '1 3', '(stale: no recent sample)'],
    ['nodata aToZ', '#9e9e9e', '4 3', 'no data'],
    ['over aToZ', '#ff00ff', undefined, '12.0 Gb/s of 10.0 Gb/s (120.0 %'],
    ['escaped aToZ', '#8c00ff', undefined, '1.0 Gb/s of 10.0 Gb/s (10.0 %'],
    ['reset aToZ', '#2020ff', undefined, '2.0 Gb/s of 10.0 Gb/s (20.0 %'],
  ];
  for (const [half, stroke, dash, words] of cases) {
    it(`${half}: ${stroke}${dash ? ` dashed ${dash}` : ''}, "${words}"`, () => {
      const h = drawn.get(half);
      assert.ok(h, `${half} is drawn (have ${[...drawn.keys()].join(', ')})`);
      assert.equal(h.stroke, stroke, h.title);
      assert.equal(h.dash, dash, h.title);
      assert.ok(h.title.includes(words), h.title);
    });
  }

  it('draws the half at A from A to the middle, the half at Z from Z to the middle', () => {
    const start = (d: string) => d.match(/^M([-\d.]+) ([-\d.]+)/)!.slice(1).map(Number);
    const end = (d: string) => d.match(/L([-\d.]+) ([-\d.]+)$/)!.slice(1).map(Number);
    const a = drawn.get('both aToZ')!, z = drawn.get('both zToA')!;
    // The circuit runs west (A) to east (Z): A's half starts west of the middle, Z's east of it, both end at the middle.
    assert.deepEqual(end(a.d), end(z.d));
    assert.ok(start(a.d)[0] < end(a.d)[0] && start(z.d)[0] > end(z.d)[0]);
  });

  it('has a footer with the measurement time, the map version and the source, and a legend of every state', async () => {
    const { svg } = await svgOf(`/api/v1/public/output/map/${id}/svg/`);
    assert.ok(svg.includes(`>Traffic at ${new Date(T * 1000).toISOString().replace('.000Z', 'Z')}</text>`));
    assert.ok(svg.includes('>map version 2 · source main</text>'));
    for (const state of ['no data', 'interface down', 'stale', 'over 100 %', 'capacity unknown']) assert.ok(svg.includes(state), state);
  });

  it('draws the same in PNG', async () => {
    const res = await t.request(`/api/v1/public/output/map/${id}/png/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.ok(res.headers.get('cache-control')?.includes('max-age='));
  });
});

describe('the traffic rows', { skip: noPrometheus }, () => {
  it('answers one row per bound circuit, public and signed in alike', async () => {
    const id = await create(mapBody('Rows', CIRCUITS));
    for (const [url, auth] of [[`/api/v1/output/map/${id}/traffic/`, token], [`/api/v1/public/output/map/${id}/traffic/`, undefined]] as const) {
      const res = await t.request(url, { token: auth });
      assert.equal(res.status, 200);
      const rows = (await res.json()) as Record<string, unknown>[];
      assert.equal(rows.length, CIRCUITS.length);
      const both = rows.find((r) => r.edge === 'both')!;
      assert.deepEqual({ src: both.src, dst: both.dst, aToZ: both.aToZ, zToA: both.zToA, in: both.in, out: both.out, capacity: both.capacity, status: both.status, layer: both.layer },
        { src: 'both A', dst: 'both Z', aToZ: 4e9, zToA: 1e9, in: 4e9, out: 1e9, capacity: 1e10, status: 'ok', layer: 'Backbone' });
      assert.deepEqual(Object.fromEntries(rows.map((r) => [r.edge, r.status])), {
        both: 'ok', direction: 'ok', 'one-sided': 'ok', lag: 'ok', asymmetric: 'ok', 'from-speed': 'ok', unknown: 'ok',
        down: 'down', stale: 'stale', nodata: 'nodata', over: 'ok', escaped: 'ok', reset: 'ok',
      });
    }
    assert.equal((await t.request(`/api/v1/output/map/${id}/traffic/`)).status, 401);
  });
});

describe('the cost of a render', { skip: noPrometheus }, () => {
  for (const n of [10, 500, 2500]) {
    it(`asks the source at most 5 requests for ${n} circuits`, async () => {
      const id = await create(mapBody(`${n} circuits`, manyCircuits(n)));
      proxy.queries = 0;
      await svgOf(`/api/v1/output/map/${id}/svg/`);
      assert.ok(proxy.queries >= 1 && proxy.queries <= 5, `${proxy.queries} requests`);
    });
  }

  it('shares one round trip between 20 concurrent viewers, and keeps the picture per bucket with an ETag and max-age', async () => {
    const id = await create(mapBody('Busy', CIRCUITS));
    proxy.queries = 0;
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.request(`/api/v1/public/output/map/${id}/svg/`)));
    assert.deepEqual(answers.map((r) => r.status), Array(20).fill(200));
    assert.equal(proxy.queries, 1);
    const etag = answers[0].headers.get('etag')!;
    assert.ok(answers.every((r) => r.headers.get('etag') === etag));
    // Pinned 15 s into the bucket of T: 45 s left.
    assert.equal(answers[0].headers.get('cache-control'), 'public, max-age=45');
    const again = await t.request(`/api/v1/public/output/map/${id}/svg/`, { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    assert.equal(proxy.queries, 1);
    // The next bucket: a new read, a new ETag.
    clock = (T + 75) * 1000;
    try {
      const next = await t.request(`/api/v1/public/output/map/${id}/svg/`, { headers: { 'If-None-Match': etag } });
      assert.equal(next.status, 200);
      assert.notEqual(next.headers.get('etag'), etag);
      assert.equal(proxy.queries, 2);
    } finally {
      clock = (T + 15) * 1000;
    }
  });
});

describe('a failing source', { skip: noPrometheus }, () => {
  for (const mode of ['fail', 'hang'] as const) {
    it(`${mode}: still a picture (200), circuits grey, a banner, a short max-age and a log line`, async () => {
      const id = await create(mapBody(`Source ${mode}`, CIRCUITS));
      proxy.mode = mode;
      try {
        const { res, svg } = await svgOf(`/api/v1/output/map/${id}/svg/`);
        const maxAge = Number(res.headers.get('cache-control')?.match(/max-age=(\d+)/)?.[1]);
        assert.ok(maxAge <= 10, res.headers.get('cache-control') ?? '');
        assert.match(svg, mode === 'fail' ? /Traffic unavailable, circuits shown grey: source main \(http:\/\/127\.0\.0\.1:\d+\) answered 503: overloaded/
          : /Traffic unavailable, circuits shown grey: source main did not answer within 2 s/);
        const colours = new Set([...halves(svg).values()].map((h) => h.stroke));
        assert.deepEqual([...colours], ['#9e9e9e']);
        assert.ok(t.log.lines.some((l) => l.startsWith('traffic source failed') && l.includes('source="main"')), t.log.lines.join('\n'));
      } finally {
        proxy.mode = 'pass';
      }
    });
  }
});

describe('time travel and the busiest hour', { skip: noPrometheus }, () => {
  it('draws the version current at ?at=, with the traffic of then; 404 before the map existed; 400 for a malformed instant', async () => {
    // v1 and v2 (published) before BEFORE; unpublished (v3) and changed (v4) at T - 1200; published again (v5) at T - 1100.
    let id = '';
    const write = async (at: number, method: string, url: string, json?: object) => {
      clock = at * 1000;
      const res = await t.request(url, { method, token, json });
      assert.ok(res.status < 300, await res.text());
    };
    try {
      clock = (BEFORE - 600) * 1000;
      id = await create(mapBody('Travel', CIRCUITS.slice(0, 1)));
      await write(T - 1200, 'POST', `/api/v1/map/id/${id}/unpublish/`);
      await write(T - 1200, 'PUT', `/api/v1/map/id/${id}/`, mapBody('Travel, renamed', CIRCUITS.slice(0, 2)));
      await write(T - 1100, 'POST', `/api/v1/map/id/${id}/publish/`);
    } finally {
      clock = (T + 15) * 1000;
    }
    const then = await svgOf(`/api/v1/output/map/${id}/svg/?at=${new Date(BEFORE * 1000).toISOString()}`);
    assert.match(then.svg, />map version 2 · /);
    assert.ok(halves(then.svg).get('both aToZ')!.title.includes('8.0 Gb/s of 10.0 Gb/s (80.0 %'));
    assert.equal(halves(then.svg).get('direction aToZ'), undefined, 'version 2 has one circuit');
    assert.match((await svgOf(`/api/v1/output/map/${id}/svg/?at=${T - 1150}`)).svg, />map version 4 · /);
    const now = await svgOf(`/api/v1/output/map/${id}/svg/?at=${T}`);
    assert.match(now.svg, />map version 5 · /);
    assert.ok(halves(now.svg).get('both aToZ')!.title.includes('4.0 Gb/s'));
    assert.ok(halves(now.svg).get('direction aToZ'));
    // Public: among the versions stored public (3 and 4 were not).
    const pub = await t.request(`/api/v1/public/output/map/${id}/svg/?at=${T - 1150}`);
    assert.match(await pub.text(), />map version 2 · /);
    assert.equal((await t.request(`/api/v1/output/map/${id}/svg/?at=${BEFORE - 1200}`, { token })).status, 404);
    for (const bad of ['yesterday', '2026-13-45T99:00:00Z', `${T + 86_400}`]) {
      const r = await t.request(`/api/v1/output/map/${id}/svg/?at=${encodeURIComponent(bad)}`, { token });
      assert.equal(r.status, 400, bad);
      assert.ok(((await r.json()) as { detail: string }).detail.includes('at'));
    }
  });

  it('?range=&stat= draws the busiest values of the window', async () => {
    const id = await create(mapBody('Busiest', CIRCUITS.slice(0, 1)));
    const title = async (q: string) => halves((await svgOf(`/api/v1/output/map/${id}/svg/?${q}`)).svg).get('both aToZ')!.title;
    assert.ok((await title('range=2h&stat=max')).includes('8.0 Gb/s'));
    assert.ok((await title('range=30m&stat=p95')).includes('4.0 Gb/s'));
    assert.equal((await t.request(`/api/v1/output/map/${id}/svg/?stat=max`, { token })).status, 400);
    assert.equal((await t.request(`/api/v1/output/map/${id}/svg/?range=forever`, { token })).status, 400);
  });
});

describe('secrets', { skip: noPrometheus }, () => {
  it('sends the bearer token to the source and never shows it in answers or logs', async () => {
    const id = await create(mapBody('Secrets', CIRCUITS));
    const picture = await (await t.request(`/api/v1/output/map/${id}/svg/`, { token })).text();
    const rows = await (await t.request(`/api/v1/output/map/${id}/traffic/`, { token })).text();
    const sources = await t.request('/api/v1/traffic/sources/', { token });
    const listed = (await sources.json()) as Record<string, unknown>[];
    assert.ok(proxy.authorizations.includes(`Bearer ${SECRET}`));
    assert.deepEqual(listed.find((s) => s.name === 'main'), {
      name: 'main', kind: 'prometheus', url: proxy.url, job: 'snmp', window: '300s', step: '60s', timeout: '2s', authenticated: true, status: 'ok',
    });
    for (const text of [picture, rows, JSON.stringify(listed), t.log.lines.join('\n')]) assert.ok(!text.includes(SECRET));
  });
});
