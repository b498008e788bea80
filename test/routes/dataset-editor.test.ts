// A dataset's life as Terranova's editor lives it, through HTTP against the
// real app over sheets in <data dir>/sheets: created with a placeholder
// endpoint (saved, problem reported), updated without filters (every row
// stored, so a published map over it keeps its picture), coordinates under
// Lat/Lon headers and in a Sites tab, a geographic output with no position
// at all (422 naming the fix), and a symbolic link out of the sheets folder
// (never listed, its content never shown).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { csvText, endpoint, xlsxBuffer } from '../datasources/helpers.ts';
import { body, createMap, start, type Started } from './fixtures.ts';

const CIRCUITS = [
  ['id', 'name', 'source', 'destination', 'region'],
  ['c1', 'CHIC-NEWY', 'chic-cr5', 'newy-cr5', 'americas'],
  ['c2', 'NEWY-LOND', 'newy-cr5', 'lond-cr5', 'transatlantic'],
  ['c3', 'LOND-AMST', 'lond-cr5', 'amst-cr5', 'europe'],
  ['c4', 'AMST-FRAN', 'amst-cr5', 'fran-cr5', 'europe'],
];
const SITES = [
  ['name', 'LAT', 'Lng'],
  ['chic-cr5', 41.8781, -87.6298], ['newy-cr5', 40.7128, -74.006], ['lond-cr5', 51.5072, -0.1276],
  ['amst-cr5', 52.3676, 4.9041], ['fran-cr5', 50.1109, 8.6821],
];
const RNE = endpoint('rne', 'Circuits');
const CANARY = 'CANARY-8d2e77';

let t: Started;
let outside: string;
before(async () => {
  t = await start();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'rne.xlsx'), await xlsxBuffer([{ name: 'Circuits', rows: CIRCUITS }, { name: 'Sites', rows: SITES }]));
  await writeFile(path.join(sheets, 'inline.csv'), csvText([
    ['source', 'destination', 'source_lat', 'source_lon', 'destination_lat', 'destination_long'],
    ['chic-cr5', 'newy-cr5', 41.8781, -87.6298, 40.7128, -74.006],
  ]));
  await writeFile(path.join(sheets, 'nopos.csv'), csvText([['source', 'destination'], ['a', 'b'], ['b', 'c']]));
  outside = await mkdtemp(path.join(tmpdir(), 'mts-outside-'));
  await writeFile(path.join(outside, 'passwd'), `root:x:0:0:${CANARY}:/root:/bin/bash\n`);
  await symlink(path.join(outside, 'passwd'), path.join(sheets, 'passwd.csv'));
  await writeFile(path.join(outside, 'secret.csv'), csvText([['source', 'destination', 'note'], ['x', 'y', CANARY]]));
  await symlink(path.join(outside, 'secret.csv'), path.join(sheets, 'secret.csv'));
});
after(async () => {
  await t.close();
  await rm(outside, { recursive: true, force: true });
});

const create = (json: unknown) => t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json });
const update = (id: string, json: unknown) => t.request(`/api/v1/dataset/id/${id}/`, { method: 'PUT', token: t.write, json });
const getDataset = async (id: string) => body(await t.request(`/api/v1/dataset/id/${id}/`, { token: t.read }));
const revision = (name: string, ep: string, filters: unknown[] = []) =>
  ({ name, query: { endpoint: ep, filters, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null } });

/** A dataset over `ep` updated once with `filters` (so it has stored results). */
async function datasetWith(name: string, ep: string, filters: unknown[] = []) {
  const created = await body(await create(revision(name, ep)));
  const res = await update(created.datasetId, revision(name, ep, filters));
  assert.equal(res.status, 200, await res.clone().text());
  return body(res);
}

describe('dataset create with an endpoint that cannot run yet', () => {
  it('the editor\'s placeholder {endpoint: "esdb", filters: []} is saved (201) and reported in problems; update with it is 422', async () => {
    const res = await create({ name: 'New dataset', query: { endpoint: 'esdb', filters: [] } });
    assert.equal(res.status, 201);
    const d = await body(res);
    assert.equal(d.version, 1);
    assert.equal(d.results, null);
    assert.equal(d.problems.length, 1);
    assert.equal(d.problems[0].path, 'query.endpoint');
    assert.match(d.problems[0].message, /unknown datasource kind "esdb"; expected spreadsheet/);
    assert.deepEqual(await getDataset(d.datasetId), d);

    const refused = await update(d.datasetId, { name: 'New dataset', query: { endpoint: 'esdb', filters: [] } });
    assert.equal(refused.status, 422);
    assert.match((await body(refused)).detail, /unknown datasource kind "esdb"/);
    assert.equal((await getDataset(d.datasetId)).version, 1);

    // The editor then picks a datasource and saves: the query runs and the problem is gone.
    const saved = await body(await update(d.datasetId, revision('New dataset', RNE)));
    assert.deepEqual([saved.version, saved.problems, saved.results.length], [2, [], 4]);
  });

  it('a sheet that is not there is saved and reported; a malformed endpoint is still 422', async () => {
    const res = await create(revision('Later', endpoint('next-year', 'Circuits')));
    assert.equal(res.status, 201);
    assert.match((await body(res)).problems[0].message, /spreadsheet "next-year" does not exist/);
    const ok = await body(await create(revision('Now', RNE)));
    assert.deepEqual(ok.problems, []);
    assert.equal((await create(revision('Bad', 'spreadsheet?sheet_id=../etc&sheet_name=x'))).status, 422);
  });
});

