// The routes Terranova's dataset editor calls (routes/query.ts), through HTTP
// against the real app over sheets in <data dir>/sheets, each request in the
// shape the editor sends it: the datasource entries' display_name,
// query_endpoint, filterable_columns_endpoint and distinct_values_endpoint
// (paths relative to /api/v1, which the editor prefixes with its API_URL),
// filters as the editor writes them into query strings, the hit count in
// X-Result-Count, and the PATCH previews of an unsaved DatasetRevision.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { csvText, endpoint, xlsxBuffer } from '../datasources/helpers.ts';
import { layoutsComputed } from '../../render/layout-client.ts';
import { body, start, type Started } from './fixtures.ts';

const API_URL = '/api/v1';
const CIRCUITS = [
  ['id', 'name', 'source', 'destination', 'region', 'service', 'capacity', 'tag', 'tag'],
  ['c1', 'CHIC-NEWY', 'chic-cr5', 'newy-cr5', 'americas', 'ip', 400, 'lit', 'protected'],
  ['c2', 'NEWY-LOND', 'newy-cr5', 'lond-cr5', 'transatlantic', 'ip+optical', 100, 'leased', null],
  ['c3', 'LOND-AMST', 'lond-cr5', 'amst-cr5', 'europe', 'optical transport', 100, 'lit', null],
  ['c4', 'AMST-FRAN', 'amst-cr5', 'fran-cr5', 'europe', 'ip', 400, null, null],
  ['c5', 'FRAN-LOND', 'fran-cr5', 'lond-cr5', 'europe', 'ip', 10, 'lit', null],
];
// Positions in a tab named Sites, under Lat/Lon headers.
const SITES = [
  ['Name', 'Lat', 'Lon', 'site'],
  ['chic-cr5', 41.8781, -87.6298, 'CHIC'], ['newy-cr5', 40.7128, -74.006, 'NEWY'], ['lond-cr5', 51.5072, -0.1276, 'LOND'],
  ['amst-cr5', 52.3676, 4.9041, 'AMST'], ['fran-cr5', 50.1109, 8.6821, 'FRAN'],
];
const RNE = endpoint('rne', 'Circuits');
const NOPOS = endpoint('nopos', 'nopos');

/** What QueryCriterion.composeFilters appends to a URL: `field[_operator]=value&` per value, nothing encoded. */
function composeFilters(filters: { field: string; operator: string | null; value: string[] }[], start: string): string {
  let text = start;
  for (const f of filters) for (const value of f.value) text += `${f.field}${f.operator ? `_${f.operator}` : ''}=${value}&`;
  return text;
}

let t: Started;
let entries: Record<string, any>;
before(async () => {
  t = await start({ settings: { server: { cors: { origins: ['https://editor.example'] } } } });
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'rne.xlsx'), await xlsxBuffer([{ name: 'Circuits', rows: CIRCUITS }, { name: 'Sites', rows: SITES }]));
  await writeFile(path.join(sheets, 'nopos.csv'), csvText([['source', 'destination'], ['a', 'b'], ['b', 'c']]));
  entries = await body(await t.request(`${API_URL}/datasources/`));
});
after(async () => { await t.close(); });

/** GET as the editor does: API_URL + a path from the entry, with its credentials. */
const get = (url: string, token: string | null = t.read) => t.request(`${API_URL}${url}`, { token: token ?? undefined });

