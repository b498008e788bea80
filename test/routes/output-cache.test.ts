// The output cache through HTTP (docs/api.md: Output cache): renders are
// counted through createApp's onOutputRender. A repeated request and a 304 of
// any output (topology JSON, map outputs, SVG, PNG; public ones included)
// render nothing; a new dataset version, template version, map version or a
// change to a live layer's sheet renders again, and only the outputs that
// read it (a sheet within a second: it is looked at again at most that
// often); an output whose map is no longer public is not served from the cache.
import assert from 'node:assert/strict';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTestApp } from '../helpers/app.ts';
import { body, createMap, sampleTemplate, start, type Started } from './fixtures.ts';

const HEADER = 'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude';
const ROWS = ['c1,CHIC-NEWY,CHIC,NEWY,100,41.88,-87.63,40.71,-74.01', 'c2,CHIC-DENV,CHIC,DENV,40,41.88,-87.63,39.74,-104.99'];
const revision = (name: string) => ({
  name,
  query: { endpoint: 'spreadsheet?sheet_id=circuits&sheet_name=circuits', filters: [], node_deduplication_field: null, node_group_criteria: null, node_group_layout: null },
});

let t: Started;
let sheet: string;
let dataset: string;
let template: string;
let mapId: string;
const renders: string[] = [];

before(async () => {
  t = await start({ onOutputRender: (key) => renders.push(key) });
  const dir = t.settings.datasources.spreadsheet.dir;
  await mkdir(dir, { recursive: true });
  sheet = path.join(dir, 'circuits.csv');
  await writeFile(sheet, `${[HEADER, ...ROWS].join('\n')}\n`);
  dataset = (await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision('Circuits') }))).datasetId;
  assert.equal((await t.request(`/api/v1/dataset/id/${dataset}/`, { method: 'PUT', token: t.write, json: revision('Circuits') })).status, 200);
  template = (await body(await t.request('/api/v1/template/', { method: 'POST', token: t.write, json: sampleTemplate() }))).templateId;
  mapId = (await createMap(t, 'Live', { configuration: { layers: [
    { name: 'stored', datasetId: dataset, templateId: template, layout: 'geographic' },
    { name: 'live', datasetId: dataset, datatype: 'dynamic', layout: 'logical' },
  ] } })).mapId;
  assert.equal((await t.request(`/api/v1/map/id/${mapId}/publish/`, { method: 'POST', token: t.publish })).status, 200);
});
after(async () => { await t.close(); });

const get = (url: string, headers: Record<string, string> = {}) => t.request(url, { token: url.includes('/public/') ? undefined : t.all, headers });

/** How many renders `fn` caused. */
async function rendersOf(fn: () => Promise<unknown>) {
  const before = renders.length;
  await fn();
  return renders.length - before;
}

/** Each URL once, checking 200; the number of renders. */
const fetchAll = (urls: string[]) => rendersOf(async () => {
  for (const url of urls) {
    const res = await get(url);
    assert.equal(res.status, 200, `${url}: ${await res.text()}`);
  }
});

const outputs = () => ({
  snapshotJson: `/api/v1/output/dataset/${dataset}/geographic/snapshot/`,
  snapshotSvg: `/api/v1/output/dataset/${dataset}/geographic/static/svg/`,
  snapshotPng: `/api/v1/output/dataset/${dataset}/geographic/snapshot/png/`,
  pinnedJson: `/api/v1/output/dataset/${dataset}/geographic/snapshot/json/?version=2`,
  templated: `/api/v1/output/dataset/${dataset}/geographic/snapshot/json/?template=${template}`,
  liveJson: `/api/v1/output/dataset/${dataset}/logical/dynamic/json/`,
  mapConfiguration: `/api/v1/output/map/${mapId}/`,
  mapJson: `/api/v1/output/map/${mapId}/json/`,
  mapSvg: `/api/v1/output/map/${mapId}/svg/`,
  publicSvg: `/api/v1/public/output/map/${mapId}/svg/`,
  publicPng: `/api/v1/public/output/map/${mapId}/png/`,
  diffPng: `/api/v1/output/dataset/${dataset}/diff/geographic/png/?from=1&to=2`,
});

