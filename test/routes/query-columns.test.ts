// query.columns on the dataset editor's routes (routes/query.ts,
// datasources/editor-columns.ts): with `columns.<field>=<header>` parameters
// the field list, the distinct values and the rows are those a dataset query
// with the same `columns` reads, through HTTP against the real app.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { csvText, endpoint } from '../datasources/helpers.ts';
import { body, start, type Started } from './fixtures.ts';

// Circuit ends under headers none of the accepted names, and a capacity under a header of its own.
const SITES = [
  ['Site A', 'Site B', 'Cap Gbps', 'Region'],
  ['CHI', 'NYC', '100', 'us'], ['NYC', 'LON', '10', 'atlantic'], ['LON', 'AMS', '400', 'europe'], ['CHI', 'DEN', '100', 'us'],
];
const COLUMNS = { source: 'Site A', destination: 'Site B', capacity: 'cap gbps' };
/** The same mapping as the editor routes take it: `+` is a space, as in any form-encoded query. */
const PARAMS = 'columns.source=Site+A&columns.destination=Site%20B&columns.capacity=cap+gbps';
const BASE = '/api/v1/datasources/spreadsheet/sites/sites';

let t: Started;
let stored: { results: Record<string, unknown>[] };
before(async () => {
  t = await start();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'sites.csv'), csvText(SITES));
  // The dataset whose query the editor routes must agree with: every row, read with COLUMNS.
  const revision = { name: 'Sites', query: { endpoint: endpoint('sites', 'sites'), columns: COLUMNS } };
  const created = await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision }));
  stored = await body(await t.request(`/api/v1/dataset/id/${created.datasetId}/`, { method: 'PUT', token: t.write, json: revision }));
  assert.equal(stored.results.length, 4);
});
after(() => t.close());

const get = (url: string) => t.request(url, { token: t.read });

describe('GET …/filterable_columns/ with columns.<field> parameters', () => {
  it('lists the fields the query reads, named as the query names them', async () => {
    const res = await get(`${BASE}/filterable_columns/?${PARAMS}`);
    assert.equal(res.status, 200);
    const fields = ((await body(res)) as { field: string }[]).map((f) => f.field);
    const rowFields = fields.filter((f) => !f.startsWith('endpoints.'));
    assert.deepEqual(rowFields, ['id', 'name', 'source', 'destination', 'capacity', 'region']);
    // Every row field listed is one the stored records have, and the other way round.
    assert.deepEqual(Object.keys(stored.results[0]).filter((k) => k !== 'endpoints').sort(), [...rowFields].sort());
    assert.ok(fields.includes('endpoints.name'));
  });

  it('without them, the sheet is refused, naming the headers accepted', async () => {
    const res = await get(`${BASE}/filterable_columns/`);
    assert.equal(res.status, 422);
    assert.match((await body(res)).detail, /A-End\/Z-End/);
  });
});

describe('GET …/distinct/{field}/ with columns.<field> parameters', () => {
  const cases: [string, string, string[]][] = [
    ['a mapped circuit end', 'source', ['CHI', 'LON', 'NYC']],
    ['a mapped column', 'capacity', ['10', '100', '400']],
    ['a mapped column under the earlier filters', 'capacity&region=us', ['100']],
    ['both circuit ends', 'endpoints.name&region_not_equal=us', ['AMS', 'LON', 'NYC']],
  ];
  for (const [what, field, expected] of cases) {
    it(`lists the values of ${what} as the stored records hold them`, async () => {
      const [name, filters = ''] = field.split(/&(.*)/);
      const res = await get(`${BASE}/distinct/${name}/?${PARAMS}${filters ? `&${filters}` : ''}`);
      assert.equal(res.status, 200);
      assert.deepEqual(await body(res), expected);
    });
  }
  it('agrees with the stored results', async () => {
    const values = await body(await get(`${BASE}/distinct/destination/?${PARAMS}`));
    assert.deepEqual(values, [...new Set(stored.results.map((r) => r.destination))].sort());
  });
});

describe('GET …/query/ with columns.<field> parameters', () => {
  it('answers the records the dataset query reads', async () => {
    const res = await get(`${BASE}/query/?${PARAMS}&region=us`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-result-count'), '2');
    assert.deepEqual(await body(res), stored.results.filter((r) => r.region === 'us'));
  });
});

describe('malformed columns.<field> parameters', () => {
  const cases: [string, number, RegExp][] = [
    ['columns.source=&columns.destination=Site%20B', 400, /columns\.source: must not be empty/],
    ['columns.source=Site+A&columns.source=Site+B', 400, /columns\.source is given twice/],
    ['columns.source=Site+A&columns.destination=Site+Z', 422, /no column "Site Z" in sheet "sites" of sites\.csv; its headers: site a, site b, cap gbps, region/],
  ];
  for (const [params, status, detail] of cases) {
    it(`answers ${status} for ?${params}`, async () => {
      for (const route of ['filterable_columns/', 'distinct/source/', 'query/']) {
        const res = await get(`${BASE}/${route}?${params}`);
        assert.equal(res.status, status, route);
        assert.match((await body(res)).detail, detail);
      }
    });
  }
});