describe('datasource entries for the editor', () => {
  it('each entry has display_name and the three paths, relative to /api/v1', () => {
    const entry = entries[RNE];
    assert.equal(entry.display_name, 'rne / Circuits');
    assert.equal(entry.query_endpoint, '/datasources/spreadsheet/rne/Circuits/query');
    assert.equal(entry.filterable_columns_endpoint, '/datasources/spreadsheet/rne/Circuits/filterable_columns');
    assert.equal(entry.distinct_values_endpoint, '/datasources/spreadsheet/rne/Circuits/distinct');
    assert.equal(entries[NOPOS].display_name, 'nopos');
    for (const e of Object.values(entries)) {
      for (const key of ['display_name', 'query_endpoint', 'filterable_columns_endpoint', 'distinct_values_endpoint']) {
        assert.equal(typeof e[key], 'string', `${key} of ${e.name}`);
      }
    }
  });

  it('filterable_columns: the field list [{label, field, placeholder}] of the sheet', async () => {
    const res = await get(entries[RNE].filterable_columns_endpoint);
    assert.equal(res.status, 200);
    const fields = await body(res);
    assert.deepEqual(fields.map((f: any) => f.field), entries[RNE].columns);
    assert.deepEqual(fields.find((f: any) => f.field === 'region'), { label: 'Region', field: 'region', placeholder: 'Filter by Region…' });
    assert.deepEqual(fields.find((f: any) => f.field === 'endpoints.site')?.label, 'Endpoint Site');
    for (const f of fields) assert.deepEqual(Object.keys(f), ['label', 'field', 'placeholder']);
  });

  it('every route needs the read scope (the listing stays public)', async () => {
    for (const url of [entries[RNE].filterable_columns_endpoint, `${entries[RNE].distinct_values_endpoint}/region/`, `${entries[RNE].query_endpoint}/?limit=0&`]) {
      const anonymous = await get(url, null);
      assert.equal(anonymous.status, 401, url);
      assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal((await get(url, t.write)).status, 403, url);
      assert.equal((await get(url, t.read)).status, 200, url);
    }
    assert.equal((await t.request(`${API_URL}/datasources/`)).status, 200);
  });
});

describe('distinct values: {distinct_values_endpoint}/{column}/ with the earlier filters', () => {
  const distinct = async (column: string, prev: Parameters<typeof composeFilters>[0] = []) => {
    const res = await get(`${entries[RNE].distinct_values_endpoint}/${column}/${composeFilters(prev, '?')}`);
    assert.equal(res.status, 200, `${column}: ${res.status}`);
    return body(res);
  };

  it('lists a column\'s values, sorted, without empty ones', async () => {
    assert.deepEqual(await distinct('region'), ['americas', 'europe', 'transatlantic']);
    assert.deepEqual(await distinct('capacity'), ['10', '100', '400']);
    assert.deepEqual(await distinct('tag'), ['leased', 'lit', 'protected']);
  });

  it('applies the filters before it', async () => {
    assert.deepEqual(await distinct('region', [{ field: 'capacity', operator: '', value: ['400'] }]), ['americas', 'europe']);
    assert.deepEqual(await distinct('endpoints.site', [{ field: 'region', operator: 'not_equal', value: ['europe'] }]), ['CHIC', 'LOND', 'NEWY']);
    assert.deepEqual(await distinct('service', [{ field: 'name', operator: 'like', value: ['lond'] }, { field: 'region', operator: '', value: ['europe', 'transatlantic'] }]),
      ['ip', 'ip+optical', 'optical transport']);
  });

  it('a field the sheet lacks is 404 naming the fields', async () => {
    const res = await get(`${entries[RNE].distinct_values_endpoint}/colour/`);
    assert.equal(res.status, 404);
    assert.match((await body(res)).detail, /no field "colour".*region/);
  });
});

