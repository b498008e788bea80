// A big dataset diff (docs/api.md: Limits of the work a request may cause):
// two versions whose stored results pass 1 MiB together are diffed on the
// render pool from the results' stored bytes, not on the event loop, and
// answer byte for byte what a small diff does: the diff of both versions'
// results, as a client would work it out from them. The summary a big
// update stores is the one a small update's diff gives.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { diffDataset } from '../../history/diff-dataset.ts';
import { summarizeDataset } from '../../history/summary.ts';
import { body, start, type Started } from './fixtures.ts';

const HEADER = 'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude';
const sheet = (rows: number, capacityOf: (i: number) => number) => `${[HEADER, ...Array.from({ length: rows }, (_, i) =>
  `c${i},S${i}-D${i},S${i},D${i},${capacityOf(i)},${(i % 80) - 40},${(i % 300) - 150},${(i % 70) - 35},${(i % 200) - 100}`)].join('\n')}\n`;
const revision = (sheetId: string) => ({ name: sheetId, query: { endpoint: `spreadsheet?sheet_id=${sheetId}&sheet_name=${sheetId}`,
  node_deduplication_field: null, node_group_criteria: null, node_group_layout: null, filters: [] } });

let t: Started;
/** Dataset IDs by sheet: versions 2 and 3 differ in one circuit's capacity (and, for `big`, in rows 2,990 and on). */
const ids: Record<string, string> = {};
const CASES = [{ sheetId: 'small', rows: 20 }, { sheetId: 'big', rows: 3000 }];

before(async () => {
  t = await start();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  for (const { sheetId, rows } of CASES) {
    const file = path.join(sheets, `${sheetId}.csv`);
    await writeFile(file, sheet(rows, () => 10));
    ids[sheetId] = (await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision(sheetId) }))).datasetId;
    assert.equal((await t.request(`/api/v1/dataset/id/${ids[sheetId]}/`, { method: 'PUT', token: t.write, json: revision(sheetId) })).status, 200);
    await writeFile(file, sheet(rows - (rows > 100 ? 10 : 0), (i) => (i === 7 ? 100 : 10)) + (rows > 100 ? 'n1,N1-N2,N1,N2,5,1,2,3,4\n' : ''));
    assert.equal((await t.request(`/api/v1/dataset/id/${ids[sheetId]}/`, { method: 'PUT', token: t.write, json: revision(sheetId) })).status, 200);
  }
});
after(async () => { await t.close(); });

/** Version `n` of a dataset as a client reads it: name, query and results. */
async function version(id: string, n: number) {
  const v = await body(await t.request(`/api/v1/dataset/id/${id}/?version=${n}`, { token: t.read }));
  return { name: v.name as string, query: v.query as unknown, records: v.results };
}

describe('GET /api/v1/dataset/id/{id}/diff/, small and big alike', () => {
  for (const { sheetId, rows } of CASES) {
    it(`of ${rows * 2} records answers the diff of the two versions' results, byte for byte`, async () => {
      const id = ids[sheetId];
      const res = await t.request(`/api/v1/dataset/id/${id}/diff/`, { token: t.read });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      const expected = diffDataset(await version(id, 2), await version(id, 3));
      assert.equal(await res.text(), JSON.stringify({ datasetId: id, from: 2, to: 3, ...expected }));
      assert.deepEqual(expected.edges.changed.map((e) => e.name), ['S7-D7']);
      if (rows > 100) assert.deepEqual([expected.edges.added.length, expected.edges.removed.length], [1, 10]);
    });

    it(`of ${rows * 2} records: the history's summary is the summary of that diff`, async () => {
      const id = ids[sheetId];
      const history = await body(await t.request(`/api/v1/dataset/id/${id}/history/`, { token: t.read }));
      const summary = summarizeDataset(diffDataset(await version(id, 2), await version(id, 3)));
      assert.equal(history[0].summary, summary);
      assert.match(summary, /1 edge changed/);
    });
  }

  it('of 6,000 records is answered off the event loop', async () => {
    let settled = false;
    const diff = t.request(`/api/v1/dataset/id/${ids.big}/diff/?from=2&to=3`, { token: t.read }).finally(() => { settled = true; });
    assert.equal((await t.request('/healthz')).status, 200);
    assert.equal(settled, false, 'the diff is still in flight when /healthz is answered');
    assert.equal((await diff).status, 200);
  });
});
