// GET /api/v1/public/maps/: no authentication; a map is listed when its latest
// version is public, and only its versions stored as public are shown. Public
// output errors do not name the files a map is drawn from.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, createMap, sampleMap, shownConfiguration, start, type Started } from './fixtures.ts';

let t: Started;
const ids: Record<string, string> = {};
const post = (id: string, action: 'publish' | 'unpublish') =>
  t.request(`/api/v1/map/id/${id}/${action}/`, { method: 'POST', token: t.publish });
const put = (id: string, name: string) =>
  t.request(`/api/v1/map/id/${id}/`, { method: 'PUT', token: t.write, json: sampleMap(name) });

before(async () => {
  t = await start();
  for (const name of ['private', 'public', 'withdrawn', 'republished']) ids[name] = (await createMap(t, name)).mapId;
  // public: v1 private, v2 published, v3 edited (stays public)
  await post(ids.public, 'publish');
  await put(ids.public, 'public edited');
  // withdrawn: v2 published, v3 unpublished
  await post(ids.withdrawn, 'publish');
  await post(ids.withdrawn, 'unpublish');
  // republished: v2 published, v3 unpublished, v4 published
  await post(ids.republished, 'publish');
  await post(ids.republished, 'unpublish');
  await post(ids.republished, 'publish');
});
after(async () => { await t.close(); });

const list = async (query = '') => {
  const res = await t.request(`/api/v1/public/maps/${query}`);
  return { status: res.status, total: res.headers.get('x-total-count'), items: await body(res) };
};

describe('GET /api/v1/public/maps/', () => {
  it('needs no token and lists maps whose latest version is public', async () => {
    const { status, items, total } = await list();
    assert.equal(status, 200);
    assert.deepEqual(items.map((m: any) => m.mapId).sort(), [ids.public, ids.republished].sort());
    assert.equal(total, '2');
    assert.deepEqual(items.find((m: any) => m.mapId === ids.public), {
      mapId: ids.public, name: 'public edited', version: 3, lastUpdatedBy: 'admin',
      lastUpdatedOn: items.find((m: any) => m.mapId === ids.public).lastUpdatedOn,
    });
  });

  it('version=all shows only the versions stored as public', async () => {
    const { items } = await list('?version=all&fields=mapId,version,public');
    const shown = items.map((m: any) => `${m.mapId === ids.public ? 'public' : 'republished'}:${m.version}`).sort();
    assert.deepEqual(shown, ['public:2', 'public:3', 'republished:2', 'republished:4']);
    assert.ok(items.every((m: any) => m.public === true));
  });

  it('a version number that was not stored as public is not shown', async () => {
    assert.deepEqual((await list(`?version=1`)).items, []);
    assert.deepEqual((await list(`?version=3`)).items.map((m: any) => m.mapId), [ids.public]);
  });

  it('takes the filters and fields of the maps list, but not public', async () => {
    assert.deepEqual((await list(`?mapId=${ids.public}&mapId=${ids.private}`)).items.map((m: any) => m.mapId), [ids.public]);
    assert.deepEqual((await list(`?name=public%20edited&fields=configuration`)).items, [{ configuration: shownConfiguration(t.settings.server.baseUrl) }]);
    assert.equal((await list('?public=false')).total, (await list()).total, 'public is not a filter here: an unknown parameter, ignored');
    assert.equal((await list('?fields=secret')).status, 400);
  });

  it('follows publish and unpublish at once', async () => {
    await post(ids.private, 'publish');
    assert.equal((await list()).total, '3');
    await post(ids.private, 'unpublish');
    assert.equal((await list()).total, '2');
  });
});

describe('public output errors', () => {
  it('do not name the files a map is drawn from; the signed-in route does', async () => {
    const sheets = t.settings.datasources.spreadsheet.dir;
    await mkdir(sheets, { recursive: true });
    await writeFile(path.join(sheets, 'secret-circuits.csv'), 'source,destination,source_latitude,source_longitude,destination_latitude,destination_longitude\na,b,1,2,3,4\n');
    const { datasetId } = await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: { name: 'Hidden', query: {
      endpoint: 'spreadsheet?sheet_id=secret-circuits&sheet_name=secret-circuits', node_deduplication_field: null, node_group_criteria: null, node_group_layout: null, filters: [] } } }));
    const { mapId } = await createMap(t, 'Drawn from a file', { configuration: { layers: [{ name: 'live', datasetId, datatype: 'dynamic', layout: 'geographic' }] } });
    assert.equal((await t.request(`/api/v1/map/id/${mapId}/publish/`, { method: 'POST', token: t.publish })).status, 200);
    await writeFile(path.join(sheets, 'secret-circuits.csv'), 'not,the,columns\n1,2,3\n');
    const mine = await t.request(`/api/v1/output/map/${mapId}/svg/`, { token: t.write });
    assert.ok([422, 503].includes(mine.status), `status ${mine.status}`);
    assert.match((await body(mine)).detail, /secret-circuits\.csv/);
    const shown = await t.request(`/api/v1/public/output/map/${mapId}/svg/`);
    assert.equal(shown.status, mine.status);
    const detail = (await body(shown)).detail as string;
    assert.ok(!detail.includes('secret-circuits.csv'), detail);
    assert.match(detail, /a sheet/);
    // The sheet gone: the signed-in detail lists the files looked for; the public one says only that the sheet is missing.
    await rm(path.join(sheets, 'secret-circuits.csv'));
    const missing = await t.request(`/api/v1/output/map/${mapId}/svg/?width=300`, { token: t.write });
    assert.match((await body(missing)).detail, /no secret-circuits\.xlsx or secret-circuits\.csv/);
    const gone = (await body(await t.request(`/api/v1/public/output/map/${mapId}/svg/?width=300`))).detail as string;
    assert.equal(gone, 'layer 1 ("live"): spreadsheet "secret-circuits" does not exist');
  });
});