describe('output cache: what does not render', () => {
  it('a repeated request of every output renders nothing, and answers the same bytes and ETag', async () => {
    const urls = Object.values(outputs());
    assert.ok(await fetchAll(urls) >= urls.length, 'the first requests render');
    for (const url of urls) {
      const [a, b] = [await get(url), await get(url)];
      assert.equal(a.headers.get('etag'), b.headers.get('etag'));
      assert.deepEqual(new Uint8Array(await a.arrayBuffer()), new Uint8Array(await b.arrayBuffer()));
    }
    assert.equal(await fetchAll(urls), 0);
  });

  it('a 304 renders nothing', async () => {
    for (const url of Object.values(outputs())) {
      const etag = (await get(url)).headers.get('etag')!;
      assert.equal(await rendersOf(async () => assert.equal((await get(url, { 'If-None-Match': etag })).status, 304)), 0, url);
    }
  });

  it('a PNG whose SVG is cached renders only the PNG', async () => {
    const url = `/api/v1/output/dataset/${dataset}/logical/snapshot/svg/`;
    await fetchAll([url]);
    assert.equal(await fetchAll([url.replace('/svg/', '/png/')]), 1);
  });
});

describe('output cache: what renders again', () => {
  it('a change to the live layer\'s sheet: live outputs and the maps drawing it, not the stored ones', async () => {
    const o = outputs();
    await fetchAll(Object.values(o));
    const before = await body(await get(o.liveJson));
    await writeFile(sheet, `${[HEADER, ...ROWS, 'c3,DENV-SEAT,DENV,SEAT,10,39.74,-104.99,47.6,-122.33'].join('\n')}\n`);
    assert.equal(await fetchAll([o.snapshotJson, o.snapshotSvg, o.pinnedJson, o.templated, o.diffPng]), 0);
    for (const url of [o.liveJson, o.mapJson, o.publicSvg, o.publicPng]) assert.ok(await fetchAll([url]) > 0, url);
    const after = await body(await get(o.liveJson));
    assert.equal(after.nodes.length, before.nodes.length + 1, 'the new row is drawn');
  });

  it('a new dataset version: outputs of the latest version, not those pinned to an older one', async () => {
    const o = outputs();
    await fetchAll(Object.values(o));
    assert.equal((await t.request(`/api/v1/dataset/id/${dataset}/`, { method: 'PUT', token: t.write, json: revision('Circuits v3') })).status, 200);
    assert.equal(await fetchAll([o.pinnedJson, o.diffPng]), 0);
    for (const url of [o.snapshotJson, o.snapshotPng, o.templated, o.liveJson, o.mapConfiguration, o.publicSvg]) assert.ok(await fetchAll([url]) > 0, url);
    assert.equal((await body(await get(o.snapshotJson))).name, 'Circuits v3');
  });

  it('a new template version: outputs drawn with it', async () => {
    const o = outputs();
    await fetchAll(Object.values(o));
    const put = await t.request(`/api/v1/template/id/${template}/`, { method: 'PUT', token: t.write,
      json: { name: 'Bigger', template: '<g data-width="14" data-height="14"><rect x="-7" y="-7" width="14" height="14"/></g>' } });
    assert.equal(put.status, 200);
    assert.equal(await fetchAll([o.snapshotJson, o.liveJson, o.pinnedJson]), 0);
    for (const url of [o.templated, o.mapJson, o.mapSvg, o.publicPng]) assert.ok(await fetchAll([url]) > 0, url);
    assert.match((await body(await get(o.templated))).nodes[0].meta.svg, /width="14"/);
  });

  it('a new map version: that map\'s outputs', async () => {
    const o = outputs();
    await fetchAll(Object.values(o));
    const latest = await body(await t.request(`/api/v1/map/id/${mapId}/`, { token: t.read }));
    const put = await t.request(`/api/v1/map/id/${mapId}/`, { method: 'PUT', token: t.all, json: { name: 'Renamed', configuration: latest.configuration, overrides: {} } });
    assert.equal(put.status, 200, await put.clone().text());
    assert.equal(await fetchAll([o.snapshotJson, o.liveJson]), 0);
    for (const url of [o.mapConfiguration, o.mapJson, o.mapSvg]) assert.ok(await fetchAll([url]) > 0, url);
    assert.match(await (await get(o.mapSvg)).text(), /aria-label="Renamed"/);
  });

  it('a sheet replaced by a new file renamed over it, then removed: drawn anew, then 503, never the cached output', async () => {
    const url = `/api/v1/output/dataset/${dataset}/geographic/live/svg/`;
    await fetchAll([url]);
    const next = path.join(path.dirname(sheet), '.circuits.csv.new');
    await writeFile(next, `${[HEADER, ROWS[0]].join('\n')}\n`);
    await rename(next, sheet);
    assert.equal(await fetchAll([url]), 1);
    assert.doesNotMatch(await (await get(url)).text(), /DENV/);
    await rm(sheet);
    assert.equal((await get(url)).status, 503);
    await writeFile(sheet, `${[HEADER, ...ROWS].join('\n')}\n`);
    assert.equal((await get(url)).status, 200);
  });

  it('a dataset or template deleted: 404, never the cached output', async () => {
    const id = (await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision('Spare') }))).datasetId;
    assert.equal((await t.request(`/api/v1/dataset/id/${id}/`, { method: 'PUT', token: t.write, json: revision('Spare') })).status, 200);
    const spare = (await body(await t.request('/api/v1/template/', { method: 'POST', token: t.write, json: sampleTemplate('Spare') }))).templateId;
    const withTemplate = `/api/v1/output/dataset/${dataset}/geographic/snapshot/png/?template=${spare}`;
    const ofDataset = `/api/v1/output/dataset/${id}/logical/snapshot/json/?version=2`;
    await fetchAll([withTemplate, ofDataset]);
    for (const gone of [`/api/v1/template/id/${spare}/`, `/api/v1/dataset/id/${id}/`]) {
      assert.equal((await t.request(gone, { method: 'DELETE', token: t.write })).status, 200);
    }
    assert.equal((await get(withTemplate)).status, 404);
    assert.equal((await get(ofDataset)).status, 404);
  });

  it('a map no longer public: 404 on the public routes, never the cached picture', async () => {
    const o = outputs();
    const id = (await createMap(t, 'Brief', { configuration: { layers: [{ name: 'stored', datasetId: dataset, layout: 'geographic' }] } })).mapId;
    assert.equal((await t.request(`/api/v1/map/id/${id}/publish/`, { method: 'POST', token: t.publish })).status, 200);
    const url = o.publicPng.replace(mapId, id);
    assert.equal((await get(url)).status, 200);
    assert.equal((await t.request(`/api/v1/map/id/${id}/unpublish/`, { method: 'POST', token: t.publish })).status, 200);
    assert.equal((await get(url)).status, 404);
  });
});