describe('hit count: {query_endpoint}/?limit=0&… in X-Result-Count', () => {
  const count = async (filters: Parameters<typeof composeFilters>[0]) => {
    const res = await get(`${entries[RNE].query_endpoint}/${composeFilters(filters, '?limit=0&')}`);
    assert.equal(res.status, 200);
    assert.deepEqual(await body(res), []);
    return res.headers.get('x-result-count');
  };

  it('counts the rows the filters select, the current criterion included', async () => {
    assert.equal(await count([]), '5');
    assert.equal(await count([{ field: 'region', operator: '', value: ['europe', 'transatlantic'] }]), '4');
    assert.equal(await count([{ field: 'region', operator: '', value: ['europe'] }, { field: 'capacity', operator: 'not_equal', value: ['10'] }]), '2');
    assert.equal(await count([{ field: 'name', operator: 'like', value: ['LOND'] }]), '3');
    assert.equal(await count([{ field: 'service', operator: 'not_like', value: ['optical'] }]), '3');
    assert.equal(await count([{ field: 'endpoints.site', operator: '', value: ['AMST'] }]), '2');
  });

  it('values as the editor sends them: a space (encoded by the browser) and a + (sent as is)', async () => {
    assert.equal(await count([{ field: 'service', operator: '', value: ['optical transport'] }]), '1');
    assert.equal(await count([{ field: 'service', operator: '', value: ['ip+optical'] }]), '1');
  });

  it('the editor\'s page may read the count: X-Result-Count is exposed to its origin (server.cors.origins), and to no other', async () => {
    const res = await t.request(`${API_URL}${entries[RNE].query_endpoint}/?limit=0&`, { token: t.read, headers: { Origin: 'https://editor.example' } });
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://editor.example');
    assert.match(res.headers.get('access-control-expose-headers') ?? '', /X-Result-Count/i);
    const other = await t.request(`${API_URL}${entries[RNE].query_endpoint}/?limit=0&`, { token: t.read, headers: { Origin: 'https://evil.example' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null, 'the editor routes are not public');
  });

  it('without limit=0 the records come too; limit and offset page them; unknown parameters are ignored', async () => {
    const all = await body(await get(`${entries[RNE].query_endpoint}/?region=europe&t=1700000000`));
    assert.deepEqual(all.map((r: any) => r.id), ['c3', 'c4', 'c5']);
    assert.deepEqual(all[0].endpoints[0], { name: 'lond-cr5', latitude: 51.5072, longitude: -0.1276, site: 'LOND' });
    const res = await get(`${entries[RNE].query_endpoint}/?limit=2&offset=1`);
    assert.deepEqual((await body(res)).map((r: any) => r.id), ['c2', 'c3']);
    assert.equal(res.headers.get('x-result-count'), '5');
    assert.equal(res.headers.get('x-total-count'), '5');
    assert.equal((await get(`${entries[RNE].query_endpoint}/?limit=-1`)).status, 400);
  });

  it('a sheet that is not there is 503; a path that can name no sheet is 422', async () => {
    const gone = await get('/datasources/spreadsheet/nope/nope/query/?limit=0&');
    assert.equal(gone.status, 503);
    assert.match((await body(gone)).detail, /does not exist/);
    assert.equal((await get('/datasources/spreadsheet/.hidden/x/query/?limit=0&')).status, 422);
  });
});

describe('PATCH /api/v1/output/query/{raw|logical|geographic}/: previews of an unsaved dataset', () => {
  // The editor's prepRequest: {name, query} of the dataset being edited (filters without the deleted ones).
  const revision = (ep = RNE, filters: unknown[] = [{ field: 'region', operator: '', value: ['europe'] }]) => ({
    name: 'Europe', query: { endpoint: ep, filters, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null },
  });
  const preview = (layout: string, json: unknown, token = t.editor) =>
    t.request(`${API_URL}/output/query/${layout}/`, { method: 'PATCH', token, json });

  it('raw: the records the query selects', async () => {
    const res = await preview('raw', revision());
    assert.equal(res.status, 200);
    const records = await body(res);
    assert.deepEqual(records.map((r: any) => r.id), ['c3', 'c4', 'c5']);
    assert.deepEqual(records[0].tag, ['lit']);
  });

  it('logical: topology laid out as a graph', async () => {
    const topology = await body(await preview('logical', revision()));
    assert.equal(topology.name, 'Europe');
    assert.equal(topology.pathLayout.type, 'curveLinear');
    assert.deepEqual(topology.nodes.map((n: any) => n.name).sort(), ['amst-cr5', 'fran-cr5', 'lond-cr5']);
    assert.deepEqual(topology.edges.map((e: any) => e.name).sort(), ['AMST-FRAN', 'FRAN-LOND', 'LOND-AMST']);
  });

  it('logical: a repeated preview of unchanged data costs no layout; changed data does', async () => {
    // Filters no other test uses: the first preview of this graph computes its layout.
    const json = revision(RNE, [{ field: 'region', operator: '', value: ['europe', 'transatlantic'] }]);
    const first = await (await preview('logical', json)).text();
    const before = layoutsComputed();
    for (let i = 0; i < 3; i++) assert.equal(await (await preview('logical', json)).text(), first, 'the same answer');
    assert.equal(layoutsComputed(), before, 'no layout for the same graph');
    const changed = await body(await preview('logical', revision(RNE, [{ field: 'region', operator: '', value: ['americas', 'transatlantic'] }])));
    assert.deepEqual(changed.nodes.map((n: any) => n.name).sort(), ['chic-cr5', 'lond-cr5', 'newy-cr5']);
    // Three routers with coordinates are not a hierarchy: a stress drawing (no ELK layout to count), laid out anew.
    const at = changed.nodes.map((n: any) => JSON.stringify(n.coordinate));
    assert.equal(new Set(at).size, 3, 'a new graph is laid out: three places');
  });

  it('geographic: the positions of the Sites tab (Lat/Lon headers)', async () => {
    const topology = await body(await preview('geographic', revision()));
    const at = Object.fromEntries(topology.nodes.map((n: any) => [n.name, n.coordinate]));
    assert.deepEqual(at, { 'lond-cr5': [51.5072, -0.1276], 'amst-cr5': [52.3676, 4.9041], 'fran-cr5': [50.1109, 8.6821] });
  });

  it('geographic with no positioned node is 422 naming the fix; logical of the same works', async () => {
    const res = await preview('geographic', revision(NOPOS, []));
    assert.equal(res.status, 422);
    const { detail } = await body(res);
    assert.match(detail, /none of its 3 nodes have coordinates/);
    assert.match(detail, /Nodes \(or Sites, or Locations\) tab/);
    assert.match(detail, /source_latitude/);
    assert.equal((await preview('logical', revision(NOPOS, []))).status, 200);
  });

  it('the body is a DatasetRevision: 422 naming the bad field', async () => {
    const res = await preview('raw', { name: 'x', query: { endpoint: RNE, filters: [{ field: 'region', operator: 'similar', value: ['x'] }] } });
    assert.equal(res.status, 422);
    assert.deepEqual((await body(res)).errors.map((e: any) => e.path), ['query.filters.0.operator']);
    assert.equal((await preview('raw', { query: { endpoint: RNE, filters: [] } })).status, 422);
  });

  it('as a dataset update: 422 for an unknown kind or column, 503 for a sheet that is not there', async () => {
    for (const layout of ['raw', 'logical', 'geographic']) {
      const kind = await preview(layout, revision('esdb', []));
      assert.equal(kind.status, 422);
      assert.match((await body(kind)).detail, /unknown datasource kind "esdb"/);
      assert.equal((await preview(layout, revision(RNE, [{ field: 'colour', operator: '', value: ['red'] }]))).status, 422);
      assert.equal((await preview(layout, revision(endpoint('nope', 'nope'), []))).status, 503);
    }
  });

  it('needs the write scope, as in Terranova; an unknown layout or template is 404', async () => {
    assert.equal((await preview('raw', revision(), t.read)).status, 403);
    assert.equal((await t.request(`${API_URL}/output/query/raw/`, { method: 'PATCH', json: revision() })).status, 401);
    assert.equal((await preview('table', revision())).status, 404);
    assert.equal((await t.request(`${API_URL}/output/query/logical/?template=Zz9Zz9Z`, { method: 'PATCH', token: t.editor, json: revision() })).status, 404);
  });
});
