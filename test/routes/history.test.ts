// History (docs/api.md: History): the versions newest first with a summary of each
// change, what changed between two versions by meaning, deletion as a
// tombstone version (404 everywhere else, 409 while a map uses it), restore
// and revert as new versions. Through HTTP against the real app.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DatasourceRegistry, EdgeRecord } from '../../datasources/types.ts';
import { body, createMap, sampleMap, sampleTemplate, start, type Started } from './fixtures.ts';

/** A datasource whose next run answers `next`, so each dataset version's results are chosen by the test. */
const source = { next: [] as EdgeRecord[] };
const registry: DatasourceRegistry = {
  list: async () => ({}),
  checkEndpoint: () => {},
  endpointProblems: async () => [],
  pathKinds: () => [],
  columns: async () => [],
  run: async () => ({ records: source.next, problems: [] }),
  close: async () => {},
};
const edge = (name: string, a: [string, number, number], b: [string, number, number], extra: Record<string, unknown> = {}): EdgeRecord => ({
  id: name, name, source: a[0], destination: b[0], ...extra,
  endpoints: [{ name: a[0], latitude: a[1], longitude: a[2] }, { name: b[0], latitude: b[1], longitude: b[2] }],
});
const QUERY = { endpoint: 'spreadsheet?sheet_id=s&sheet_name=s', filters: [{ field: 'source', value: ['x'] }] };

let t: Started;
before(async () => {
  t = await start({ datasources: registry });
});
after(() => t.close(true));

const get = (path: string, token = t.read) => t.request(path, { token });
const send = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
  t.request(path, { method, token: t.all, json, headers });

async function createDataset(name: string, ...runs: EdgeRecord[][]) {
  const d = await body(await send('POST', '/api/v1/dataset/', { name, query: { ...QUERY, filters: [] } }));
  for (const records of runs) {
    source.next = records;
    const res = await send('PUT', `/api/v1/dataset/id/${d.datasetId}/`, { name, query: QUERY });
    assert.equal(res.status, 200);
  }
  return d.datasetId as string;
}

