// The home page's files through HTTP (routes/home.ts): `/` and `/web/…` from
// memory with their types, ETags and a Content-Security-Policy that allows
// this origin only; a path that names no file of web/ is a 404, never a read.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

const WEB = path.resolve(import.meta.dirname, '..', '..', 'web');

describe('GET / and /web/', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  it('answers the page with a policy that lets it load and call this origin only', async () => {
    const res = await t.request('/');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const rule of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) assert.ok(csp.includes(rule), rule);
    const html = await res.text();
    assert.doesNotMatch(html, /https?:\/\/(?!localhost)/, 'no other host named');
  });

  it('serves every file of web/ with its type, and a 304 for its ETag', async () => {
    const files = (await readdir(WEB, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
    const types: Record<string, RegExp> = { '.js': /^text\/javascript/, '.css': /^text\/css/, '.html': /^text\/html/, '.svg': /^image\/svg\+xml/ };
    for (const f of files) {
      const name = path.relative(WEB, path.join(f.parentPath, f.name)).split(path.sep).join('/');
      const res = await t.request(`/web/${name}`);
      assert.equal(res.status, 200, name);
      assert.match(res.headers.get('content-type') ?? '', types[path.extname(name)], name);
      const again = await t.request(`/web/${name}`, { headers: { 'if-none-match': res.headers.get('etag')! } });
      assert.equal(again.status, 304, name);
    }
  });

  for (const hostile of ['/web/../server.ts', '/web/%2e%2e/server.ts', '/web/..%2fpackage.json', '/web/nothing.js', '/web/', '/web/views']) {
    it(`answers ${hostile} with a 404 naming no file`, async () => {
      const res = await t.request(hostile);
      assert.equal(res.status, 404);
      assert.equal(((await res.json()) as { code: string }).code, 'not_found');
    });
  }
});