describe('output cache: how fresh live layers are', () => {
  it('a sheet is looked at again at most once a second: a change shows in the live picture within a second', async () => {
    let ms = Date.parse('2026-11-22T10:00:00.000Z');
    const counted: string[] = [];
    const p = await start({ now: () => new Date(ms), onOutputRender: (key) => counted.push(key) });
    try {
      const dir = p.settings.datasources.spreadsheet.dir;
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, 'circuits.csv');
      await writeFile(file, `${[HEADER, ...ROWS].join('\n')}\n`);
      const id = (await body(await p.request('/api/v1/dataset/', { method: 'POST', token: p.write, json: revision('Live') }))).datasetId;
      const map = (await createMap(p, 'Wall', { configuration: { layers: [{ name: 'live', datasetId: id, datatype: 'dynamic', layout: 'geographic' }] } })).mapId;
      assert.equal((await p.request(`/api/v1/map/id/${map}/publish/`, { method: 'POST', token: p.publish })).status, 200);
      const url = `/api/v1/public/output/map/${map}/svg/`;
      const picture = async () => {
        const res = await p.request(url);
        assert.equal(res.status, 200);
        return res.text();
      };
      assert.doesNotMatch(await picture(), /SEAT/);
      await writeFile(file, `${[HEADER, ...ROWS, 'c3,DENV-SEAT,DENV,SEAT,10,39.74,-104.99,47.6,-122.33'].join('\n')}\n`);
      const before = counted.length;
      ms += 999;
      assert.doesNotMatch(await picture(), /SEAT/, 'within the second: the kept picture');
      assert.equal(counted.length, before);
      ms += 1;
      assert.match(await picture(), /SEAT/, 'a second on: drawn anew with the new row');
      assert.equal(counted.length, before + 1);
    } finally {
      await p.close();
    }
  });
});

describe('output.cacheBytes: 0 keeps nothing', () => {
  it('every request renders', async () => {
    const counted: string[] = [];
    const bare = await makeTestApp({ settings: { output: { cacheBytes: 0 } }, onOutputRender: (key) => counted.push(key) });
    try {
      const token = await bare.token();
      const id = (await body(await bare.request('/api/v1/map/', { method: 'POST', token, json: { name: 'Empty', configuration: { layers: [] } } }))).mapId;
      for (let i = 0; i < 3; i++) assert.equal((await bare.request(`/api/v1/output/map/${id}/svg/`, { token })).status, 200);
      assert.equal(counted.length, 3);
    } finally {
      await bare.close();
    }
  });
});
