// datasources/editor.ts and the registry's editor support: filters read from
// query parameters the way Terranova's editor writes them, distinct values,
// the field list, the paths of a datasource entry, and dataset create's
// endpoint problems.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeLoosely, distinctValues, editorPaths, fieldList, filtersFromQuery } from '../../datasources/editor.ts';
import type { DatasourceRegistry, EdgeRecord } from '../../datasources/types.ts';
import { endpoint, registryFor, rejectsWith, tempDir, writeCsv, writeXlsx } from './helpers.ts';

const COLUMNS = ['id', 'name', 'source', 'destination', 'region', 'service', 'limit', 'endpoints.name', 'endpoints.site'];

/** The query string the editor builds (QueryCriterion.composeFilters), then what a browser's URL parser makes of it. */
function editorQuery(filters: { field: string; operator: string | null; value: string[] }[], start = '?'): string {
  let text = start;
  for (const f of filters) for (const value of f.value) text += `${f.field}${f.operator ? `_${f.operator}` : ''}=${value}&`;
  return new URL(`http://editor.example/x/${text}`).search.slice(1);
}

describe('filtersFromQuery', () => {
  it('reads the editor\'s field[_operator]=value& pairs; values of one field and operator OR together', () => {
    const raw = editorQuery([
      { field: 'region', operator: '', value: ['europe', 'asia'] },
      { field: 'name', operator: 'like', value: ['chic'] },
      { field: 'endpoints.site', operator: 'not_equal', value: ['LOND'] },
      { field: 'service', operator: 'not_like', value: ['test'] },
    ]);
    assert.equal(raw, 'region=europe&region=asia&name_like=chic&endpoints.site_not_equal=LOND&service_not_like=test&');
    assert.deepEqual(filtersFromQuery(raw, COLUMNS), {
      filters: [
        { field: 'region', operator: 'equal', value: ['europe', 'asia'] },
        { field: 'name', operator: 'like', value: ['chic'] },
        { field: 'endpoints.site', operator: 'not_equal', value: ['LOND'] },
        { field: 'service', operator: 'not_like', value: ['test'] },
      ],
      ignored: [],
    });
  });

  it('a space the browser encoded is a space; a + stays a + and also reads as a space', () => {
    const raw = editorQuery([{ field: 'service', operator: '', value: ['optical transport', 'ip+optical'] }]);
    assert.equal(raw, 'service=optical%20transport&service=ip+optical&');
    assert.deepEqual(filtersFromQuery(raw, COLUMNS).filters, [
      { field: 'service', operator: 'equal', value: ['optical transport', 'ip+optical', 'ip optical'] },
    ]);
  });

  it('a lone % stays; UTF-8 escapes decode; names ignore case', () => {
    assert.deepEqual(filtersFromQuery('Region=100%&REGION=%C3%A9t%C3%A9', COLUMNS).filters,
      [{ field: 'region', operator: 'equal', value: ['100%', 'été'] }]);
    assert.equal(decodeLoosely('a%2 %41%zz%C3%A9'), 'a%2 A%zzé');
  });

  it('paging names and names that are no field are not filters; a field named like a paging name takes _equal', () => {
    const parsed = filtersFromQuery('limit=0&offset=2&t=1700000000&colour=red&limit_equal=5&region_like=eu', COLUMNS, ['limit', 'offset']);
    assert.deepEqual(parsed.filters, [
      { field: 'limit', operator: 'equal', value: ['5'] },
      { field: 'region', operator: 'like', value: ['eu'] },
    ]);
    assert.deepEqual(parsed.ignored, ['t', 'colour']);
  });

  it('a column whose own name ends like an operator is that column', () => {
    assert.deepEqual(filtersFromQuery('is_like=yes&is_like_not_equal=no', ['is_like']).filters, [
      { field: 'is_like', operator: 'equal', value: ['yes'] },
      { field: 'is_like', operator: 'not_equal', value: ['no'] },
    ]);
  });

  it('an empty value is the empty string (matches empty cells); nothing gives no filters', () => {
    assert.deepEqual(filtersFromQuery('region=', COLUMNS).filters, [{ field: 'region', operator: 'equal', value: [''] }]);
    assert.deepEqual(filtersFromQuery('', COLUMNS), { filters: [], ignored: [] });
  });
});

