// Dataset routes with a scripted datasource registry, so that every
// outcome of a live run (records, unusable rows, 503, 422) is under the
// test's control. datasets-spreadsheet.test.ts runs the real registry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DatasourceRegistry, EdgeRecord, QueryResult } from '../../datasources/types.ts';
import { ServiceError } from '../../errors.ts';
import { body, start, type Started } from './fixtures.ts';

const ENDPOINT = 'spreadsheet?sheet_id=circuits&sheet_name=circuits';
const record = (id: string): EdgeRecord => ({
  id, name: id, source: 'A', destination: 'B',
  endpoints: [{ name: 'A', latitude: 1, longitude: 2 }, { name: 'B', latitude: 3, longitude: 4 }],
});

/** A registry whose next run answers with whatever the test put in `next`. */
function scripted() {
  const calls: string[] = [];
  const state: { next: QueryResult | Error } = { next: { records: [], problems: [] } };
  const registry: DatasourceRegistry = {
    list: async () => ({}),
    checkEndpoint(endpoint) {
      calls.push(`check ${endpoint}`);
      if (!endpoint.startsWith('spreadsheet?')) throw new ServiceError('validation_failed', `unknown datasource kind in ${endpoint}`);
    },
    // As the real registry: a kind that is a name but unknown can be saved (reported), anything else malformed is 422.
    async endpointProblems(endpoint) {
      calls.push(`problems ${endpoint}`);
      if (endpoint.startsWith('spreadsheet?')) return [];
      if (/^[a-z]+$/.test(endpoint)) return [`unknown datasource kind "${endpoint}"`];
      throw new ServiceError('validation_failed', `unknown datasource kind in ${endpoint}`);
    },
    pathKinds: () => [],
    columns: async () => [],
    async run(query) {
      calls.push(`run ${query.endpoint}`);
      if (state.next instanceof Error) throw state.next;
      return state.next;
    },
    close: async () => {},
  };
  return { registry, calls, state };
}

const revision = (name: string, filters: unknown[] = []) => ({
  name,
  query: { endpoint: ENDPOINT, filters, node_deduplication_field: 'name', node_group_criteria: null, node_group_layout: null },
});
const filter = { field: 'source', operator: 'equal', value: ['A'] };

let t: Started;
let ds: ReturnType<typeof scripted>;
before(async () => {
  ds = scripted();
  t = await start({ datasources: ds.registry });
});
after(async () => { await t.close(); });

const create = (json: unknown) => t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json });
const update = (id: string, json: unknown, headers: Record<string, string> = {}) =>
  t.request(`/api/v1/dataset/id/${id}/`, { method: 'PUT', token: t.write, json, headers });
const get = async (id: string, query = '') => body(await t.request(`/api/v1/dataset/id/${id}/${query}`, { token: t.read }));

