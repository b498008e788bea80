// A big dataset diff (docs/api.md: Limits of the work a request may cause):
// two versions with more than 5,000 records together are diffed on the render
// pool, not on the event loop, and answer what a small diff would: the one
// changed circuit. (/healthz answered while it is in flight holds either way
// at this size; the pool's own tests show its budgets.)
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, start, type Started } from './fixtures.ts';

const HEADER = 'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude';
const sheet = (capacityOf: (i: number) => number) => `${[HEADER, ...Array.from({ length: 3000 }, (_, i) =>
  `c${i},S${i}-D${i},S${i},D${i},${capacityOf(i)},${(i % 80) - 40},${(i % 300) - 150},${(i % 70) - 35},${(i % 200) - 100}`)].join('\n')}\n`;
const revision = { name: 'Big', query: { endpoint: 'spreadsheet?sheet_id=big&sheet_name=big', node_deduplication_field: null,
  node_group_criteria: null, node_group_layout: null, filters: [] } };

let t: Started;
let datasetId: string;

before(async () => {
  t = await start();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'big.csv'), sheet(() => 10));
  datasetId = (await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision }))).datasetId;
  assert.equal((await t.request(`/api/v1/dataset/id/${datasetId}/`, { method: 'PUT', token: t.write, json: revision })).status, 200);
  await writeFile(path.join(sheets, 'big.csv'), sheet((i) => (i === 7 ? 100 : 10)));
  assert.equal((await t.request(`/api/v1/dataset/id/${datasetId}/`, { method: 'PUT', token: t.write, json: revision })).status, 200);
});
after(async () => { await t.close(); });

describe('GET /api/v1/dataset/id/{id}/diff/ of 6,000 records', () => {
  it('is answered off the event loop, naming the one changed circuit', async () => {
    let settled = false;
    const diff = t.request(`/api/v1/dataset/id/${datasetId}/diff/`, { token: t.read }).finally(() => { settled = true; });
    assert.equal((await t.request('/healthz')).status, 200);
    assert.equal(settled, false, 'the diff is still in flight when /healthz is answered');
    const res = await diff;
    assert.equal(res.status, 200);
    const answer = await body(res);
    assert.deepEqual([answer.from, answer.to], [2, 3]);
    assert.deepEqual(answer.edges.changed.map((e: { name: string }) => e.name), ['S7-D7']);
    assert.deepEqual([answer.edges.added.length, answer.edges.removed.length], [0, 0]);
  });
});