describe('dataset update without filters', () => {
  it('stores every row as a content-addressed blob, and a published map over it keeps its picture', async () => {
    const d = await datasetWith('Backbone', RNE, [{ field: 'region', operator: '', value: ['europe'] }]);
    assert.deepEqual(d.results.map((r: any) => r.id), ['c3', 'c4']);
    const map = await createMap(t, 'Backbone map', {
      configuration: { layers: [{ name: 'core', color: '#1f77b4', datasetId: d.datasetId, layout: 'geographic' }] },
    });
    assert.equal((await t.request(`/api/v1/map/id/${map.mapId}/publish/`, { method: 'POST', token: t.publish })).status, 200);
    const picture = () => t.request(`/api/v1/public/output/map/${map.mapId}/svg/`);
    assert.equal((await picture()).status, 200);

    // Removing the last filter: every row, stored with the new version.
    const res = await update(d.datasetId, revision('Backbone', RNE, []));
    assert.equal(res.status, 200);
    const v3 = await body(res);
    assert.equal(v3.version, 3);
    assert.deepEqual(v3.results.map((r: any) => r.id), ['c1', 'c2', 'c3', 'c4']);
    const key = t.store.head<any>('datasets', d.datasetId)?.resultsKey;
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.deepEqual((await t.store.fetch<any>(key))?.records, v3.results);

    const svg = await picture();
    assert.equal(svg.status, 200);
    assert.match(svg.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    const layers = await body(await t.request(`/api/v1/public/output/map/${map.mapId}/`));
    assert.equal(JSON.parse(layers.layers[0].mapjson).edges.length, 4);
  });
});

describe('coordinates', () => {
  const output = (id: string, layout: string, type = 'json', datatype = 'snapshot') =>
    t.request(`/api/v1/output/dataset/${id}/${layout}/${datatype}/${type}/`, { token: t.read });

  it('LAT/Lng headers in a Sites tab give the nodes their positions', async () => {
    const d = await datasetWith('Sites', RNE);
    const topology = await body(await output(d.datasetId, 'geographic'));
    const at = Object.fromEntries(topology.nodes.map((n: any) => [n.name, n.coordinate]));
    assert.deepEqual(at['chic-cr5'], [41.8781, -87.6298]);
    assert.deepEqual(at['fran-cr5'], [50.1109, 8.6821]);
    assert.ok(topology.nodes.every((n: any) => n.coordinate[0] !== 0 || n.coordinate[1] !== 0));
  });

  it('source_lat / source_lon / destination_lat / destination_long row columns give positions', async () => {
    const d = await datasetWith('Inline', endpoint('inline', 'inline'));
    const topology = await body(await output(d.datasetId, 'geographic', 'json', 'dynamic'));
    assert.deepEqual(topology.nodes.map((n: any) => [n.name, n.coordinate]), [['chic-cr5', [41.8781, -87.6298]], ['newy-cr5', [40.7128, -74.006]]]);
  });

  it('a geographic output in which no node has a position is 422 naming the fix (JSON and SVG); logical works', async () => {
    const d = await datasetWith('No positions', endpoint('nopos', 'nopos'));
    for (const [type, datatype] of [['json', 'snapshot'], ['svg', 'snapshot'], ['json', 'dynamic']]) {
      const res = await output(d.datasetId, 'geographic', type, datatype);
      assert.equal(res.status, 422, `${type} ${datatype}`);
      const { detail } = await body(res);
      assert.match(detail, /"No positions": none of its 3 nodes have coordinates/);
      assert.match(detail, /latitude and longitude columns \(lat, lon, lng and long work too\)/);
      assert.match(detail, /logical layout/);
    }
    assert.equal((await output(d.datasetId, 'logical')).status, 200);
  });
});

describe('the sheets folder is a boundary', () => {
  it('a symbolic link to a file outside is not listed, cannot be queried, and its content never appears', async () => {
    const res = await t.request('/api/v1/datasources/');
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(!text.includes(CANARY), 'no content of the linked file');
    assert.ok(!text.includes('root:x'), 'no line of the linked file');
    const listed = JSON.parse(text);
    assert.deepEqual(Object.values(listed).map((e: any) => e.context.sheet_id).sort(), ['inline', 'nopos', 'rne']);

    for (const id of ['passwd', 'secret']) {
      const created = await body(await create(revision('Linked', endpoint(id, id))));
      assert.match(created.problems[0].message, new RegExp(`spreadsheet "${id}" does not exist`));
      const updated = await update(created.datasetId, revision('Linked', endpoint(id, id)));
      assert.equal(updated.status, 503);
      const preview = await t.request('/api/v1/output/query/raw/', { method: 'PATCH', token: t.editor, json: revision('Linked', endpoint(id, id)) });
      assert.equal(preview.status, 503);
      const routed = await t.request(`/api/v1/datasources/spreadsheet/${id}/${id}/query/?limit=0&`, { token: t.read });
      assert.equal(routed.status, 503);
      for (const r of [updated, preview, routed]) assert.ok(!(await r.text()).includes(CANARY));
    }
  });
});
