import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, createMap, sampleMap, start, type Started } from './fixtures.ts';

let t: Started;
before(async () => { t = await start(); });
after(async () => { await t.close(); });

describe('POST /api/v1/map/', () => {
  it('creates version 1, not public, stamped with the editor and the clock; 201 + Location + ETag', async () => {
    const res = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: sampleMap('Core') });
    assert.equal(res.status, 201);
    const map = await body(res);
    assert.match(map.mapId, /^[A-Za-z0-9]{7}$/);
    assert.equal(map.name, 'Core');
    assert.equal(map.version, 1);
    assert.equal(map.public, false);
    assert.equal(map.lastUpdatedBy, 'admin');
    assert.match(map.lastUpdatedOn, /^2026-11-22T10:\d\d:\d\d\.000Z$/);
    assert.deepEqual(map.configuration.viewport, { center: { lat: 39.5, lng: -98.35 }, zoom: 4 });
    assert.equal(res.headers.get('location'), `${t.settings.server.baseUrl}/api/v1/map/id/${map.mapId}/`);
    assert.equal(res.headers.get('etag'), `"${map.mapId}-v1"`);
    const again = await t.request(new URL(res.headers.get('location')!).pathname, { token: t.read });
    assert.deepEqual(await body(again), map);
  });

  it('gives each map its own ID', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => createMap(t, `m${i}`).then((m) => m.mapId)));
    assert.equal(new Set(ids).size, 20);
  });

  it('drops mapId, version and public sent in the body (the service assigns them)', async () => {
    const res = await t.request('/api/v1/map', { method: 'POST', token: t.write, json: sampleMap('X', { mapId: 'zzzzzzz', version: 9, public: true }) });
    const map = await body(res);
    assert.notEqual(map.mapId, 'zzzzzzz');
    assert.equal(map.version, 1);
    assert.equal(map.public, false);
  });

  it('needs the write scope', async () => {
    assert.equal((await t.request('/api/v1/map/', { method: 'POST', json: sampleMap() })).status, 401);
    assert.equal((await t.request('/api/v1/map/', { method: 'POST', token: t.read, json: sampleMap() })).status, 403);
  });

  it('is 422 naming each bad field', async () => {
    const res = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: { name: '', configuration: { zIndexBase: 1.5 } } });
    assert.equal(res.status, 422);
    const err = await body(res);
    assert.deepEqual(err.errors.map((e: any) => e.path).sort(), ['configuration.zIndexBase', 'name']);
  });
});

describe('GET /api/v1/map/id/{mapId}/', () => {
  it('returns the latest version, or the one asked for with ?version=', async () => {
    const map = await createMap(t, 'Versions');
    await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.write, json: sampleMap('Versions v2') });
    const latest = await body(await t.request(`/api/v1/map/id/${map.mapId}/`, { token: t.read }));
    assert.equal(latest.version, 2);
    assert.equal(latest.name, 'Versions v2');
    const first = await t.request(`/api/v1/map/id/${map.mapId}?version=1`, { token: t.read });
    assert.equal(first.headers.get('etag'), `"${map.mapId}-v1"`);
    assert.deepEqual(await body(first), map);
    assert.equal((await body(await t.request(`/api/v1/map/id/${map.mapId}/?version=latest`, { token: t.read }))).version, 2);
  });

  // RFC 9110 13.1.2: a listed tag matches weakly; `*` matches any current representation.
  for (const [label, header, status] of [
    ['the current ETag', (id: string) => `"${id}-v1"`, 304],
    ['a weak current ETag in a list', (id: string) => `"other", W/"${id}-v1"`, 304],
    ['*', () => '*', 304],
    ['another ETag', (id: string) => `"${id}-v2"`, 200],
  ] as const) {
    it(`answers ${status} to If-None-Match with ${label}`, async () => {
      const map = await createMap(t);
      const res = await t.request(`/api/v1/map/id/${map.mapId}/`, { token: t.read, headers: { 'If-None-Match': header(map.mapId) } });
      assert.equal(res.status, status);
      if (status === 304) assert.equal(await res.text(), '');
      else assert.equal((await body(res)).mapId, map.mapId);
    });
  }

  for (const [query, status] of [['version=3', 404], ['version=0', 400], ['version=all', 400], ['version=x', 400], ['version=1&version=1', 400]] as const) {
    it(`?${query} is ${status}`, async () => {
      const map = await createMap(t);
      const res = await t.request(`/api/v1/map/id/${map.mapId}/?${query}`, { token: t.read });
      assert.equal(res.status, status);
      assert.equal(typeof (await body(res)).detail, 'string');
    });
  }

  it('ignores query parameters it does not know (?fields=, a cache-buster)', async () => {
    const map = await createMap(t);
    for (const query of ['fields=name', 't=1732521600']) {
      const res = await t.request(`/api/v1/map/id/${map.mapId}/?${query}`, { token: t.read });
      assert.equal(res.status, 200, query);
      assert.deepEqual(await body(res), map);
    }
  });

  it('is 404 for an unknown ID and needs the read scope', async () => {
    assert.equal((await t.request('/api/v1/map/id/Zz9Zz9Z/', { token: t.read })).status, 404);
    assert.equal((await t.request('/api/v1/map/id/Zz9Zz9Z/')).status, 401);
    assert.equal((await t.request('/api/v1/map/id/Zz9Zz9Z/', { token: t.write })).status, 403);
  });
});