describe('GET /api/v1/{kind}/id/{id}/history/', () => {
  it('lists every version newest first, with who, when, public and a summary of the change', async () => {
    const map = await createMap(t, 'History');
    await send('PUT', `/api/v1/map/id/${map.mapId}/`, sampleMap('History 2'));
    await send('POST', `/api/v1/map/id/${map.mapId}/publish/`);
    await send('POST', `/api/v1/map/id/${map.mapId}/unpublish/`);
    const res = await get(`/api/v1/map/id/${map.mapId}/history/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-total-count'), '4');
    const items = await body(res);
    assert.deepEqual(items.map((i: any) => [i.version, i.summary, i.public]), [
      [4, 'unpublished', false], [3, 'published', true], [2, 'name changed', false], [1, 'created', false],
    ]);
    for (const item of items) {
      assert.equal(item.lastUpdatedBy, 'admin');
      assert.match(item.lastUpdatedOn, /^2026-11-22T10:\d\d:\d\d\.000Z$/);
    }
  });

  it('pages with limit and offset; the total stays every version', async () => {
    const map = await createMap(t, 'Paged');
    for (let i = 2; i <= 5; i++) await send('PUT', `/api/v1/map/id/${map.mapId}/`, sampleMap(`Paged ${i}`));
    const res = await get(`/api/v1/map/id/${map.mapId}/history/?limit=2&offset=1`);
    assert.equal(res.headers.get('x-total-count'), '5');
    assert.deepEqual((await body(res)).map((i: any) => i.version), [4, 3]);
  });

  const refused: Array<[string, string, number]> = [
    ['an unknown ID', '/api/v1/map/id/Zz9Zz9Z/history/', 404],
    ['a malformed ID', '/api/v1/template/id/..%2F..%2Fx/history/', 404],
    ['a bad limit', '/api/v1/map/id/Zz9Zz9Z/history/?limit=-1', 400],
  ];
  for (const [label, path, status] of refused) {
    it(`answers ${status} for ${label}`, async () => {
      const res = await get(path);
      assert.equal(res.status, status);
      assert.equal(typeof (await body(res)).detail, 'string');
    });
  }

  it('needs the read scope', async () => {
    const map = await createMap(t, 'Scoped');
    assert.equal((await t.request(`/api/v1/map/id/${map.mapId}/history/`)).status, 401);
  });
});

describe('DELETE /api/v1/{kind}/id/{id}/', () => {
  it('writes a tombstone version and answers 200 with it; the map is then 404 everywhere but history', async () => {
    const map = await createMap(t, 'Doomed');
    await send('POST', `/api/v1/map/id/${map.mapId}/publish/`);
    const res = await send('DELETE', `/api/v1/map/id/${map.mapId}/`);
    assert.equal(res.status, 200);
    const tombstone = await body(res);
    assert.deepEqual(Object.keys(tombstone).sort(), ['deleted', 'lastUpdatedBy', 'lastUpdatedOn', 'mapId', 'version']);
    assert.deepEqual([tombstone.mapId, tombstone.version, tombstone.deleted], [map.mapId, 3, true]);

    const gone = [
      `/api/v1/map/id/${map.mapId}/`, `/api/v1/map/id/${map.mapId}/?version=2`, `/api/v1/output/map/${map.mapId}/`,
      `/api/v1/public/output/map/${map.mapId}/`, `/api/v1/public/output/map/${map.mapId}/svg/`,
    ];
    for (const path of gone) assert.equal((await get(path, t.all)).status, 404, path);
    for (const [method, path] of [['PUT', ''], ['POST', 'publish/'], ['DELETE', '']] as const) {
      const r = await send(method, `/api/v1/map/id/${map.mapId}/${path}`, method === 'PUT' ? sampleMap('again') : undefined);
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.match((await body(r)).detail, /was deleted/);
    }
    for (const list of ['/api/v1/maps/', '/api/v1/maps/?version=all', '/api/v1/maps/?version=1', '/api/v1/public/maps/?version=all']) {
      const ids = (await body(await get(list))).map((m: any) => m.mapId);
      assert.ok(!ids.includes(map.mapId), list);
    }
    const history = await body(await get(`/api/v1/map/id/${map.mapId}/history/`));
    assert.deepEqual(history[0], { version: 3, lastUpdatedBy: 'admin', lastUpdatedOn: tombstone.lastUpdatedOn, deleted: true, summary: 'deleted' });
  });

  it('is 412 with a stale If-Match and deletes nothing', async () => {
    const map = await createMap(t, 'Guarded');
    await send('PUT', `/api/v1/map/id/${map.mapId}/`, sampleMap('Guarded 2'));
    const res = await send('DELETE', `/api/v1/map/id/${map.mapId}/`, undefined, { 'If-Match': `"${map.mapId}-v1"` });
    assert.equal(res.status, 412);
    assert.equal((await get(`/api/v1/map/id/${map.mapId}/`)).status, 200);
  });

  it('needs the write scope', async () => {
    const map = await createMap(t, 'Kept');
    const res = await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'DELETE', token: t.read });
    assert.equal(res.status, 403);
  });

  it('is 409 naming the maps for a dataset or template still in use, and goes ahead once they are deleted', async () => {
    const datasetId = await createDataset('Used', [edge('c1', ['A', 1, 2], ['B', 3, 4])]);
    const template = await body(await send('POST', '/api/v1/template/', sampleTemplate('Used badge')));
    const layer = { name: 'l', color: '#000000', datasetId, templateId: template.templateId, layout: 'geographic' };
    const byId = await createMap(t, 'Uses by ID', { configuration: { ...sampleMap().configuration, layers: [layer] } });
    const byUrl = await createMap(t, 'Uses by URL', {
      configuration: { ...sampleMap().configuration, layers: [{ name: 'u', mapjsonUrl: `/api/v1/output/dataset/${datasetId}/geographic/snapshot/json/?template=${template.templateId}` }] },
    });
    for (const [kind, id] of [['dataset', datasetId], ['template', template.templateId]]) {
      const res = await send('DELETE', `/api/v1/${kind}/id/${id}/`);
      assert.equal(res.status, 409, kind);
      const detail = (await body(res)).detail;
      assert.match(detail, new RegExp(`${byId.mapId}.*${byUrl.mapId}|${byUrl.mapId}.*${byId.mapId}`));
    }
    await send('DELETE', `/api/v1/map/id/${byId.mapId}/`);
    await send('DELETE', `/api/v1/map/id/${byUrl.mapId}/`);
    assert.equal((await send('DELETE', `/api/v1/dataset/id/${datasetId}/`)).status, 200);
    assert.equal((await send('DELETE', `/api/v1/template/id/${template.templateId}/`)).status, 200);
    assert.equal((await get(`/api/v1/output/dataset/${datasetId}/geographic/snapshot/json/`)).status, 404);
    assert.ok(!(await body(await get('/api/v1/datasets/'))).some((d: any) => d.datasetId === datasetId));
  });
});

describe('POST /api/v1/{kind}/id/{id}/restore/', () => {
  it('brings a deleted map back as a new version with its last content, unpublished', async () => {
    const map = await createMap(t, 'Phoenix');
    await send('PUT', `/api/v1/map/id/${map.mapId}/`, sampleMap('Phoenix 2'));
    await send('POST', `/api/v1/map/id/${map.mapId}/publish/`);
    await send('DELETE', `/api/v1/map/id/${map.mapId}/`);
    const res = await send('POST', `/api/v1/map/id/${map.mapId}/restore/`);
    assert.equal(res.status, 200);
    const restored = await body(res);
    assert.deepEqual([restored.version, restored.name, restored.public], [5, 'Phoenix 2', false]);
    assert.equal(res.headers.get('etag'), `"${map.mapId}-v5"`);
    assert.deepEqual(await body(await get(`/api/v1/map/id/${map.mapId}/`)), restored);
    assert.equal((await body(await get(`/api/v1/map/id/${map.mapId}/history/`)))[0].summary, 'restored (the content of version 3)');
  });

  it('is 409 for a resource that is not deleted, 404 for an unknown one', async () => {
    const map = await createMap(t, 'Alive');
    assert.equal((await send('POST', `/api/v1/map/id/${map.mapId}/restore/`)).status, 409);
    assert.equal((await send('POST', '/api/v1/map/id/Zz9Zz9Z/restore/')).status, 404);
  });

  it('restores a dataset with its results', async () => {
    const datasetId = await createDataset('Back', [edge('c1', ['A', 1, 2], ['B', 3, 4])]);
    await send('DELETE', `/api/v1/dataset/id/${datasetId}/`);
    const restored = await body(await send('POST', `/api/v1/dataset/id/${datasetId}/restore/`));
    assert.equal(restored.version, 4);
    assert.deepEqual(restored.results.map((r: any) => r.name), ['c1']);
  });
});

describe('POST /api/v1/{kind}/id/{id}/revert/?version=N', () => {
  it('writes a new version with version N\'s content; a map keeps its current public flag', async () => {
    const map = await createMap(t, 'Original');
    await send('PUT', `/api/v1/map/id/${map.mapId}/`, sampleMap('Edited', { overrides: { d: { nodes: [] } } }));
    await send('POST', `/api/v1/map/id/${map.mapId}/publish/`);
    const res = await send('POST', `/api/v1/map/id/${map.mapId}/revert/?version=1`);
    assert.equal(res.status, 200);
    const reverted = await body(res);
    assert.deepEqual([reverted.version, reverted.name, reverted.public], [4, 'Original', true]);
    assert.deepEqual(reverted.configuration, map.configuration);
    assert.deepEqual(reverted.overrides, map.overrides);
    assert.equal((await body(await get(`/api/v1/map/id/${map.mapId}/history/`)))[0].summary, 'reverted to version 1');
  });

  const refused: Array<[string, string, number]> = [
    ['a version that does not exist', '?version=9', 404],
    ['no version', '', 400],
    ['a malformed version', '?version=latest', 400],
  ];
  for (const [label, query, status] of refused) {
    it(`is ${status} for ${label}, and writes nothing`, async () => {
      const map = await createMap(t, 'Steady');
      const res = await send('POST', `/api/v1/map/id/${map.mapId}/revert/${query}`);
      assert.equal(res.status, status);
      assert.equal((await body(await get(`/api/v1/map/id/${map.mapId}/`))).version, 1);
    });
  }

  it('is 404 for a deleted resource (restore it first)', async () => {
    const map = await createMap(t, 'Deleted');
    await send('DELETE', `/api/v1/map/id/${map.mapId}/`);
    assert.equal((await send('POST', `/api/v1/map/id/${map.mapId}/revert/?version=1`)).status, 404);
  });
});

describe('GET /api/v1/{kind}/id/{id}/diff/', () => {
  it('maps: configuration and layer changes by path, and overrides', async () => {
    const map = await createMap(t, 'Diffed');
    const configuration = sampleMap().configuration;
    const layers = [{ ...configuration.layers[0], color: '#ff0000' }, { name: 'extra', color: '#00ff00', datasetId: 'AbCdEf2' }];
    await send('PUT', `/api/v1/map/id/${map.mapId}/`, sampleMap('Diffed', {
      configuration: { ...configuration, layers }, overrides: { AbCdEf1: { nodes: [{ name: 'A', operation: 'delete' }] } },
    }));
    const res = await get(`/api/v1/map/id/${map.mapId}/diff/`);
    assert.equal(res.status, 200);
    const diff = await body(res);
    assert.deepEqual([diff.mapId, diff.from, diff.to], [map.mapId, 1, 2]);
    assert.deepEqual(diff.changes, [
      { path: 'configuration.layers.0.color', op: 'replace', from: '#1f77b4', to: '#ff0000' },
      { path: 'configuration.layers.1', op: 'add', to: layers[1] },
    ]);
    const stored = (await body(await get(`/api/v1/map/id/${map.mapId}/`))).overrides.AbCdEf1; // as the schema normalized it
    assert.equal(stored.nodes[0].operation, 'delete');
    assert.deepEqual(diff.overrides, [{ path: 'overrides.AbCdEf1', op: 'add', to: stored }]);
    const back = await body(await get(`/api/v1/map/id/${map.mapId}/diff/?from=2&to=1`));
    assert.deepEqual(back.changes[1], { path: 'configuration.layers.1', op: 'remove', from: layers[1] });
  });

  it('datasets: nodes and edges added, removed and changed, with each field\'s old and new value', async () => {
    const datasetId = await createDataset('Net',
      [edge('c1', ['A', 1, 2], ['B', 3, 4], { capacity: 100 }), edge('c2', ['B', 3, 4], ['C', 5, 6])],
      [edge('c1', ['A', 1, 2], ['B', 3, 4], { capacity: 400 }), edge('c3', ['C', 5, 7], ['D', 8, 9])]);
    const diff = await body(await get(`/api/v1/dataset/id/${datasetId}/diff/?from=2&to=3`));
    assert.deepEqual(diff.edges.added.map((e: any) => e.name), ['c3']);
    assert.deepEqual(diff.edges.removed.map((e: any) => e.name), ['c2']);
    assert.deepEqual(diff.edges.changed, [{ name: 'c1', fields: [{ field: 'capacity', from: 100, to: 400 }] }]);
    assert.deepEqual(diff.nodes.added.map((n: any) => n.name), ['D']);
    assert.deepEqual(diff.nodes.removed, []);
    assert.deepEqual(diff.nodes.changed, [{ name: 'C', fields: [{ field: 'longitude', from: 6, to: 7 }] }]);
    assert.deepEqual(diff.changes, []);
    const history = await body(await get(`/api/v1/dataset/id/${datasetId}/history/`));
    assert.equal(history[0].summary, '1 node added, 1 node changed, 1 edge added, 1 edge removed, 1 edge changed');
  });

  it('templates: the markup\'s changed lines', async () => {
    const created = await body(await send('POST', '/api/v1/template/', { name: 'Lines', template: '<g>\n<circle r="3"/>\n</g>' }));
    await send('PUT', `/api/v1/template/id/${created.templateId}/`, { name: 'Lines', template: '<g>\n<circle r="5"/>\n<text>x</text>\n</g>' });
    const diff = await body(await get(`/api/v1/template/id/${created.templateId}/diff/`));
    assert.deepEqual(diff.lines, [
      { op: 'remove', line: 2, text: '<circle r="3"/>' },
      { op: 'add', line: 2, text: '<circle r="5"/>' },
      { op: 'add', line: 3, text: '<text>x</text>' },
    ]);
  });

  it('is 404 for a version that does not exist and 400 for a malformed one', async () => {
    const map = await createMap(t, 'Short');
    assert.equal((await get(`/api/v1/map/id/${map.mapId}/diff/?from=1&to=7`)).status, 404);
    assert.equal((await get(`/api/v1/map/id/${map.mapId}/diff/?from=x`)).status, 400);
  });
});

describe('GET /api/v1/output/dataset/{id}/diff/{layout}/svg/', () => {
  it('draws the change: added green, removed dashed red, changed amber, with a legend', async () => {
    const datasetId = await createDataset('Pictured',
      [edge('c1', ['A', 1, 2], ['B', 3, 4], { capacity: 100 }), edge('c2', ['B', 3, 4], ['C', 5, 6])],
      [edge('c1', ['A', 1, 2], ['B', 3, 4], { capacity: 400 }), edge('c3', ['C', 5, 6], ['D', 8, 9])]);
    for (const layout of ['geographic', 'logical']) {
      const res = await get(`/api/v1/output/dataset/${datasetId}/diff/${layout}/svg/`);
      assert.equal(res.status, 200, layout);
      assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      assert.ok(res.headers.get('content-security-policy'));
      const svg = await res.text();
      assert.match(svg, /viewBox=/);
      for (const status of ['added', 'removed', 'changed']) assert.match(svg, new RegExp(`data-diff="${status}"`), `${layout} ${status}`);
    }
    assert.equal((await get(`/api/v1/output/dataset/${datasetId}/diff/sideways/svg/`)).status, 404);
  });
});
