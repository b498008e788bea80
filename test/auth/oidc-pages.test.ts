// The built-in provider's logout pages (auth/oidc/pages.ts, set as
// oidc-provider's rpInitiatedLogout sources): a service demoed offline must
// load nothing from elsewhere, and oidc-provider's own pages import a font
// from Google. Driven as a browser: the bare logout page, its form, and the
// signed-out page it leads to.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { ADMIN_PASSWORD } from '../helpers/app.ts';
import { Browser, codeFlow, discover, startServer, type Running } from './oidc-helpers.ts';

const APP = 'http://127.0.0.1:9';

/** Every URL a page names that is not the service's own, and any CSS import or url(). */
function external(html: string, own: string): string[] {
  const urls = [...html.matchAll(/(?:https?:)?\/\/[^\s"'<>)]+/g)].map((m) => m[0]).filter((u) => !u.startsWith(`${own}/`));
  return [...urls, ...[...html.matchAll(/@import|url\(/g)].map((m) => m[0])];
}

/** The provider's logout form on the page, and its fields. */
function logoutForm(html: string) {
  const form = /<form id="op.logoutForm" method="post" action="([^"]+)"><input type="hidden" name="xsrf" value="([^"]+)"\/><\/form>/.exec(html);
  assert.ok(form, html);
  return { action: form[1], xsrf: form[2] };
}

describe('GET /oidc/session/end and the signed-out page', () => {
  let srv: Running;
  before(async () => {
    srv = await startServer({ auth: { backend: 'oidc', oidc: { issuer: 'builtin', clients: [{
      client_id: 'terranova', redirect_uris: [`${APP}/*`], post_logout_redirect_uris: [`${APP}/*`],
      grant_types: ['authorization_code'], scope: 'svc:maps:read', default_scopes: 'svc:maps:read',
    }] as never } } });
  });
  after(() => srv.stop());

  it('a bare visit (nobody signed in) names no external URL either', async () => {
    const page = await new Browser().fetch(`${srv.baseUrl}/oidc/session/end`);
    assert.equal(page.status, 200);
    assert.deepEqual(external(await page.text(), srv.baseUrl), []);
  });

  it('asks a signed-in browser to confirm, then says it is signed out, on pages with no external URL', async () => {
    const config = await discover(`${srv.baseUrl}/oidc`, 'terranova');
    config[client.customFetch] = (url, options) => fetch(url, { ...options, headers: { ...options.headers, origin: APP } } as RequestInit);
    const browser = new Browser();
    const { tokens } = await codeFlow({ config, redirectUri: `${APP}/`, scope: 'openid', username: 'admin', password: ADMIN_PASSWORD, browser });
    // No post_logout_redirect_uri: the provider ends on its own signed-out page.
    const end = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! });
    const page = await browser.fetch(end);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Sign out\?/);
    assert.deepEqual(external(html, srv.baseUrl), []);
    // The headers of the other sign-in pages: no scripts, no framing.
    assert.match(String(page.headers.get('content-security-policy')), /default-src 'none'/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');

    const { action, xsrf } = logoutForm(html);
    const confirmed = await browser.fetch(new URL(action, end), {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    assert.equal(confirmed.status, 303);
    const done = await browser.fetch(new URL(confirmed.headers.get('location')!, end));
    assert.equal(done.status, 200);
    const doneHtml = await done.text();
    assert.match(doneHtml, /<h1>Signed out<\/h1>/);
    assert.deepEqual(external(doneHtml, srv.baseUrl), []);
    assert.match(String(done.headers.get('content-security-policy')), /default-src 'none'/);
  });
});
