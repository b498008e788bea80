// Redirect URIs ending in `*` for the built-in provider's clients, driven as
// Terranova's editor does it from a browser (openid-client with the page's
// Origin): sign-in from a deep link sends that page as redirect_uri, and
// logout sends the page to return to as post_logout_redirect_uri. A pattern
// allows the same scheme, host and port and any path under its prefix.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { parseSettings, SettingsError, type SettingsInput } from '../../config/settings.ts';
import { ADMIN_PASSWORD } from '../helpers/app.ts';
import { Browser, codeFlow, discover, startServer, type Running } from './oidc-helpers.ts';

/** Where the editor runs (nothing listens there: the tests read the Location header). */
const APP = 'http://127.0.0.1:9';

const settings = (clients: unknown[]): SettingsInput => ({
  auth: { backend: 'oidc', oidc: { issuer: 'builtin', clients: clients as never } },
});

const editorClient = {
  client_id: 'terranova', redirect_uris: [`${APP}/*`], post_logout_redirect_uris: [`${APP}/*`],
  grant_types: ['authorization_code', 'refresh_token'], scope: 'svc:maps:read svc:maps:write', default_scopes: 'svc:maps:read svc:maps:write',
};

/** The editor's requests to the provider, from its page (with its Origin, as a browser sends them). */
async function editorConfig(srv: Running) {
  const config = await discover(`${srv.baseUrl}/oidc`, 'terranova');
  config[client.customFetch] = (url, options) => fetch(url, { ...options, headers: { ...options.headers, origin: APP } } as RequestInit);
  return config;
}

/** The provider's answer to an authorization request with `redirectUri`: where it sends the browser, or its error page. */
async function authorize(srv: Running, redirectUri: string) {
  const config = await editorConfig(srv);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: 'openid', state: 's',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256',
  });
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), body: await res.text() };
}

describe('built-in provider: redirect URIs ending in *', () => {
  let srv: Running;
  before(async () => { srv = await startServer(settings([editorClient])); });
  after(() => srv.stop());

  for (const page of [`${APP}/map/AbC1234`, `${APP}/login`, `${APP}/`, `${APP}/dataset/AbC1234/edit`]) {
    it(`signs in from ${page.slice(APP.length)} and comes back to that page`, async () => {
      const config = await editorConfig(srv);
      const { tokens } = await codeFlow({ config, redirectUri: page, scope: 'openid', username: 'admin', password: ADMIN_PASSWORD });
      assert.ok(tokens.access_token);
      assert.equal(tokens.scope, 'svc:maps:read svc:maps:write');
    });
  }

  const refused: [string, string][] = [
    ['another port', 'http://127.0.0.1:10/map/x'],
    ['another host', 'http://localhost:9/map/x'],
    ['another scheme', 'https://127.0.0.1:9/map/x'],
    ['a user in the URL', 'http://evil@127.0.0.1:9/map/x'],
  ];
  for (const [what, uri] of refused) {
    it(`refuses ${what} (invalid_redirect_uri on the provider's page, no redirect)`, async () => {
      const answer = await authorize(srv, uri);
      assert.equal(answer.status, 400);
      assert.equal(answer.location, null);
      assert.match(answer.body, /invalid_redirect_uri/);
    });
  }

  it('logs out: ends the session and sends the browser to the post-logout page asked for', async () => {
    const config = await editorConfig(srv);
    const browser = new Browser();
    const { tokens } = await codeFlow({ config, redirectUri: `${APP}/map/AbC1234`, scope: 'openid', username: 'admin', password: ADMIN_PASSWORD, browser });
    const end = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${APP}/login`, state: 'bye' });
    const page = await browser.fetch(end);
    assert.equal(page.status, 200, 'the logout confirmation page');
    const html = await page.text();
    const form = /<form id="op.logoutForm" method="post" action="([^"]+)"><input type="hidden" name="xsrf" value="([^"]+)"\/><\/form>/.exec(html);
    assert.ok(form, html);
    const confirmed = await browser.fetch(new URL(form[1], end), {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: form[2], logout: 'yes' }).toString(),
    });
    assert.equal(confirmed.status, 303);
    assert.equal(confirmed.headers.get('location'), `${APP}/login?state=bye`);
    // The session is gone: a new sign-in asks for the password again.
    const again = client.buildAuthorizationUrl(config, {
      redirect_uri: `${APP}/`, scope: 'openid', state: 's', prompt: 'none',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256',
    });
    const silent = await browser.fetch(again);
    assert.match(String(silent.headers.get('location')), /error=login_required/);
  });

  it('refuses a post-logout redirect to another origin', async () => {
    const config = await editorConfig(srv);
    const { tokens } = await codeFlow({ config, redirectUri: `${APP}/`, scope: 'openid', username: 'admin', password: ADMIN_PASSWORD });
    const end = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://evil.example/' });
    const res = await fetch(end, { redirect: 'manual' });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /post_logout_redirect_uri not registered/);
  });
});

describe('auth.oidc.clients: redirect patterns', () => {
  const cases: [string, string, RegExp][] = [
    ['a * in the host', 'https://*.example.net/', /may only end the URI/],
    ['a * ending the host', 'https://maps.example.*', /never in the host/],
    ['a * before the end', 'https://maps.example.net/*/callback', /may only end the URI/],
    ['a * right after the host', 'https://maps.example.net*', /never in the host/],
  ];
  for (const [what, uri, message] of cases) {
    it(`refuses ${what}, naming the key`, () => {
      for (const key of ['redirect_uris', 'post_logout_redirect_uris']) {
        assert.throws(() => parseSettings(settings([{ ...editorClient, [key]: [uri] }]), {}, '/tmp'),
          (e: Error) => e instanceof SettingsError && e.message.includes(key) && message.test(e.message));
      }
    });
  }
  it('takes a prefix with a path', () => {
    const parsed = parseSettings(settings([{ ...editorClient, redirect_uris: ['https://maps.example.net/terranova/*'] }]), {}, '/tmp');
    assert.deepEqual(parsed.auth.oidc.clients[0].redirect_uris, ['https://maps.example.net/terranova/*']);
  });
});
