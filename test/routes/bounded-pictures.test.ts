// The availability findings as tests (docs/api.md: Limits): a public map
// drawn with a template that draws one huge shape, or a blur whose region is
// 40,000 units wide, never stops the service answering others. Pictures are
// drawn on the render pool: /healthz and an authenticated list are answered
// while a hostile render is in flight, a render over its time budget is 422
// naming the setting, a full queue is 503 with Retry-After at once, and a
// template that draws far beyond its box is saved with a warning naming the
// shape. No assertion on wall-clock margins: "in flight" is a promise not yet
// settled when the other answer arrives.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, createMap, start, type Started } from './fixtures.ts';

const HEADER = 'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude';
const rows = Array.from({ length: 40 }, (_, i) =>
  `c${i},A${i}-B${i},A${i},B${i},10,${40 + (i % 10) * 0.3},${-100 + i * 0.5},${35 + (i % 7) * 0.4},${-90 + i * 0.3}`);
const LARGE_SHAPE = '<g data-width="10" data-height="10"><rect x="-4000" y="-4000" width="8000" height="8000" fill="none"/></g>';
const FAR_SHAPE = '<g data-width="10" data-height="10"><rect x="-1e9" y="-1e9" width="1e9" height="1e9" fill="red"/></g>';
const WIDE_BLUR = '<g data-width="10" data-height="10"><filter id="f" x="-20000" y="-20000" width="40000" height="40000" filterUnits="userSpaceOnUse">' +
  '<feGaussianBlur stdDeviation="40"/></filter><circle r="5" filter="url(#f)"/></g>';

/** A settled-or-not probe of a promise, without waiting for it. */
function watch<T>(p: Promise<T>) {
  const state = { settled: false };
  p.then(() => { state.settled = true; }, () => { state.settled = true; });
  return state;
}

async function publicMapWith(t: Started, template: string) {
  const saved = await t.request('/api/v1/template/', { method: 'POST', token: t.write, json: { name: 'hostile', template } });
  assert.equal(saved.status, 201);
  const { templateId, warnings } = await body(saved);
  const { datasetId } = await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: { name: 'circuits', query: {
    endpoint: 'spreadsheet?sheet_id=circuits&sheet_name=circuits', node_deduplication_field: null, node_group_criteria: null, node_group_layout: null, filters: [] } } }));
  const { mapId } = await createMap(t, 'Hostile', { configuration: { layers: [{ name: 'core', datasetId, datatype: 'dynamic', layout: 'geographic', templateId }] } });
  assert.equal((await t.request(`/api/v1/map/id/${mapId}/publish/`, { method: 'POST', token: t.publish })).status, 200);
  return { mapId, warnings: warnings as string[] | undefined };
}

async function withSheet(t: Started) {
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'circuits.csv'), `${[HEADER, ...rows].join('\n')}\n`);
  return t;
}

describe('a template that draws one huge shape', () => {
  let t: Started;
  let map: Awaited<ReturnType<typeof publicMapWith>>;
  before(async () => {
    t = await withSheet(await start());
    map = await publicMapWith(t, LARGE_SHAPE);
  });
  after(async () => { await t.close(); });

  it('is saved with a warning naming the shape', () => {
    assert.equal(map.warnings?.length, 1);
    assert.match(map.warnings[0], /<rect x="-4000" y="-4000" width="8000" height="8000"/);
  });

  it('anonymous SVGs and PNGs at changing widths are drawn while /healthz and a list keep answering', async () => {
    const hostile = [700, 900, 1100].flatMap((w) => ['svg', 'png'].map((f) => t.request(`/api/v1/public/output/map/${map.mapId}/${f}/?width=${w}`)));
    const watched = hostile.map(watch);
    const health = await t.request('/healthz');
    assert.equal(health.status, 200);
    const list = await t.request('/api/v1/maps/', { token: t.read });
    assert.equal(list.status, 200);
    assert.ok(watched.some((w) => !w.settled), 'a hostile render is still in flight when both are answered');
    for (const res of await Promise.all(hostile)) {
      // Each ends within its budget: drawn, or refused with a reason; never a 500.
      assert.ok([200, 422, 503].includes(res.status), `status ${res.status}`);
      if (res.status !== 200) assert.ok((await body(res)).detail);
      else await res.arrayBuffer();
    }
  });

  it('draws the picture with markers of bounded size', async () => {
    const res = await t.request(`/api/v1/public/output/map/${map.mapId}/svg/`);
    assert.equal(res.status, 200);
    const viewBox = /viewBox="([^"]+)"/.exec(await res.text())?.[1].split(/\s+/).map(Number);
    assert.ok(viewBox && viewBox[2] < 8000 && viewBox[3] < 8000, `viewBox ${viewBox} is not grown to the shape`);
  });
});

describe('a PNG whose blur region is 40,000 units wide', () => {
  let t: Started;
  let map: Awaited<ReturnType<typeof publicMapWith>>;
  before(async () => {
    t = await withSheet(await start({ settings: { output: { renderTimeoutSeconds: 2, renderThreads: 2, renderQueue: 0 } } }));
    map = await publicMapWith(t, WIDE_BLUR);
  });
  after(async () => { await t.close(); });

  it('is drawn or refused within its budget from one address while /healthz answers and signed-in pictures are drawn', async () => {
    // The first PNG takes some seconds of blur (over the budget of 2), and goes on natively after its 422 until it
    // ends: the process waits for it. 1200 px wide keeps that tail short; 2000 took some 12 s of CPU.
    const pngs = [1200, 1500, 2000].map((w) => t.request(`/api/v1/public/output/map/${map.mapId}/png/?width=${w}`));
    const watched = pngs.map(watch);
    assert.equal((await t.request('/healthz')).status, 200);
    assert.ok(watched.some((w) => !w.settled), 'a PNG is still in flight when /healthz is answered');
    // One address may run half the threads: the other is left for signed-in work.
    const mine = await t.request(`/api/v1/output/map/${map.mapId}/svg/`, { token: t.write });
    assert.equal(mine.status, 200, await mine.text());
    const statuses = await Promise.all(pngs.map(async (p) => {
      const res = await p;
      if (res.status === 503) assert.match(res.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
      if (res.status === 422) assert.match((await body(res)).detail, /output\.renderTimeoutSeconds/);
      else await res.arrayBuffer();
      return res.status;
    }));
    for (const s of statuses) assert.ok([200, 422, 503].includes(s), `status ${s}`);
    assert.ok(statuses.includes(503), 'the share of the queue of one address is full at once');
  });
});

describe('a template that draws a shape 10^9 units out', () => {
  // resvg's rasterizer aborted the whole process on it (a panic it cannot unwind): the service stopped answering anyone.
  let t: Started;
  let map: Awaited<ReturnType<typeof publicMapWith>>;
  before(async () => {
    t = await withSheet(await start());
    map = await publicMapWith(t, FAR_SHAPE);
  });
  after(async () => { await t.close(); });

  it('its PNG is 422 naming how far the drawing reaches; its SVG is drawn and the service goes on answering', async () => {
    const png = await t.request(`/api/v1/public/output/map/${map.mapId}/png/?width=800`);
    assert.equal(png.status, 422);
    assert.match((await body(png)).detail, /px beyond its edges: a PNG is drawn only when its drawing stays within 1000000 px/);
    const svg = await t.request(`/api/v1/public/output/map/${map.mapId}/svg/?width=800`);
    assert.equal(svg.status, 200);
    await svg.arrayBuffer();
    assert.equal((await t.request('/healthz')).status, 200);
  });
});
