// Everything written is served identically after a restart: the same data
// folder opened by a new store and a new app gives byte-identical bodies and
// ETags for every version, list and public list.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { DatasourceRegistry } from '../../datasources/types.ts';
import { body, createMap, sampleMap, sampleTemplate, start, type Started } from './fixtures.ts';

const registry: DatasourceRegistry = {
  list: async () => ({}),
  checkEndpoint: () => {},
  endpointProblems: async () => [],
  pathKinds: () => [],
  columns: async () => [],
  run: async (query) => ({
    records: [{ id: 'c1', name: 'c1', source: 'A', destination: 'B', capacity: 100, endpoints: [{ name: 'A', latitude: 1, longitude: 2 }, { name: 'B' }] }],
    problems: [{ sheet: query.endpoint, row: 3, message: 'destination is empty' }],
  }),
  close: async () => {},
};

async function snapshot(t: Started, paths: string[]) {
  const out: Record<string, { status: number; etag: string | null; total: string | null; text: string }> = {};
  for (const path of paths) {
    const res = await t.request(path, { token: t.all });
    out[path] = { status: res.status, etag: res.headers.get('etag'), total: res.headers.get('x-total-count'), text: await res.text() };
  }
  return out;
}

describe('restart', () => {
  it('serves every version, list and public list identically from the same data folder', async () => {
    const first = await start({ datasources: registry });
    const paths = [
      '/api/v1/maps/', '/api/v1/maps/?version=all&fields=mapId,version,public,configuration,overrides,lastUpdatedOn',
      '/api/v1/public/maps/?version=all', '/api/v1/datasets/?version=all&fields=datasetId,version,query,results,problems',
      '/api/v1/templates/?version=all&fields=templateId,name,template,version,lastUpdatedBy',
    ];
    let before: Awaited<ReturnType<typeof snapshot>>;
    let templates: number;
    try {
      const a = await createMap(first, 'A');
      const b = await createMap(first, 'B');
      await first.request(`/api/v1/map/id/${a.mapId}/publish/`, { method: 'POST', token: first.publish });
      await first.request(`/api/v1/map/id/${a.mapId}/`, { method: 'PUT', token: first.write, json: sampleMap('A2') });
      await first.request(`/api/v1/map/id/${b.mapId}/`, { method: 'PUT', token: first.write, json: sampleMap('B ünïcode ✓') });
      const query = { endpoint: 'spreadsheet?sheet_id=s&sheet_name=s', filters: [] as unknown[] };
      const d = await body(await first.request('/api/v1/dataset/', { method: 'POST', token: first.write, json: { name: 'D', query } }));
      await first.request(`/api/v1/dataset/id/${d.datasetId}/`, {
        method: 'PUT', token: first.write, json: { name: 'D', query: { ...query, filters: [{ field: 'source', value: ['A'] }] } },
      });
      const tpl = await body(await first.request('/api/v1/template/', { method: 'POST', token: first.write, json: sampleTemplate() }));
      paths.push(
        ...[1, 2, 3].map((n) => `/api/v1/map/id/${a.mapId}/?version=${n}`), `/api/v1/map/id/${a.mapId}/`,
        ...[1, 2].map((n) => `/api/v1/map/id/${b.mapId}/?version=${n}`),
        ...[1, 2].map((n) => `/api/v1/dataset/id/${d.datasetId}/?version=${n}`),
        `/api/v1/template/id/${tpl.templateId}/`,
      );
      before = await snapshot(first, paths);
      templates = first.store.heads('templates').length;
    } finally {
      await first.close(false);
    }
    const second = await start({ dir: first.dir, datasources: registry });
    try {
      const after = await snapshot(second, paths);
      assert.deepEqual(after, before);
      // and the restarted answers are the ones written (not empty or defaulted)
      assert.ok(Object.values(after).every((r) => r.status === 200));
      const d = JSON.parse(after[paths.find((p) => p.includes('/dataset/id/') && p.endsWith('version=2'))!].text);
      assert.equal(d.results[0].capacity, 100);
      assert.equal(d.problems[0].row, 3);
      assert.equal(JSON.parse(after[paths.find((p) => p.endsWith('?version=2') && p.includes('/map/id/'))!].text).public, true);
      // default templates are created once, not again at each start
      assert.equal(second.store.heads('templates').length, templates);
      assert.equal(second.store.heads('templates').length, 3);
    } finally {
      await second.close(true);
    }
  });
});

describe('a data file changed under the running service (a checkout while it runs)', () => {
  it('a version file put there by a checkout: PUT is 409 changed_on_disk and keeps it; GET serves what the service had; a restart serves the file', async () => {
    const first = await start();
    const dir = first.dir;
    try {
      const map = await createMap(first, 'Ours');
      const v1 = JSON.parse(await readFile(path.join(first.dir, 'maps', map.mapId, 'v1.json'), 'utf8'));
      const theirs = path.join(first.dir, 'maps', map.mapId, 'v2.json');
      await writeFile(theirs, JSON.stringify({ ...v1, version: 2, name: 'Theirs' }, null, 2));
      const put = await first.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: first.write, json: sampleMap('Ours 2') });
      assert.equal(put.status, 409);
      const problem = await body(put);
      assert.equal(problem.code, 'changed_on_disk');
      assert.match(problem.detail, new RegExp(`version 2 of maps/${map.mapId} is already on disk .*restart the service`));
      assert.equal(JSON.parse(await readFile(theirs, 'utf8')).name, 'Theirs');
      assert.equal((await body(await first.request(`/api/v1/map/id/${map.mapId}/`, { token: first.read }))).name, 'Ours');
    } finally {
      await first.close(false);
    }
    const second = await start({ dir });
    try {
      const map = second.store.heads('maps')[0][0];
      assert.equal((await body(await second.request(`/api/v1/map/id/${map}/`, { token: second.read }))).name, 'Theirs');
      const put = await second.request(`/api/v1/map/id/${map}/`, { method: 'PUT', token: second.write, json: sampleMap('Theirs 2') });
      assert.equal(put.status, 200);
      assert.equal((await body(put)).version, 3);
    } finally {
      await second.close(true);
    }
  });
});
