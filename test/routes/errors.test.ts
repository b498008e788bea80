// docs/api.md "Errors" on the resource routes: JSON detail, errors[] for
// validation, 400 / 404 / 412 / 413 / 415 / 422, trailing slashes, and path
// IDs that cannot be IDs answered 404 without any store lookup.
import { serve } from '@hono/node-server';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { body, createMap, sampleMap, sampleTemplate, start, type Started } from './fixtures.ts';
import { RESOURCE_ROUTES } from '../../routes/index.ts';

let t: Started;
before(async () => { t = await start({ settings: { server: { bodyLimitBytes: 64 * 1024 } } }); });
after(async () => { await t.close(); });

const raw = (path: string, method: string, text: string, type = 'application/json') =>
  t.request(path, { method, token: t.all, body: text, headers: { 'Content-Type': type } });

describe('request bodies', () => {
  const writes = [
    ['POST', '/api/v1/map/'], ['POST', '/api/v1/template/'], ['POST', '/api/v1/dataset/'],
  ] as const;
  for (const [method, path] of writes) {
    it(`${method} ${path}: malformed JSON is 400, empty is 400, another media type is 415`, async () => {
      for (const [text, status, type] of [['{"name": ', 400], ['', 400], ['name=x', 415, 'application/x-www-form-urlencoded'], ['<map/>', 415, 'application/xml']] as const) {
        const res = await raw(path, method, text, type);
        assert.equal(res.status, status, `${JSON.stringify(text)} -> ${status}`);
        assert.match(res.headers.get('content-type') ?? '', /application\/json/);
        assert.equal(typeof (await body(res)).detail, 'string');
      }
    });

    it(`${method} ${path}: a JSON value that is not an object is 422 with errors[]`, async () => {
      for (const text of ['[]', '"map"', 'null', '42']) {
        const res = await raw(path, method, text);
        assert.equal(res.status, 422, text);
        const err = await body(res);
        assert.ok(Array.isArray(err.errors) && err.errors.length > 0);
      }
    });

    it(`${method} ${path}: a body over the limit is 413 and stores nothing`, async () => {
      const before = t.store.heads('maps').length + t.store.heads('templates').length + t.store.heads('datasets').length;
      const big = JSON.stringify({ ...sampleMap('big'), template: sampleTemplate().template, padding: 'x'.repeat(70 * 1024) });
      const res = await raw(path, method, big);
      assert.equal(res.status, 413);
      assert.match((await body(res)).detail, /limit/);
      assert.equal(t.store.heads('maps').length + t.store.heads('templates').length + t.store.heads('datasets').length, before);
    });
  }

  const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
  const stored = () => t.store.heads('maps').length + t.store.heads('templates').length + t.store.heads('datasets').length;

  for (const [method, path] of writes) {
    it(`${method} ${path}: a body nested more than 64 levels deep is 400 naming the key, and stores nothing`, async () => {
      const before = stored();
      // root, `extra`, then the arrays of `inner`: 63 of them are one level too many; 30,000 (the most this app's 64 KB limit lets through) would overflow a recursive walk.
      for (const levels of [63, 30_000]) {
        const res = await raw(path, method, `{"name": "deep", "extra": {"inner": ${'['.repeat(levels)}${']'.repeat(levels)}}}`);
        assert.equal(res.status, 400, `${levels} levels`);
        assert.match((await body(res)).detail, /more than 64 levels deep \(under "extra"\)/);
      }
      assert.equal(stored(), before);
    });
  }

  it('a map nested exactly 64 levels deep is stored and read back; PUT one level deeper is 400', async () => {
    const sample = sampleMap('deep');
    const deep = (levels: number) => ({ ...sample, configuration: { ...sample.configuration, x: nested(levels) } });
    const created = await raw('/api/v1/map/', 'POST', JSON.stringify(deep(62))); // root, configuration, 62 arrays
    assert.equal(created.status, 201);
    const { mapId } = await body(created);
    const read = await body(await t.request(`/api/v1/map/id/${mapId}/`, { token: t.read }));
    assert.deepEqual(read.configuration.x, nested(62));
    const res = await raw(`/api/v1/map/id/${mapId}/`, 'PUT', JSON.stringify(deep(63)));
    assert.equal(res.status, 400);
    assert.match((await body(res)).detail, /under "configuration"/);
    assert.equal((await body(await t.request(`/api/v1/map/id/${mapId}/`, { token: t.read }))).version, 1);
  });

  describe('over a real socket (127.0.0.1)', () => {
    /**
     * Sends `chunks` as one request: with Content-Length when `declared` is set,
     * chunked otherwise. With `hold`, the request is never finished: an answer
     * can then only come from the headers and the chunks sent so far.
     */
    const send = (port: number, chunks: string[], declared?: number, hold = false) => new Promise<{ status: number; text: string }>((resolve, reject) => {
      const headers: Record<string, string | number> = { 'content-type': 'application/json', authorization: `Bearer ${t.all}` };
      if (declared !== undefined) headers['content-length'] = declared;
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/map/', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => {
          resolve({ status: res.statusCode!, text });
          req.destroy();
        });
      });
      req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)));
      for (const chunk of chunks) req.write(chunk);
      if (!hold) req.end();
    });

    // [title, framing, KiB of padding, expected status, send only the first 1000 bytes and never finish]
    const cases = [
      ['a declared Content-Length within the limit is read and stored', 'declared', 1, 201, false],
      ['a declared Content-Length over the limit is 413 from the header alone, before the body arrives', 'declared', 70, 413, true],
      ['a chunked body within the limit is read and stored', 'chunked', 1, 201, false],
      ['a chunked body is 413 once it passes the limit', 'chunked', 70, 413, false],
    ] as const;
    for (const [title, framing, kib, status, hold] of cases) {
      // A held request that the service waited on would never be answered: fail in time instead.
      it(title, { timeout: 10_000 }, async () => {
        const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
        await new Promise((resolve) => server.once('listening', resolve));
        try {
          const before = t.store.heads('maps').length;
          const map = sampleMap(`socket ${framing} ${kib}`);
          const text = JSON.stringify({ ...map, configuration: { ...map.configuration, note: 'x'.repeat(kib * 1024) } });
          const chunks = hold ? [text.slice(0, 1000)] : [text.slice(0, 1000), text.slice(1000)];
          const res = await send((server.address() as AddressInfo).port, chunks, framing === 'declared' ? Buffer.byteLength(text) : undefined, hold);
          assert.equal(res.status, status, res.text);
          assert.equal(t.store.heads('maps').length, before + (status === 201 ? 1 : 0));
          if (status === 413) assert.match(JSON.parse(res.text).detail, /over the limit of 65536 bytes/);
        } finally {
          await new Promise((resolve) => server.close(resolve));
        }
      });
    }

    it('a Content-Length that is not a number is 400 and stores nothing', async () => {
      const before = t.store.heads('maps').length;
      const res = await t.request('/api/v1/map/', { method: 'POST', token: t.all, body: JSON.stringify(sampleMap('bad length')),
        headers: { 'content-type': 'application/json', 'content-length': '12abc' } });
      assert.equal(res.status, 400);
      assert.match((await body(res)).detail, /Content-Length "12abc" is not a number/);
      assert.equal(t.store.heads('maps').length, before);
    });
  });

  it('validation errors name every bad field with its path', async () => {
    const res = await t.request('/api/v1/map/', {
      method: 'POST', token: t.write,
      json: { name: 'ok', configuration: { background: 'url(javascript:x)', layers: [{ color: 5 }, { datasetId: 'short' }] } },
    });
    assert.equal(res.status, 422);
    const err = await body(res);
    assert.deepEqual(err.errors.map((e: any) => e.path).sort(),
      ['configuration.background', 'configuration.layers.0.color', 'configuration.layers.1.datasetId']);
    for (const e of err.errors) assert.equal(typeof e.message, 'string');
  });
});

