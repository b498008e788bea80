// Create and update bodies (docs/api.md: Create and update bodies): the whole object a GET returned
// may be sent back, its read-only fields ignored, for every resource alike;
// any other unknown top-level key is 422 naming it (and where it belongs);
// unknown keys inside a map's configuration and layers are kept as sent and
// listed in the answer's `warnings`.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, sampleMap, sampleTemplate, start, type Started } from './fixtures.ts';

let t: Started;
before(async () => {
  t = await start();
  await mkdir(path.join(t.dir, 'sheets'), { recursive: true });
  await writeFile(path.join(t.dir, 'sheets', 'links.csv'), 'source,destination,capacity\nA,B,100\nB,C,400\n');
});
after(() => t.close(true));

const send = (method: string, url: string, json: unknown) => t.request(url, { method, token: t.all, json });
const QUERY = { endpoint: 'spreadsheet?sheet_id=links&sheet_name=links', filters: [] };

describe('the whole object as GET returned it', () => {
  const kinds = [
    { kind: 'map', id: 'mapId', create: () => sampleMap('Whole'), change: (o: any) => ({ ...o, name: 'Whole 2' }) },
    { kind: 'template', id: 'templateId', create: () => sampleTemplate('Whole'), change: (o: any) => ({ ...o, name: 'Whole 2' }) },
    { kind: 'dataset', id: 'datasetId', create: () => ({ name: 'Whole', query: QUERY }), change: (o: any) => ({ ...o, name: 'Whole 2' }) },
  ];
  for (const { kind, id, create, change } of kinds) {
    it(`${kind}: is accepted on update, its ID, version, stamps and read-only fields ignored`, async () => {
      const created = await body(await send('POST', `/api/v1/${kind}/`, create()));
      const got = await body(await t.request(`/api/v1/${kind}/id/${created[id]}/`, { token: t.read }));
      const res = await send('PUT', `/api/v1/${kind}/id/${created[id]}/`, { ...change(got), version: 99, lastUpdatedBy: 'someone else' });
      assert.equal(res.status, 200, await res.clone().text());
      const updated = await body(res);
      assert.deepEqual([updated[id], updated.version, updated.name, updated.lastUpdatedBy], [created[id], 2, 'Whole 2', 'admin']);
      const again = await send('POST', `/api/v1/${kind}/`, { ...got, name: 'Copy' });
      assert.equal(again.status, 201, 'a create from a whole object makes a new resource');
      assert.notEqual((await body(again))[id], created[id]);
    });
  }
});

describe('unknown top-level keys', () => {
  const cases: Array<[string, string, unknown, RegExp]> = [
    ['a map\'s layers at the top level', '/api/v1/map/', { ...sampleMap('Typo'), layers: [] }, /unknown field "layers"; it belongs in configuration \(configuration\.layers\)/],
    ['a typo on a map', '/api/v1/map/', { ...sampleMap('Typo'), confguration: {} }, /unknown field "confguration"/],
    ['a dataset\'s filters at the top level', '/api/v1/dataset/', { name: 'Typo', query: QUERY, filters: [] }, /unknown field "filters"; it belongs in query \(query\.filters\)/],
    ['a template\'s markup under another name', '/api/v1/template/', { ...sampleTemplate('Typo'), svg: '<g/>' }, /unknown field "svg"; the markup goes in template/],
  ];
  for (const [label, url, json, detail] of cases) {
    it(`${label} is 422 naming it, and nothing is stored`, async () => {
      const res = await send('POST', url, json);
      assert.equal(res.status, 422);
      const problem = await body(res);
      assert.match(problem.detail, detail);
      assert.ok(problem.errors.length >= 1);
    });
  }
});

describe('unknown keys inside a map\'s configuration and layers', () => {
  it('are kept as sent and listed in the answer\'s warnings, not in the stored map', async () => {
    const map = sampleMap('Custom');
    const json = { ...map, configuration: { ...map.configuration, myDashboard: { id: 7 }, layers: [{ ...map.configuration.layers[0], myColumn: 'x' }] } };
    const res = await send('POST', '/api/v1/map/', json);
    assert.equal(res.status, 201);
    const created = await body(res);
    assert.deepEqual(created.warnings, [
      'configuration.myDashboard is not a field the service knows; it is kept as sent',
      'configuration.layers.0.myColumn is not a field the service knows; it is kept as sent',
    ]);
    const stored = await body(await t.request(`/api/v1/map/id/${created.mapId}/`, { token: t.read }));
    assert.deepEqual(stored.configuration.myDashboard, { id: 7 });
    assert.equal(stored.configuration.layers[0].myColumn, 'x');
    assert.equal(stored.warnings, undefined);
    const plain = await body(await send('PUT', `/api/v1/map/id/${created.mapId}/`, sampleMap('Plain')));
    assert.equal(plain.warnings, undefined, 'no warnings, no key');
  });
});