describe('PUT /api/v1/map/id/{mapId}/', () => {
  it('stores a new version and keeps the old one unchanged', async () => {
    const map = await createMap(t, 'Edit me');
    const res = await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.write, json: sampleMap('Edited') });
    assert.equal(res.status, 200);
    const v2 = await body(res);
    assert.equal(v2.version, 2);
    assert.equal(v2.mapId, map.mapId);
    assert.equal(v2.name, 'Edited');
    assert.ok(v2.lastUpdatedOn > map.lastUpdatedOn);
    assert.equal(res.headers.get('etag'), `"${map.mapId}-v2"`);
    assert.deepEqual(await body(await t.request(`/api/v1/map/id/${map.mapId}/?version=1`, { token: t.read })), map);
  });

  it('keeps a published map published', async () => {
    const map = await createMap(t);
    await t.request(`/api/v1/map/id/${map.mapId}/publish/`, { method: 'POST', token: t.publish });
    const v3 = await body(await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.write, json: sampleMap('Still public') }));
    assert.equal(v3.version, 3);
    assert.equal(v3.public, true);
  });

  it('applies If-Match: the latest ETag or * succeed, a stale one is 412 and stores nothing', async () => {
    const map = await createMap(t);
    const put = (ifMatch: string, name: string) =>
      t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.write, json: sampleMap(name), headers: { 'If-Match': ifMatch } });
    assert.equal((await put(`"${map.mapId}-v1"`, 'a')).status, 200);
    const stale = await put(`"${map.mapId}-v1"`, 'b');
    assert.equal(stale.status, 412);
    assert.match((await body(stale)).detail, /latest version is 2/);
    assert.equal((await put(`"${map.mapId}-v0", "${map.mapId}-v2"`, 'c')).status, 200);
    assert.equal((await put('*', 'd')).status, 200);
    const latest = await body(await t.request(`/api/v1/map/id/${map.mapId}/`, { token: t.read }));
    assert.equal(latest.version, 4);
    assert.equal(latest.name, 'd');
  });

  it('serializes concurrent updates into consecutive versions', async () => {
    const map = await createMap(t);
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) =>
      t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.write, json: sampleMap(`n${i}`) }).then(body)));
    assert.deepEqual(results.map((m) => m.version).sort((a, b) => a - b), Array.from({ length: 25 }, (_, i) => i + 2));
    for (const m of results) {
      const stored = await body(await t.request(`/api/v1/map/id/${map.mapId}/?version=${m.version}`, { token: t.read }));
      assert.equal(stored.name, m.name);
    }
  });

  it('is 404 for an unknown map, 422 for a bad body, 403 without write', async () => {
    const map = await createMap(t);
    assert.equal((await t.request('/api/v1/map/id/Zz9Zz9Z/', { method: 'PUT', token: t.write, json: sampleMap() })).status, 404);
    assert.equal((await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.write, json: { name: 5 } })).status, 422);
    assert.equal((await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.read, json: sampleMap() })).status, 403);
    assert.equal((await body(await t.request(`/api/v1/map/id/${map.mapId}/`, { token: t.read }))).version, 1);
  });
});

describe('POST /api/v1/map/id/{mapId}/publish/ and /unpublish/', () => {
  it('each store a new version with public set, copying the content', async () => {
    const map = await createMap(t, 'Pub');
    const pub = await t.request(`/api/v1/map/id/${map.mapId}/publish/`, { method: 'POST', token: t.publish });
    assert.equal(pub.status, 200);
    const v2 = await body(pub);
    assert.deepEqual({ ...v2, lastUpdatedOn: null }, { ...map, version: 2, public: true, lastUpdatedOn: null });
    const unpub = await body(await t.request(`/api/v1/map/id/${map.mapId}/unpublish`, { method: 'POST', token: t.publish }));
    assert.equal(unpub.version, 3);
    assert.equal(unpub.public, false);
    assert.equal(unpub.configuration.background, '#eeeeee');
  });

  it('need the publish scope (write is not enough) and a known map', async () => {
    const map = await createMap(t);
    for (const action of ['publish', 'unpublish']) {
      assert.equal((await t.request(`/api/v1/map/id/${map.mapId}/${action}/`, { method: 'POST', token: t.editor })).status, 403);
      assert.equal((await t.request(`/api/v1/map/id/${map.mapId}/${action}/`, { method: 'POST' })).status, 401);
      assert.equal((await t.request(`/api/v1/map/id/Zz9Zz9Z/${action}/`, { method: 'POST', token: t.publish })).status, 404);
    }
    assert.equal((await body(await t.request(`/api/v1/map/id/${map.mapId}/`, { token: t.read }))).version, 1);
  });
});