describe('path IDs that are not 7 letters or digits', () => {
  const bad = ['abc', 'abcdefgh', 'abc-def', 'abc_def', 'abc.def', '%2e%2e%2fabc', '..%2F..%2Fx', 'abc%00def', 'ab%20cdef', '%C3%84%C3%84%C3%84%C3%84%C3%84%C3%84%C3%84', '__proto__', 'constructor'];
  // The resources' own routes by ID, as their resources declare them (get, update, a map's publish and unpublish).
  const byId = RESOURCE_ROUTES.flatMap((kind) => kind.operations.filter((op) => op.path.startsWith(kind.objectPath.slice(0, -1))));
  const routes = (id: string) => byId.map((op) => [op.method.toUpperCase(), op.path.replace(/\{\w+Id\}/, id)] as const);

  it('cover the routes by ID of maps, datasets and templates', () => {
    const declared = routes('X').map(([method, path]) => `${method} ${path}`);
    for (const route of ['GET /api/v1/map/id/X/', 'PUT /api/v1/map/id/X/', 'POST /api/v1/map/id/X/publish/', 'POST /api/v1/map/id/X/unpublish/',
      'GET /api/v1/dataset/id/X/', 'PUT /api/v1/dataset/id/X/', 'GET /api/v1/template/id/X/', 'PUT /api/v1/template/id/X/']) {
      assert.ok(declared.includes(route), route);
    }
  });

  it('are 404 JSON and never reach the store', async () => {
    const seen: string[] = [];
    const store = t.store as any;
    const original = { get: store.get, update: store.update, head: store.head, read: store.read, append: store.append };
    for (const name of Object.keys(original) as Array<keyof typeof original>) {
      store[name] = (c: string, key: string, ...rest: unknown[]) => { seen.push(`${c}/${key}`); return original[name].call(store, c, key, ...rest); };
    }
    try {
      for (const id of bad) {
        for (const [method, path] of routes(id)) {
          const res = await t.request(path, { method, token: t.all, ...(method === 'GET' ? {} : { json: sampleMap() }) });
          assert.equal(res.status, 404, `${method} ${path}`);
          assert.equal(typeof (await body(res)).detail, 'string');
        }
      }
    } finally {
      Object.assign(store, original);
    }
    const decoded = bad.map((id) => decodeURIComponent(id));
    const leaked = seen.filter((key) => decoded.some((id) => key.endsWith(`/${id}`)) || /maps|datasets|templates/.test(key));
    assert.deepEqual(leaked, []);
  });

  it('an unknown but well-formed ID is 404 too', async () => {
    for (const [method, path] of routes('Zz9Zz9Z')) {
      const res = await t.request(path, { method, token: t.all, ...(method === 'GET' ? {} : { json: sampleMap() }) });
      assert.equal(res.status, 404, `${method} ${path}`);
    }
  });
});

