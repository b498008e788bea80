// GET /docs: the interactive documentation loads with assets the service
// serves itself. The HTML references no other host; each asset it names is
// served; and in a real (headless) browser the page renders the API with no
// request leaving the machine and no Content-Security-Policy violation.
import { serve } from '@hono/node-server';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { skipWithout } from '../helpers/components.ts';
import { start, type Started } from './fixtures.ts';

let t: Started;
before(async () => { t = await start(); });
after(async () => { await t.close(); });

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));

const references = (html: string) => [...html.matchAll(/\b(?:src|href|data-spec)="([^"]+)"/g)].map((m) => m[1]);

describe('GET /docs', () => {
  it('is HTML with a strict CSP that references only the service itself', async () => {
    for (const path of ['/docs', '/docs/']) {
      const res = await t.request(path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /connect-src 'self'/);
      const html = await res.text();
      assert.doesNotMatch(html, /https?:\/\//i, 'no absolute http(s) URL');
      assert.doesNotMatch(html, /(src|href)="\/\//, 'no protocol-relative URL');
      assert.doesNotMatch(html, /<script>(?!<\/script>)/, 'no inline script');
    }
  });

  it('serves every asset the page references', async () => {
    const html = await (await t.request('/docs')).text();
    const refs = references(html);
    assert.ok(refs.length >= 4, `references: ${refs.join(', ')}`);
    for (const ref of refs) {
      assert.ok(ref.startsWith('/'), ref);
      const res = await t.request(ref);
      assert.equal(res.status, 200, ref);
      assert.ok((await res.arrayBuffer()).byteLength > 0, ref);
    }
  });

  it('serves only its fixed list of asset files', async () => {
    for (const name of ['package.json', 'index.html', '..%2Fpackage.json', '%2e%2e%2f%2e%2e%2fpackage.json', 'swagger-ui-bundle.js.map', 'absolute-path.js']) {
      assert.equal((await t.request(`/docs/assets/${name}`)).status, 404, name);
    }
  });
});

describe('GET /docs in a browser', { skip: skipWithout('Chromium', CHROMIUM !== undefined, 'apt-get install chromium') }, () => {
  it('renders every operation with no request leaving the machine and no CSP violation', { timeout: 300_000 }, async () => {
    const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const origin = `http://127.0.0.1:${port}`;
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      // Waits end on the page's events (load, the selectors appearing); the bound only turns a hang into a failure,
      // far beyond what Swagger UI takes on a loaded 2-core machine (20 s was not).
      page.setDefaultTimeout(120_000);
      const outside: string[] = [];
      const failures: string[] = [];
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
        outside.push(url);
        return route.abort();
      });
      page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
      page.on('console', (m) => { if (m.type() === 'error') failures.push(`console: ${m.text()}`); });
      page.on('response', (r) => { if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`); });
      await page.goto(`${origin}/docs`, { waitUntil: 'load' });
      await page.waitForSelector('.swagger-ui .info .title');
      await page.waitForSelector('.opblock');
      const title = await page.textContent('.swagger-ui .info .title');
      assert.match(title ?? '', /Map Topology Service/);
      const operations = await page.locator('.opblock').count();
      assert.ok(operations >= 29, `${operations} operations shown`);
      assert.deepEqual(outside, []);
      assert.deepEqual(failures, []);
    } finally {
      await browser.close();
      server.close();
    }
  });
});
