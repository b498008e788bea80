// Dataset create and update through HTTP with the real datasource registry
// (the app's default) over a CSV in <data dir>/sheets/.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, start, type Started } from './fixtures.ts';

const CSV = `${[
  'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude',
  'c1,CHIC-NEWY,CHIC,NEWY,100,41.88,-87.63,40.71,-74.01',
  'c2,CHIC-ATLA,CHIC,ATLA,40,41.88,-87.63,33.75,-84.39',
  'c3,broken,,ATLA,10,,,33.75,-84.39',
  'c4,NEWY-ATLA,NEWY,ATLA,100,40.71,-74.01,33.75,-84.39',
].join('\n')}\n`;

const endpoint = `spreadsheet?${new URLSearchParams({ sheet_id: 'circuits', sheet_name: 'circuits' })}`;
const revision = (filters: unknown[]) => ({
  name: 'Circuits',
  query: { endpoint, filters, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null },
});

let t: Started;
let sheets: string;
before(async () => {
  t = await start();
  sheets = t.settings.datasources.spreadsheet.dir;
  assert.equal(sheets, path.join(t.dir, 'sheets'));
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'circuits.csv'), CSV);
});
after(async () => { await t.close(); });

const create = async () => {
  const res = await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision([]) });
  assert.equal(res.status, 201);
  return body(res);
};
const update = (id: string, filters: unknown[]) =>
  t.request(`/api/v1/dataset/id/${id}/`, { method: 'PUT', token: t.write, json: revision(filters) });

describe('datasets over a spreadsheet', () => {
  it('the sheet is listed by GET /api/v1/datasources/ under the endpoint string datasets use', async () => {
    const listed = await body(await t.request('/api/v1/datasources/'));
    assert.deepEqual(listed[endpoint]?.context, { sheet_id: 'circuits', sheet_name: 'circuits' });
  });

  it('update with a filter runs the query: matching records stored, the unusable row reported', async () => {
    const d = await create();
    assert.equal(d.results, null);
    const res = await update(d.datasetId, [{ field: 'capacity', operator: 'equal', value: ['100'] }]);
    assert.equal(res.status, 200);
    const v2 = await body(res);
    assert.deepEqual(v2.results.map((r: any) => r.id).sort(), ['c1', 'c4']);
    const c1 = v2.results.find((r: any) => r.id === 'c1');
    assert.deepEqual([c1.source, c1.destination, c1.endpoints[0].name, c1.endpoints[1].latitude], ['CHIC', 'NEWY', 'CHIC', 40.71]);
    assert.equal(v2.problems.length, 1);
    assert.equal(v2.problems[0].row, 4);
    assert.deepEqual(await body(await t.request(`/api/v1/dataset/id/${d.datasetId}/`, { token: t.read })), v2);
  });

  it('a filter on a column the sheet lacks is 422 and stores nothing', async () => {
    const d = await create();
    const res = await update(d.datasetId, [{ field: 'colour', value: ['red'] }]);
    assert.equal(res.status, 422);
    assert.equal((await body(await t.request(`/api/v1/dataset/id/${d.datasetId}/`, { token: t.read }))).version, 1);
  });

  it('a malformed endpoint is 422 at create', async () => {
    const res = await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: { ...revision([]), query: { ...revision([]).query, endpoint: 'spreadsheet?sheet_id=../etc' } } });
    assert.equal(res.status, 422);
  });

  it('a sheet that is gone is 503 at update and stores nothing; with it back the update works', async () => {
    const d = await create();
    await rm(path.join(sheets, 'circuits.csv'));
    try {
      for (const filters of [[{ field: 'source', value: ['CHIC'] }], []]) {
        const res = await update(d.datasetId, filters);
        assert.equal(res.status, 503, `filters ${JSON.stringify(filters)}`);
        assert.match((await body(res)).detail, /circuits/);
      }
      assert.equal((await body(await t.request(`/api/v1/dataset/id/${d.datasetId}/`, { token: t.read }))).version, 1);
      assert.deepEqual(t.store.versions('datasets', d.datasetId), [1]);
    } finally {
      await writeFile(path.join(sheets, 'circuits.csv'), CSV);
    }
    const again = await body(await update(d.datasetId, [{ field: 'source', value: ['CHIC'] }]));
    assert.equal(again.version, 2);
    assert.deepEqual(again.results.map((r: any) => r.id).sort(), ['c1', 'c2']);
  });
});