describe('paths with and without the trailing slash', () => {
  it('reach the same route', async () => {
    const map = await createMap(t);
    for (const path of ['/api/v1/maps', '/api/v1/datasets', '/api/v1/templates', `/api/v1/map/id/${map.mapId}`, '/api/v1/public/maps']) {
      const a = await t.request(path, { token: t.all });
      const b = await t.request(`${path}/`, { token: t.all });
      assert.equal(a.status, 200, path);
      assert.equal(await a.text(), await b.text(), path);
    }
    for (const path of ['/api/v1/map', '/api/v1/map/']) {
      assert.equal((await t.request(path, { method: 'POST', token: t.write, json: sampleMap() })).status, 201, path);
    }
    for (const path of [`/api/v1/map/id/${map.mapId}/publish`, `/api/v1/map/id/${map.mapId}/publish/`]) {
      assert.equal((await t.request(path, { method: 'POST', token: t.publish })).status, 200, path);
    }
  });
});

describe('unknown routes and methods', () => {
  for (const [method, path] of [['GET', '/api/v1/nothing'], ['GET', '/api/v2/maps/'], ['DELETE', '/api/v1/map/id/AbCdEf1/'], ['PATCH', '/api/v1/maps/']] as const) {
    it(`${method} ${path} is 404 JSON`, async () => {
      const res = await t.request(path, { method, token: t.all });
      assert.equal(res.status, 404);
      assert.equal(typeof (await body(res)).detail, 'string');
    });
  }
});
