// A new user's own sheet through HTTP: the circuit-end headers people already
// use (A-End/Z-End, a_end/z_end, from/to, a/z) work like source/destination;
// a sheet without any is 422 naming the headers accepted (it is there, but
// wrong; a sheet not there stays 503); and a filter on a column the sheet
// lacks is reported by create in `problems`, not only refused at update.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let token: string;
before(async () => {
  t = await makeTestApp();
  token = await t.token();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  const write = (name: string, text: string) => writeFile(path.join(sheets, name), text);
  await write('dashes.csv', 'Circuit,A-End,Z-End,Region\nc1,CHI,NYC,us\nc2,NYC,LON,atlantic\n');
  await write('underscores.csv', 'id,a_end,z_end\nc1,CHI,NYC\n');
  await write('fromto.csv', 'From,To,Capacity\nCHI,NYC,100\n');
  await write('letters.csv', 'A,Z\nCHI,NYC\n');
  await write('neither.csv', 'Left,Right\nCHI,NYC\n');
  await write('sites.csv', 'Site A,Site B,Capacity\nCHI,NYC,100\nNYC,LON,10\n');
});
after(() => t.close());

const revision = (sheet: string, filters: unknown[] = []) => ({
  name: sheet, query: { endpoint: `spreadsheet?sheet_id=${sheet}&sheet_name=${sheet}`, filters },
});
const create = (json: unknown) => t.request('/api/v1/dataset/', { method: 'POST', token, json });
const update = (id: string, json: unknown) => t.request(`/api/v1/dataset/id/${id}/`, { method: 'PUT', token, json });

describe('circuit-end headers people already use', () => {
  for (const [sheet, count] of [['dashes', 2], ['underscores', 1], ['fromto', 1], ['letters', 1]] as const) {
    it(`${sheet}.csv: a dataset over it stores its circuits`, async () => {
      const created = await create(revision(sheet));
      assert.equal(created.status, 201);
      const d = (await created.json()) as { datasetId: string; problems: unknown[] };
      assert.deepEqual(d.problems, []);
      const res = await update(d.datasetId, revision(sheet));
      assert.equal(res.status, 200, await res.clone().text());
      const results = ((await res.json()) as { results: { source: string; destination: string }[] }).results;
      assert.equal(results.length, count);
      assert.deepEqual([results[0].source, results[0].destination], ['CHI', 'NYC']);
    });
  }

  it('a sheet with none of them is 422 naming the headers accepted; one not there is 503', async () => {
    const created = (await (await create(revision('neither'))).json()) as { datasetId: string; problems: { message: string }[] };
    assert.match(created.problems[0].message, /no sheet with source and destination columns.*A-End\/Z-End/);
    const res = await update(created.datasetId, revision('neither'));
    assert.equal(res.status, 422);
    assert.match(((await res.json()) as { detail: string }).detail, /source\/destination, a_end\/z_end, A-End\/Z-End, from\/to or a\/z/);
    assert.equal((await update(created.datasetId, revision('missing'))).status, 503);
  });
});

describe('POST /api/v1/dataset/: filters checked against the sheet', () => {
  it('reports a filter on a column the sheet lacks in problems, naming the columns there', async () => {
    const res = await create(revision('dashes', [{ field: 'regoin', operator: '', value: ['us'] }]));
    assert.equal(res.status, 201);
    const d = (await res.json()) as { datasetId: string; problems: { path: string; message: string }[] };
    assert.equal(d.problems.length, 1);
    assert.match(d.problems[0].message, /query\.filters\[0\]\.field: no column "regoin" in sheet "dashes"; available: .*region/);
    assert.equal((await update(d.datasetId, revision('dashes', [{ field: 'regoin', operator: '', value: ['us'] }]))).status, 422);
    const good = (await (await create(revision('dashes', [{ field: 'Region', operator: '', value: ['us'] }]))).json()) as { problems: unknown[] };
    assert.deepEqual(good.problems, []);
  });
});

describe('PUT /api/v1/dataset/id/{datasetId}/: filters that match no row', () => {
  it('stores nothing and answers the latest version with the values seen in the filtered columns', async () => {
    const created = (await (await create(revision('dashes'))).json()) as { datasetId: string };
    assert.equal((await update(created.datasetId, revision('dashes'))).status, 200);
    const res = await update(created.datasetId, revision('dashes', [{ field: 'Region', operator: '', value: ['US'] }]));
    assert.equal(res.status, 200);
    const body = (await res.json()) as { version: number; results: unknown[]; warnings: string[] };
    assert.equal(body.version, 2, 'no version stored');
    assert.equal(body.results.length, 2, 'the latest results, as they were');
    assert.deepEqual(body.warnings, ['the filters match none of the sheet\'s 2 rows, so no version was stored (values compare exactly, ' +
      'case included, except with like); values in the filtered columns: Region: "atlantic", "us"']);
    assert.deepEqual(await t.store.versions('datasets', created.datasetId), [1, 2]);
    const right = (await (await update(created.datasetId, revision('dashes', [{ field: 'Region', operator: '', value: ['us'] }]))).json()) as { version: number; warnings?: string[] };
    assert.deepEqual([right.version, right.warnings], [3, undefined]);
  });
});

describe('query.columns: a query\'s own names for the circuit-end columns', () => {
  const mapped = (columns: Record<string, string>) => ({ ...revision('sites'), query: { ...revision('sites').query, columns } });
  it('reads a sheet whose headers are none of the accepted ones', async () => {
    const json = mapped({ source: 'Site A', destination: 'site b' });
    const created = (await (await create(json)).json()) as { datasetId: string; problems: unknown[]; query: { columns: unknown } };
    assert.deepEqual(created.problems, []);
    assert.deepEqual(created.query.columns, { source: 'Site A', destination: 'site b' });
    const res = await update(created.datasetId, json);
    assert.equal(res.status, 200, await res.clone().text());
    const results = ((await res.json()) as { results: { source: string; destination: string; capacity: string }[] }).results;
    assert.deepEqual(results.map((r) => [r.source, r.destination, r.capacity]), [['CHI', 'NYC', '100'], ['NYC', 'LON', '10']]);
  });

  it('is 422 naming the headers there when a mapped header is not one', async () => {
    const created = (await (await create(revision('sites'))).json()) as { datasetId: string };
    const res = await update(created.datasetId, mapped({ source: 'Site A', destination: 'Site Z' }));
    assert.equal(res.status, 422);
    assert.match(((await res.json()) as { detail: string }).detail, /query\.columns\.destination: no column "Site Z" in sheet "sites" of sites\.csv; its headers: site a, site b, capacity/);
  });
});