describe('POST /api/v1/dataset/', () => {
  it('checks the endpoint, saves the query without running it; results null; 201 + Location', async () => {
    ds.calls.length = 0;
    const res = await create(revision('Circuits', [filter]));
    assert.equal(res.status, 201);
    const d = await body(res);
    assert.deepEqual(ds.calls, [`problems ${ENDPOINT}`]);
    assert.match(d.datasetId, /^[A-Za-z0-9]{7}$/);
    assert.deepEqual(Object.keys(d).sort(),
      ['datasetId', 'lastUpdatedBy', 'lastUpdatedOn', 'name', 'problems', 'query', 'results', 'version']);
    assert.equal(d.version, 1);
    assert.equal(d.results, null);
    assert.deepEqual(d.problems, []);
    assert.deepEqual(d.query.filters, [filter]);
    assert.equal(res.headers.get('location'), `${t.settings.server.baseUrl}/api/v1/dataset/id/${d.datasetId}/`);
    assert.deepEqual(await get(d.datasetId), d);
  });

  it('normalizes the query (operator null is equal, "" is kept for Terranova\'s editor, a single value becomes a list)', async () => {
    const d = await body(await create(revision('N', [{ field: 'name', operator: '', value: 'x' }, { field: 'name', operator: null, value: 'y' }])));
    assert.deepEqual(d.query.filters, [{ field: 'name', operator: '', value: ['x'] }, { field: 'name', operator: 'equal', value: ['y'] }]);
  });

  it('saves an endpoint that cannot run yet (Terranova\'s placeholder "esdb") and reports it in problems; update is 422', async () => {
    const res = await create({ name: 'Placeholder', query: { endpoint: 'esdb', filters: [] } });
    assert.equal(res.status, 201);
    const d = await body(res);
    assert.equal(d.results, null);
    assert.deepEqual(d.problems, [{ path: 'query.endpoint', message: 'unknown datasource kind "esdb"' }]);
    assert.deepEqual(await get(d.datasetId), d);
    // The next version runs its query: the problem is gone with it.
    ds.state.next = { records: [record('p1')], problems: [] };
    assert.equal((await update(d.datasetId, { name: 'Placeholder', query: { endpoint: 'esdb', filters: [] } })).status, 422);
    const v2 = await body(await update(d.datasetId, revision('Placeholder')));
    assert.deepEqual([v2.version, v2.problems, v2.results.length], [2, [], 1]);
  });

  it('is 422 for an endpoint the registry refuses, or a bad query', async () => {
    const bad = await create({ name: 'x', query: { ...revision('x').query, endpoint: 'ftp://elsewhere' } });
    assert.equal(bad.status, 422);
    assert.match((await body(bad)).detail, /unknown datasource kind/);
    const res = await create({ name: 'x', query: { ...revision('x').query, node_group_layout: 'spiral', extra: 1 } });
    assert.equal(res.status, 422);
    const paths = (await body(res)).errors.map((e: any) => e.path).sort();
    assert.deepEqual(paths, ['query.extra', 'query.node_group_layout']);
    assert.equal((await t.request('/api/v1/dataset/', { method: 'POST', token: t.read, json: revision('x') })).status, 403);
  });

  // Each grouping field is one more level of groups in groups: a handful at most, each once.
  for (const [criteria, status, message] of [
    [['region', 'metro', 'site'], 201, null],
    ['site', 201, null],
    [Array.from({ length: 9 }, (_, i) => `f${i}`), 422, /at most 8 grouping fields/],
    [['site', 'region', 'site'], 422, /each grouping field once/],
  ] as const) {
    it(`node_group_criteria ${JSON.stringify(criteria)} is ${status}`, async () => {
      const res = await create({ name: 'g', query: { ...revision('g').query, node_group_criteria: criteria } });
      assert.equal(res.status, status);
      const answer = await body(res);
      if (message) assert.match(answer.errors.find((e: any) => e.path === 'query.node_group_criteria').message, message);
      else assert.deepEqual(answer.query.node_group_criteria, typeof criteria === 'string' ? [criteria] : criteria);
    });
  }
});

