// Headers read from the Node request directly (auth/request-header.ts) behave
// exactly like the standard ones, over a real socket.
import { serve } from '@hono/node-server';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let base: string;
let close: () => void;
let token: string;
let mapUrl: string;

before(async () => {
  t = await makeTestApp();
  token = await t.token();
  const res = await t.request('/api/v1/map/', { method: 'POST', token, json: { name: 'Socket map' } });
  mapUrl = `/api/v1/map/id/${((await res.json()) as { mapId: string }).mapId}/`;
  await new Promise<void>((resolve) => {
    const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      base = `http://127.0.0.1:${info.port}`;
      resolve();
    });
    close = () => server.close();
  });
});
after(async () => {
  close();
  await t.close();
});

describe('request headers over a real server', () => {
  it('Authorization: missing is 401, malformed is 401 invalid_token, valid is 200', async () => {
    assert.equal((await fetch(base + mapUrl)).status, 401);
    const bad = await fetch(base + mapUrl, { headers: { authorization: 'Bearer abc def' } });
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    assert.equal((await fetch(base + mapUrl, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  });

  it('If-None-Match with the ETag is 304; If-Match with a stale ETag is 412', async () => {
    const first = await fetch(base + mapUrl, { headers: { authorization: `Bearer ${token}` } });
    const etag = first.headers.get('etag')!;
    assert.ok(etag);
    const again = await fetch(base + mapUrl, { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } });
    assert.equal(again.status, 304);
    const put = (ifMatch: string) => fetch(base + mapUrl, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-match': ifMatch },
      body: JSON.stringify({ name: 'Renamed' }),
    });
    assert.equal((await put(etag)).status, 200);
    assert.equal((await put(etag)).status, 412);
  });

  it('an output\'s ETag: If-None-Match with it is 304 carrying the ETag, Cache-Control and Date (RFC 9110 15.4.5)', async () => {
    const svgUrl = `${base + mapUrl.replace('/map/id/', '/output/map/')}svg/`;
    const first = await fetch(svgUrl, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(first.status, 200);
    await first.text();
    const etag = first.headers.get('etag') ?? '';
    assert.match(etag, /^"[\w-]{22}"$/);
    const again = await fetch(svgUrl, { headers: { authorization: `Bearer ${token}`, 'if-none-match': `"other", ${etag}` } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    assert.equal(again.headers.get('etag'), etag);
    assert.equal(again.headers.get('cache-control'), 'no-cache');
    assert.match(again.headers.get('date') ?? '', /GMT$/);
  });
});
