// POST /api/v1/dataset/id/{id}/refresh/: runs the stored query again and
// stores a new version only when the results changed; otherwise it answers
// the latest version unchanged and says so.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

type Dataset = { datasetId: string; version: number; results: unknown[] | null; warnings?: string[] };

let t: TestApp;
let token: string;
let sheet: string;
before(async () => {
  t = await makeTestApp();
  token = await t.token();
  const dir = t.settings.datasources.spreadsheet.dir;
  await mkdir(dir, { recursive: true });
  sheet = path.join(dir, 'links.csv');
  await writeFile(sheet, 'source,destination,region\nCHI,NYC,us\nNYC,LON,atlantic\n');
});
after(() => t.close());

const revision = { name: 'Links', query: { endpoint: 'spreadsheet?sheet_id=links&sheet_name=links', filters: [{ field: 'region', operator: 'not_equal', value: ['none'] }] } };
const refresh = (id: string, headers: Record<string, string> = {}, as = token) =>
  t.request(`/api/v1/dataset/id/${id}/refresh/`, { method: 'POST', token: as, headers });

describe('POST /api/v1/dataset/id/{datasetId}/refresh/', () => {
  it('stores a version only when the results changed, and says when they did not', async () => {
    const created = (await (await t.request('/api/v1/dataset/', { method: 'POST', token, json: revision })).json()) as Dataset;
    // Version 1 (created) has no results: a refresh stores the first ones.
    const first = await refresh(created.datasetId);
    assert.equal(first.status, 200);
    const v2 = (await first.json()) as Dataset;
    assert.deepEqual([v2.version, v2.results?.length, v2.warnings], [2, 2, undefined]);
    assert.equal(first.headers.get('etag'), `"${created.datasetId}-v2"`);

    const same = (await (await refresh(created.datasetId)).json()) as Dataset;
    assert.equal(same.version, 2);
    assert.deepEqual(same.warnings, ['the results are unchanged: version 2 is kept and no version was added']);
    assert.deepEqual(await t.store.versions('datasets', created.datasetId), [1, 2]);

    await writeFile(sheet, 'source,destination,region\nCHI,NYC,us\nNYC,LON,atlantic\nLON,AMS,europe\n');
    const v3 = (await (await refresh(created.datasetId)).json()) as Dataset & { query: unknown };
    assert.deepEqual([v3.version, v3.results?.length, v3.warnings], [3, 3, undefined]);
    assert.deepEqual(v3.query, { ...revision.query, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null });
    const history = (await (await t.request(`/api/v1/dataset/id/${created.datasetId}/history/`, { token })).json()) as { version: number; summary: string }[];
    assert.equal(history.find((h) => h.version === 3)?.summary, 'results refreshed');
  });

  it('honours If-Match, needs the write scope, and is 404 for an unknown dataset', async () => {
    const created = (await (await t.request('/api/v1/dataset/', { method: 'POST', token, json: revision })).json()) as Dataset;
    assert.equal((await refresh(created.datasetId, { 'If-Match': `"${created.datasetId}-v9"` })).status, 412);
    assert.equal((await refresh(created.datasetId, {}, await t.token('svc:maps:read'))).status, 403);
    assert.equal((await refresh('Zz9Zz9Z')).status, 404);
    assert.deepEqual(await t.store.versions('datasets', created.datasetId), [1]);
  });
});

describe('POST /api/v1/dataset/id/{datasetId}/refresh/ with filters that match nothing', () => {
  it('stores nothing and answers the latest version with the values seen in the filtered columns', async () => {
    const file = path.join(t.settings.datasources.spreadsheet.dir, 'regions.csv');
    await writeFile(file, 'source,destination,region\nCHI,NYC,us\nNYC,LON,atlantic\n');
    const filtered = { name: 'US', query: { endpoint: 'spreadsheet?sheet_id=regions&sheet_name=regions', filters: [{ field: 'region', operator: 'equal', value: ['us'] }] } };
    const created = (await (await t.request('/api/v1/dataset/', { method: 'POST', token, json: filtered })).json()) as Dataset;
    const v2 = (await (await refresh(created.datasetId)).json()) as Dataset;
    assert.deepEqual([v2.version, v2.results?.length], [2, 1]);

    // The sheet's region values change case: the stored filter now matches no row.
    await writeFile(file, 'source,destination,region\nCHI,NYC,US\nNYC,LON,Atlantic\n');
    const res = await refresh(created.datasetId);
    assert.equal(res.status, 200);
    const answer = (await res.json()) as Dataset;
    assert.deepEqual([answer.version, answer.results?.length], [2, 1], 'the latest version, its results kept');
    assert.deepEqual(answer.warnings, ["the filters match none of the sheet's 2 rows, so no version was stored (values compare exactly, " +
      'case included, except with like); values in the filtered columns: region: "Atlantic", "US"']);
    assert.deepEqual(await t.store.versions('datasets', created.datasetId), [1, 2]);

    // The same as an update of that query answers.
    const updated = (await (await t.request(`/api/v1/dataset/id/${created.datasetId}/`, { method: 'PUT', token, json: filtered })).json()) as Dataset;
    assert.deepEqual([updated.version, updated.warnings], [2, answer.warnings]);
  });
});