describe('distinctValues', () => {
  const rec = (id: string, extra: Record<string, unknown>, a: Record<string, unknown>, b: Record<string, unknown>): EdgeRecord =>
    ({ id, name: id, source: String(a.name), destination: String(b.name), ...extra, endpoints: [{ name: String(a.name), ...a }, { name: String(b.name), ...b }] });
  const records = [
    rec('1', { region: 'europe', tag: ['lit', 'protected'], capacity: '100' }, { name: 'a', site: 'AMS' }, { name: 'b', site: 'lon' }),
    rec('2', { region: 'Asia', tag: [], capacity: '10' }, { name: 'c', site: 'TYO' }, { name: 'a', site: 'AMS' }),
    rec('3', { region: '', tag: ['leased'], capacity: '2' }, { name: 'd' }, { name: 'e', site: '' }),
  ];
  it('sorts naturally, without empty values or repeats; lists count each item; endpoints.<field> reads both ends', () => {
    assert.deepEqual(distinctValues(records, 'region'), ['Asia', 'europe']);
    assert.deepEqual(distinctValues(records, 'capacity'), ['2', '10', '100']);
    assert.deepEqual(distinctValues(records, 'tag'), ['leased', 'lit', 'protected']);
    assert.deepEqual(distinctValues(records, 'endpoints.site'), ['AMS', 'lon', 'TYO']);
    assert.deepEqual(distinctValues(records, 'endpoints.name'), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(distinctValues(records, 'constructor'), []);
  });
});

describe('editorPaths and fieldList', () => {
  it('paths are relative to /api/v1, one encoded segment per parameter', () => {
    assert.deepEqual(editorPaths('spreadsheet', ['rne backbone', 'Circuits/2?#']), {
      query_endpoint: '/datasources/spreadsheet/rne%20backbone/Circuits%2F2%3F%23/query',
      filterable_columns_endpoint: '/datasources/spreadsheet/rne%20backbone/Circuits%2F2%3F%23/filterable_columns',
      distinct_values_endpoint: '/datasources/spreadsheet/rne%20backbone/Circuits%2F2%3F%23/distinct',
    });
    assert.equal(editorPaths('spreadsheet', ['book', '']), undefined);
    assert.equal(editorPaths('spreadsheet', ['book', '..']), undefined);
  });

  it('the field list is Terranova\'s {label, field, placeholder}', () => {
    assert.deepEqual(fieldList(['capacity_gbps', 'endpoints.site', 'endpoints.latitude']), [
      { label: 'Capacity Gbps', field: 'capacity_gbps', placeholder: 'Filter by Capacity Gbps…' },
      { label: 'Endpoint Site', field: 'endpoints.site', placeholder: 'Filter by Endpoint Site…' },
      { label: 'Endpoint Latitude', field: 'endpoints.latitude', placeholder: 'Filter by Endpoint Latitude…' },
    ]);
  });
});

describe('registry: endpointProblems (dataset create) and columns', () => {
  let registry: DatasourceRegistry;
  let cleanup: () => Promise<void>;
  before(async () => {
    const t = await tempDir();
    cleanup = t.cleanup;
    await writeCsv(t.dir, 'inline.csv', [['source', 'destination', 'Region'], ['a', 'b', 'eu']]);
    await writeXlsx(t.dir, 'book.xlsx', [
      { name: 'Circuits', rows: [['source', 'destination'], ['a', 'b']] },
      { name: 'Sites', rows: [['name', 'lat', 'lon', 'site'], ['a', 1, 2, 'A']] },
    ]);
    registry = registryFor(t.dir);
  });
  after(() => cleanup());

  it('is empty for a sheet that can run', async () => {
    assert.deepEqual(await registry.endpointProblems(endpoint('inline', 'inline')), []);
    assert.deepEqual(await registry.endpointProblems(endpoint('book', 'Circuits')), []);
  });

  it('names an unknown kind that is a name (Terranova\'s placeholder esdb) instead of refusing it', async () => {
    const [message, ...rest] = await registry.endpointProblems('esdb');
    assert.deepEqual(rest, []);
    assert.match(message, /^unknown datasource kind "esdb"; expected spreadsheet/);
    assert.throws(() => registry.checkEndpoint('esdb'), /unknown datasource kind "esdb"/);
  });

  it('names a sheet that is not there, or a tab the workbook lacks', async () => {
    assert.match((await registry.endpointProblems(endpoint('nope', 'nope')))[0], /spreadsheet "nope" does not exist/);
    assert.match((await registry.endpointProblems(endpoint('book', 'Sheet9')))[0], /book\.xlsx has no edge sheet "Sheet9"/);
  });

  it('is 422 for what can never name a datasource', async () => {
    for (const bad of ['ftp://elsewhere', '', '?sheet_id=a&sheet_name=b', 'spreadsheet?sheet_id=../x&sheet_name=b', 'spreadsheet?sheet_id=a']) {
      const err = await rejectsWith(registry.endpointProblems(bad), 'validation_failed');
      assert.equal(err.errors?.[0].path, 'query.endpoint', bad);
    }
  });

  it('columns are the filterable fields; path kinds name the spreadsheet parameters', async () => {
    assert.deepEqual(await registry.columns(endpoint('book', 'Circuits')),
      ['id', 'name', 'source', 'destination', 'endpoints.name', 'endpoints.latitude', 'endpoints.longitude', 'endpoints.site']);
    assert.deepEqual(await registry.columns(endpoint('inline', 'inline')), ['id', 'name', 'source', 'destination', 'region', 'endpoints.name']);
    await rejectsWith(registry.columns(endpoint('nope', 'nope')), 'datasource_unavailable');
    assert.deepEqual(registry.pathKinds(), [{ kind: 'spreadsheet', params: ['sheet_id', 'sheet_name'] }]);
  });
});