describe('PUT /api/v1/dataset/id/{datasetId}/', () => {
  it('with filters: runs the query live and stores its records and unusable rows with the new version', async () => {
    const d = await body(await create(revision('Live')));
    ds.state.next = { records: [record('c1'), record('c2')], problems: [{ sheet: 'circuits', row: 4, message: 'source is empty' }] };
    ds.calls.length = 0;
    const res = await update(d.datasetId, revision('Live', [filter]));
    assert.equal(res.status, 200);
    assert.deepEqual(ds.calls, [`check ${ENDPOINT}`, `run ${ENDPOINT}`]);
    const v2 = await body(res);
    assert.equal(v2.version, 2);
    assert.deepEqual(v2.results, [record('c1'), record('c2')]);
    assert.deepEqual(v2.problems, [{ sheet: 'circuits', row: 4, message: 'source is empty' }]);
    assert.deepEqual(await get(d.datasetId), v2);
    assert.equal((await get(d.datasetId, '?version=1')).results, null);
    // results are a blob of their own, named by their content and referenced from the version
    const key = t.store.head<any>('datasets', d.datasetId)?.resultsKey;
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.deepEqual((await t.store.fetch<any>(key))?.records, v2.results);
  });

  it('a refresh whose results equal the previous version\'s stores no new results', async () => {
    const d = await body(await create(revision('Same')));
    ds.state.next = { records: [record('s1')], problems: [] };
    await update(d.datasetId, revision('Same', [filter]));
    const blobs = t.store.blobKeys().length;
    ds.state.next = { records: [record('s1')], problems: [] };
    const v3 = await body(await update(d.datasetId, revision('Same', [filter])));
    assert.equal(v3.version, 3);
    assert.deepEqual(v3.results, [record('s1')]);
    assert.equal(t.store.blobKeys().length, blobs, 'no new blob');
    assert.equal(t.store.head<any>('datasets', d.datasetId)?.resultsKey, (await t.store.read<any>('datasets', d.datasetId, 2))?.resultsKey);
  });

  it('without filters: the query selects every row, and the new version stores them (as Terranova does)', async () => {
    const d = await body(await create(revision('NoFilters')));
    ds.calls.length = 0;
    ds.state.next = { records: [record('n1'), record('n2')], problems: [] };
    const blobs = t.store.blobKeys().length;
    const v2 = await body(await update(d.datasetId, revision('NoFilters')));
    assert.deepEqual(ds.calls, [`check ${ENDPOINT}`, `run ${ENDPOINT}`]);
    assert.equal(v2.version, 2);
    assert.deepEqual(v2.results, [record('n1'), record('n2')]);
    const key = t.store.head<any>('datasets', d.datasetId)?.resultsKey;
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.equal(t.store.blobKeys().length, blobs + 1);
    assert.deepEqual((await t.store.fetch<any>(key))?.records, v2.results);
  });

  for (const [label, filters] of [['with a filter', [filter]], ['without filters', []]] as const) {
    it(`a datasource that cannot be read is 503 and stores nothing (${label})`, async () => {
      const d = await body(await create(revision('Down')));
      ds.state.next = new ServiceError('datasource_unavailable', 'cannot read circuits.csv');
      const blobs = t.store.blobKeys().length;
      const res = await update(d.datasetId, revision('Down', [...filters]));
      assert.equal(res.status, 503);
      assert.match((await body(res)).detail, /cannot read/);
      assert.equal((await get(d.datasetId)).version, 1);
      assert.equal(t.store.head<any>('datasets', d.datasetId)?.resultsKey, null);
      assert.equal(t.store.blobKeys().length, blobs);
    });
  }

  it('a filter the datasource rejects is 422 and stores nothing', async () => {
    const d = await body(await create(revision('BadFilter')));
    ds.state.next = new ServiceError('validation_failed', 'no column named colour');
    assert.equal((await update(d.datasetId, revision('BadFilter', [{ field: 'colour', value: ['red'] }]))).status, 422);
    assert.equal((await get(d.datasetId)).version, 1);
  });

  it('If-Match stale is 412 before the datasource is read', async () => {
    const d = await body(await create(revision('Match')));
    ds.state.next = { records: [record('x')], problems: [] };
    assert.equal((await update(d.datasetId, revision('Match', [filter]), { 'If-Match': `"${d.datasetId}-v1"` })).status, 200);
    ds.calls.length = 0;
    assert.equal((await update(d.datasetId, revision('Match', [filter]), { 'If-Match': `"${d.datasetId}-v1"` })).status, 412);
    assert.deepEqual(ds.calls, []);
    assert.equal((await get(d.datasetId)).version, 2);
  });

  it('is 404 for an unknown dataset, 403 without write', async () => {
    assert.equal((await update('Zz9Zz9Z', revision('x'))).status, 404);
    const d = await body(await create(revision('Scope')));
    assert.equal((await t.request(`/api/v1/dataset/id/${d.datasetId}/`, { method: 'PUT', token: t.read, json: revision('x') })).status, 403);
  });
});

describe('GET /api/v1/datasets/', () => {
  it('lists datasets with their filters; results and problems are fields too', async () => {
    const d = await body(await create(revision('Listed')));
    ds.state.next = { records: [record('r1')], problems: [] };
    await update(d.datasetId, revision('Listed', [filter]));
    const res = await t.request(`/api/v1/datasets/?datasetId=${d.datasetId}&version=all&fields=version,results,problems`, { token: t.read });
    assert.equal(res.status, 200);
    assert.deepEqual(await body(res), [
      { version: 1, results: null, problems: [] },
      { version: 2, results: [record('r1')], problems: [] },
    ]);
    const names = await body(await t.request('/api/v1/datasets/?name=Listed&name=Live', { token: t.read }));
    assert.deepEqual(names.map((x: any) => x.name).sort(), ['Listed', 'Live']);
    assert.deepEqual(Object.keys(names[0]), ['datasetId', 'name', 'version', 'lastUpdatedBy', 'lastUpdatedOn']);
    assert.equal((await t.request('/api/v1/datasets/?fields=resultsKey', { token: t.read })).status, 400);
    assert.equal((await t.request('/api/v1/datasets/?public=true', { token: t.read })).status, 200, 'not a dataset filter: ignored');
  });
});
