// CORS (docs/api.md: CORS): the public routes answer any origin by
// default, the rest of the API the origins of server.cors.origins; a preflight
// is answered on every route; credentials are never allowed.
import { serve } from '@hono/node-server';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { body, createMap, start, type Started } from './fixtures.ts';

const GRAFANA = 'https://grafana.example.net';
const EVIL = 'https://evil.example';

const preflight = (t: Started, path: string, origin: string, method = 'GET') => t.request(path, {
  method: 'OPTIONS',
  headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization, content-type, if-match' },
});

describe('CORS with server.cors.origins set to one origin', () => {
  let t: Started;
  let publicMap = '';
  before(async () => {
    t = await start({ settings: { server: { cors: { origins: [GRAFANA] } } } });
    const inline = { name: 'inline', mapjson: JSON.stringify({ name: 'i', nodes: [{ name: 'X', coordinate: [1, 2], meta: {} }], edges: [] }) };
    publicMap = (await createMap(t, 'Shown', { configuration: { layers: [inline] } })).mapId;
    await t.request(`/api/v1/map/id/${publicMap}/publish/`, { method: 'POST', token: t.publish });
  });
  after(() => t.close(true));

  const publicPaths = () => [`/api/v1/public/output/map/${publicMap}/`, '/api/v1/public/maps/', '/api/v1/datasources/', '/healthz'];

  it('public routes answer any origin, with the headers a script reads exposed and no credentials', async () => {
    for (const path of publicPaths()) {
      const res = await t.request(path, { headers: { Origin: EVIL } });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('access-control-allow-origin'), '*', path);
      assert.equal(res.headers.get('access-control-allow-credentials'), null);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /ETag/);
    }
  });

  it('the API answers the listed origin, on success and on errors alike', async () => {
    const ok = await t.request('/api/v1/maps/', { token: t.read, headers: { Origin: GRAFANA } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), GRAFANA);
    assert.match(ok.headers.get('vary') ?? '', /Origin/);
    assert.match(ok.headers.get('access-control-expose-headers') ?? '', /X-Total-Count/);
    const denied = await t.request('/api/v1/maps/', { headers: { Origin: GRAFANA } });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get('access-control-allow-origin'), GRAFANA, 'a script can read why it was refused');
  });

  it('the API does not answer another origin', async () => {
    const res = await t.request('/api/v1/maps/', { token: t.read, headers: { Origin: EVIL } });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  const preflights: Array<[string, () => string, string, string | null]> = [
    ['a listed origin on the API', () => '/api/v1/map/', GRAFANA, GRAFANA],
    ['another origin on the API', () => '/api/v1/map/', EVIL, null],
    ['any origin on public output', () => `/api/v1/public/output/map/${publicMap}/`, EVIL, '*'],
    ['a route that does not exist', () => '/api/v1/nothing/here/', GRAFANA, GRAFANA],
  ];
  for (const [label, path, origin, allowed] of preflights) {
    it(`answers a preflight for ${label}: 204, allowed origin ${allowed ?? 'none'}`, async () => {
      const res = await preflight(t, path(), origin, 'PUT');
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('access-control-allow-origin'), allowed);
      if (allowed) {
        assert.match(res.headers.get('access-control-allow-methods') ?? '', /PUT/);
        assert.match(res.headers.get('access-control-allow-headers') ?? '', /authorization/i);
      } else {
        assert.equal(res.headers.get('access-control-allow-methods'), null, 'nothing allowed to an origin not listed');
      }
      assert.equal(res.headers.get('access-control-allow-credentials'), null);
    });
  }
});

