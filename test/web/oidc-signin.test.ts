// The home page's sign-in with the built-in OpenID provider (auth.backend
// oidc, no password grant), in headless Chromium: the page's "Sign in" goes to
// the provider's page (authorization code with PKCE as the public client
// `home`), whose form takes the username and password, and back on the page
// the token is the user's: every map is listed. No console error, no request
// elsewhere.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { getRequestListener } from '@hono/node-server';
import type { Browser } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../helpers/chromium.ts';
import { ADMIN_PASSWORD, makeTestApp, type TestApp } from '../helpers/app.ts';
import { copyDemoData } from '../helpers/demo-data.ts';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';


const skip = chromiumMissing();

describe('signing in on the home page with the built-in provider', { skip }, () => {
  const server = createServer();
  let t: TestApp;
  let base: string;
  let browser: Browser;

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = await mkdtemp(path.join(tmpdir(), 'mts-web-oidc-'));
    await copyDemoData(dir);
    t = await makeTestApp({
      dir,
      settings: {
        server: { baseUrl: base },
        auth: {
          backend: 'oidc',
          oidc: { issuer: 'builtin', clients: [{ client_id: 'home', redirect_uris: [`${base}/`], scope: 'openid svc:maps:read svc:maps:write svc:maps:publish' }] },
        },
      },
    });
    server.on('request', getRequestListener(t.app.fetch));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t?.close(true);
  });

  it('goes to the provider and comes back signed in', async () => {
    const context = await browser.newContext();
    const trouble: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1' || url.protocol === 'blob:' || url.protocol === 'data:') return route.continue();
      trouble.push(`request to ${url.href}`);
      return route.abort();
    });
    const page = await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error') trouble.push(m.text()); });
    page.on('pageerror', (e) => trouble.push(String(e)));
    await page.goto(`${base}/`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The provider's own page: its form, then its consent.
    await page.waitForURL(/\/oidc\//);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const allow = page.getByRole('button', { name: 'Allow' });
    await Promise.race([allow.click().catch(() => undefined), page.waitForURL(`${base}/`)]);
    await page.waitForURL(`${base}/`);
    await page.locator('#account').getByText('Signed in as admin').waitFor();
    assert.equal(new URL(page.url()).search, '', 'the code is gone from the address bar');
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    assert.deepEqual(trouble, []);
    await context.close();
  });
});
