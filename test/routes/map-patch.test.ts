// PATCH /api/v1/map/id/{mapId}/ as a JSON merge patch (RFC 7396) with
// If-Match, and the warning of a PUT that leaves out the configuration the
// map had (a PUT replaces the whole map: `{"name": …}` alone drops its layers).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

type Json = any;

let t: TestApp;
let token: string;
before(async () => {
  t = await makeTestApp();
  token = await t.token();
});
after(() => t.close());

const inline = (name: string) => ({ name, nodes: [{ name, coordinate: [50, 10], meta: {} }], edges: [] });
async function newMap(): Promise<Json> {
  const json = {
    name: 'Backbone',
    configuration: { background: '#102030', showLegend: true, layers: [{ name: 'A', color: '#ff0000', mapjson: inline('a') }, { name: 'B', mapjson: inline('b') }] },
    overrides: { Abc1234: { nodes: {}, edges: {} } },
  };
  const res = await t.request('/api/v1/map/', { method: 'POST', token, json });
  assert.equal(res.status, 201);
  return res.json();
}
const patch = (id: string, json: unknown, headers: Record<string, string> = {}) =>
  t.request(`/api/v1/map/id/${id}/`, { method: 'PATCH', token, json, headers: { 'content-type': 'application/merge-patch+json', ...headers } });

describe('PATCH /api/v1/map/id/{mapId}/', () => {
  it('merges: members replace, null removes, objects merge, arrays replace whole; a new version', async () => {
    const map = await newMap();
    const res = await patch(map.mapId, { name: 'Renamed', configuration: { background: null, showLegend: false }, overrides: { Abc1234: null } });
    assert.equal(res.status, 200, await res.clone().text());
    const next = await res.json() as Json;
    assert.equal(next.version, 2);
    assert.equal(next.name, 'Renamed');
    assert.equal(next.configuration.background, undefined);
    assert.equal(next.configuration.showLegend, false);
    assert.deepEqual(next.configuration.layers, map.configuration.layers, 'layers kept');
    assert.deepEqual(next.overrides, {});
    assert.equal(res.headers.get('etag'), `"${map.mapId}-v2"`);
    const layers = await (await patch(map.mapId, { configuration: { layers: [{ name: 'only', mapjson: inline('c') }] } })).json() as Json;
    assert.deepEqual(layers.configuration.layers.map((l: Json) => l.name), ['only']);
  });

  it('honours If-Match: 412 and nothing written when the map moved on', async () => {
    const map = await newMap();
    assert.equal((await patch(map.mapId, { name: 'One' }, { 'If-Match': `"${map.mapId}-v1"` })).status, 200);
    const stale = await patch(map.mapId, { name: 'Two' }, { 'If-Match': `"${map.mapId}-v1"` });
    assert.equal(stale.status, 412);
    assert.deepEqual(await t.store.versions('maps', map.mapId), [1, 2]);
  });

  it('is 422 when the patched map is not a valid map, 404 for an unknown one, 403 without write', async () => {
    const map = await newMap();
    const bad = await patch(map.mapId, { configuration: { layers: 'all of them' } });
    assert.equal(bad.status, 422);
    assert.match((await bad.json() as Json).detail, /invalid the patched map: configuration\.layers/);
    assert.equal((await patch(map.mapId, [1, 2])).status, 422);
    assert.equal((await patch('Zz9Zz9Z', { name: 'x' })).status, 404);
    const read = await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PATCH', token: await t.token('svc:maps:read'), json: { name: 'x' } });
    assert.equal(read.status, 403);
    assert.deepEqual(await t.store.versions('maps', map.mapId), [1]);
  });
});

describe('PUT /api/v1/map/id/{mapId}/ without the configuration', () => {
  it('stores what was sent and warns that the configuration and its layers are gone', async () => {
    const map = await newMap();
    const res = await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token, json: { name: 'Just a name' } });
    assert.equal(res.status, 200);
    const body = await res.json() as Json;
    assert.deepEqual(body.configuration, { layers: [] });
    assert.deepEqual(body.warnings, ['configuration was not sent: version 1\'s configuration and its 2 layers are not in the new version; ' +
      'send the whole map as GET returns it, or PATCH only the fields that change']);
    const whole = await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token, json: { ...map, name: 'Whole' } });
    assert.equal((await whole.json() as Json).warnings, undefined);
  });
});