// Over a real listener @hono/node-server sends answers built from memory straight from their plain
// headers; CORS is added around the router (routes/cors.ts) and must reach those answers too.
describe('CORS over a real socket', () => {
  let t: Started;
  let base = '';
  let close: () => void = () => undefined;
  let mapPath = '';
  let publicSvg = '';
  before(async () => {
    t = await start({ settings: { server: { cors: { origins: [GRAFANA] } } } });
    const inline = { name: 'inline', mapjson: JSON.stringify({ name: 'i', nodes: [{ name: 'X', coordinate: [1, 2], meta: {} }], edges: [] }) };
    const id = (await createMap(t, 'Shown', { configuration: { layers: [inline] } })).mapId;
    await t.request(`/api/v1/map/id/${id}/publish/`, { method: 'POST', token: t.publish });
    [mapPath, publicSvg] = [`/api/v1/map/id/${id}/`, `/api/v1/public/output/map/${id}/svg/`];
    await new Promise<void>((resolve) => {
      const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        base = `http://127.0.0.1:${info.port}`;
        resolve();
      });
      close = () => void server.close();
    });
  });
  after(async () => {
    close();
    await t.close(true);
  });

  const cases: Array<[string, () => string, Record<string, string>, string | null]> = [
    ['a version by ID, for the listed origin', () => mapPath, { Origin: GRAFANA }, GRAFANA],
    ['a version by ID, for another origin', () => mapPath, { Origin: EVIL }, null],
    ['a public picture, kept by the output cache, for any origin', () => publicSvg, { Origin: EVIL }, '*'],
  ];
  for (const [what, path, headers, allowed] of cases) {
    it(`${what}: ${allowed ?? 'no'} Access-Control-Allow-Origin, the route's own headers kept, the same on a 304`, async () => {
      const auth: Record<string, string> = path() === mapPath ? { Authorization: `Bearer ${t.read}` } : {};
      for (let i = 0; i < 2; i++) { // the second from memory
        const res = await fetch(base + path(), { headers: { ...auth, ...headers } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('access-control-allow-origin'), allowed);
        if (allowed !== '*') assert.match(res.headers.get('vary') ?? '', /Origin/);
        const etag = res.headers.get('etag');
        assert.ok(etag && res.headers.get('content-type'));
        assert.ok((await res.arrayBuffer()).byteLength > 0);
        const again = await fetch(base + path(), { headers: { ...auth, ...headers, 'If-None-Match': etag } });
        assert.equal(again.status, 304);
        assert.equal(again.headers.get('access-control-allow-origin'), allowed);
        assert.equal(again.headers.get('etag'), etag);
      }
    });
  }

  it('a request without Origin gets no CORS headers', async () => {
    const res = await fetch(base + mapPath, { headers: { Authorization: `Bearer ${t.read}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal(res.headers.get('vary'), null);
  });
});

describe('CORS settings', () => {
  it('by default the API answers no other origin, and the public routes any', async () => {
    const t = await start();
    try {
      assert.equal((await t.request('/api/v1/maps/', { token: t.read, headers: { Origin: GRAFANA } })).headers.get('access-control-allow-origin'), null);
      assert.equal((await t.request('/api/v1/public/maps/', { headers: { Origin: GRAFANA } })).headers.get('access-control-allow-origin'), '*');
    } finally {
      await t.close(true);
    }
  });

  it('origins "*" opens the API to any origin, still without credentials', async () => {
    const t = await start({ settings: { server: { cors: { origins: '*' } } } });
    try {
      const res = await t.request('/api/v1/maps/', { token: t.read, headers: { Origin: EVIL } });
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.equal(res.headers.get('access-control-allow-credentials'), null);
    } finally {
      await t.close(true);
    }
  });

  it('publicAnyOrigin: false closes the public routes to origins not listed', async () => {
    const t = await start({ settings: { server: { cors: { publicAnyOrigin: false, origins: [GRAFANA] } } } });
    try {
      assert.equal((await t.request('/api/v1/public/maps/', { headers: { Origin: EVIL } })).headers.get('access-control-allow-origin'), null);
      assert.equal((await t.request('/api/v1/public/maps/', { headers: { Origin: GRAFANA } })).headers.get('access-control-allow-origin'), GRAFANA);
    } finally {
      await t.close(true);
    }
  });

  it('an origin with a path is refused at start, naming the key', async () => {
    await assert.rejects(start({ settings: { server: { cors: { origins: ['https://grafana.example.net/d/x'] } } } }), /server\.cors\.origins\.0: expected an origin/);
    const t = await start(); // the defaults still start
    try {
      assert.equal((await body(await t.request('/healthz'))).status, 'ok');
    } finally {
      await t.close(true);
    }
  });
});
