// The built-in OpenID provider (auth.backend oidc, issuer builtin) end to end
// on a real loopback server, driven by openid-client: discovery, JWKS, code +
// PKCE through the login and consent forms, refresh, client credentials,
// scope limits, restart, CSRF and throttling of the login form.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as client from 'openid-client';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UserDirectory } from '../../auth/users.ts';
import { parseSettings, SettingsError } from '../../config/settings.ts';
import { createMemoryLogger } from '../../log.ts';
import { createApp } from '../../server.ts';
import { openFileStore } from '../../store/file.ts';
import { ADMIN_PASSWORD, TEST_PASSWORD_COST } from '../helpers/app.ts';
import { Browser, CB, codeFlow, login, discover, oidcSettings, startServer, type Running } from './oidc-helpers.ts';

const READER_PASSWORD = 'reader password!';

const api = (srv: Running, token: string, path = '/api/v1/current_user/') =>
  fetch(`${srv.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

async function addReader(srv: Running) {
  await new UserDirectory(srv.store, () => new Date(), TEST_PASSWORD_COST).create({ username: 'reader', password: READER_PASSWORD, scope: ['svc:maps:read'] });
}

describe('built-in provider: discovery and JWKS', () => {
  let srv: Running;
  before(async () => { srv = await startServer(oidcSettings()); });
  after(() => srv.stop());

  it('serves discovery for issuer <baseUrl>/oidc with S256 only, and public keys only', async () => {
    const meta = await (await fetch(`${srv.baseUrl}/oidc/.well-known/openid-configuration`)).json() as Record<string, any>;
    assert.equal(meta.issuer, `${srv.baseUrl}/oidc`);
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
    for (const g of ['authorization_code', 'refresh_token', 'client_credentials']) assert.ok(meta.grant_types_supported.includes(g), g);
    assert.equal(meta.jwks_uri, `${srv.baseUrl}/oidc/jwks`);
    const jwks = await (await fetch(meta.jwks_uri)).json() as { keys: Array<Record<string, string>> };
    assert.ok(jwks.keys.length >= 1);
    for (const k of jwks.keys) {
      assert.equal(k.kty, 'RSA');
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(k[secret], undefined, secret);
    }
  });

  it('has no user management and no password grant route', async () => {
    const admin = await client.clientCredentialsGrant(await discover(`${srv.baseUrl}/oidc`, 'robot', 'robot secret value'), { scope: 'svc:maps:read' });
    for (const [method, path] of [['GET', '/api/v1/user/'], ['POST', '/api/v1/user'], ['PUT', '/api/v1/user/admin/'],
      ['PUT', '/api/v1/user/admin/set_password/'], ['DELETE', '/api/v1/user/admin/'], ['POST', '/api/v1/auth/token']]) {
      const res = await fetch(`${srv.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${admin.access_token}`, 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
      assert.equal(res.status, 404, `${method} ${path}`);
    }
  });
});

describe('built-in provider: clients are checked at start', () => {
  // oidc-provider checks some client metadata only when the client is first used; the service asks at start.
  it('a client the provider refuses stops the start with a settings error naming it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mts-test-'));
    const store = await openFileStore(dir);
    try {
      const settings = parseSettings(oidcSettings({ clients: [{ client_id: 'app', redirect_uris: ['myapp:/callback'] }] }), {}, dir);
      await assert.rejects(createApp({ settings: { ...settings, data: { dir } }, store, log: createMemoryLogger() }),
        (e: Error) => e instanceof SettingsError && /^auth\.oidc\.clients \(app\): redirect_uris must only contain web uris/.test(e.message));
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('built-in provider: authorization code + PKCE', () => {
  let srv: Running;
  let editor: client.Configuration;
  before(async () => {
    srv = await startServer(oidcSettings());
    await addReader(srv);
    editor = await discover(`${srv.baseUrl}/oidc`, 'editor');
  });
  after(() => srv.stop());

  it('login form, consent, code exchange, API call, refresh', async () => {
    const { tokens } = await codeFlow({ config: editor, redirectUri: CB, scope: 'openid offline_access svc:maps:read svc:maps:write',
      username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.equal(tokens.scope, 'svc:maps:read svc:maps:write');
    assert.ok(tokens.refresh_token);
    assert.ok(tokens.id_token);
    const header = decodeProtectedHeader(tokens.access_token);
    assert.equal(header.typ, 'at+jwt');
    assert.equal(header.alg, 'RS256');
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims.iss, `${srv.baseUrl}/oidc`);
    assert.equal(claims.aud, srv.baseUrl);
    assert.equal(claims.client_id, 'editor');
    const me = await api(srv, tokens.access_token);
    assert.equal(me.status, 200);
    assert.deepEqual(await me.json(), { username: 'admin', name: 'Administrator', email: '', scope: ['svc:maps:read', 'svc:maps:write'] });

    const refreshed = await client.refreshTokenGrant(editor, tokens.refresh_token!);
    assert.notEqual(refreshed.access_token, tokens.access_token);
    assert.equal((await api(srv, refreshed.access_token)).status, 200);
  });

  it('a confidential client (client_secret_basic) works the same, and its name is escaped on the pages', async () => {
    const web = await discover(`${srv.baseUrl}/oidc`, 'web', 'web secret value');
    const browser = new Browser();
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(web, { redirect_uri: CB, scope: 'openid svc:maps:read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const { res } = await browser.follow(url, CB);
    const html = await res.text();
    assert.match(html, /Web &lt;Editor&gt;/);
    assert.doesNotMatch(html, /<script/i);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const { tokens } = await codeFlow({ config: web, redirectUri: CB, scope: 'openid svc:maps:read', username: 'reader', password: READER_PASSWORD });
    assert.equal(tokens.scope, 'svc:maps:read');
    assert.equal(tokens.refresh_token, undefined, 'web is not allowed refresh_token');
  });

  it('never grants more than the user holds; the consent page says what is left out', async () => {
    const browser = new Browser();
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(editor, { redirect_uri: CB, scope: 'openid svc:maps:read svc:maps:write svc:admin',
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 's1' });
    const login = await browser.follow(url, CB);
    const posted = await browser.submit(login.url, await login.res.text(), '/login', { username: 'reader', password: READER_PASSWORD });
    const consent = await browser.follow(new URL(posted.headers.get('location')!, login.url), CB);
    const html = await consent.res.text();
    assert.match(html, /Not granted[\s\S]*svc:maps:write[\s\S]*svc:admin/);
    const confirmed = await browser.submit(consent.url, html, '/confirm');
    const back = await browser.follow(new URL(confirmed.headers.get('location')!, consent.url), CB);
    const tokens = await client.authorizationCodeGrant(editor, back.url, { pkceCodeVerifier: verifier, expectedState: 's1' });
    assert.equal(tokens.scope, 'svc:maps:read');
    assert.equal((await api(srv, tokens.access_token, '/api/v1/current_user/')).status, 200);
  });

  it('never grants more than the client is configured for', async () => {
    const { tokens } = await codeFlow({ config: editor, redirectUri: CB, scope: 'openid svc:maps:read svc:maps:publish',
      username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(tokens.scope, 'svc:maps:read');
  });

  it('requires PKCE with S256', async () => {
    const base = { client_id: 'editor', redirect_uri: CB, response_type: 'code', scope: 'openid svc:maps:read', state: 'x' };
    const cases: Array<[string, Record<string, string>]> = [
      ['no code_challenge', {}],
      ['plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }],
    ];
    for (const [what, extra] of cases) {
      const res = await fetch(`${srv.baseUrl}/oidc/auth?${new URLSearchParams({ ...base, ...extra })}`, { redirect: 'manual' });
      const location = new URL(res.headers.get('location') ?? 'http://none/');
      assert.equal(location.origin + location.pathname, CB, what);
      assert.equal(location.searchParams.get('error'), 'invalid_request', what);
    }
  });

  it('a wrong password shows the form again (401), never a redirect', async () => {
    const { posted } = await login({ config: editor, redirectUri: CB, scope: 'openid svc:maps:read',
      username: 'admin', password: 'not the password' });
    assert.equal(posted.status, 401);
    assert.match(await posted.text(), /Wrong username or password/);
  });

  it('refuses a login post without the CSRF token or from another browser', async () => {
    const browser = new Browser();
    const url = client.buildAuthorizationUrl(editor, { redirect_uri: CB, scope: 'openid svc:maps:read',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
    const login = await browser.follow(url, CB);
    const html = await login.res.text();
    const forged = await browser.submit(login.url, html, '/login', { username: 'admin', password: ADMIN_PASSWORD, csrf: 'forged' });
    assert.equal(forged.status, 400);
    const elsewhere = await new Browser().submit(login.url, html, '/login', { username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(elsewhere.status, 400);
    // The genuine post still works: nothing above consumed the interaction.
    const genuine = await browser.submit(login.url, html, '/login', { username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(genuine.status, 303);
  });

  it('a password change or deletion revokes the user\'s access tokens at once', async () => {
    const users = new UserDirectory(srv.store, () => new Date(), TEST_PASSWORD_COST);
    await users.create({ username: 'temp', password: 'temporary password', scope: ['svc:maps:read'] });
    const first = await codeFlow({ config: editor, redirectUri: CB, scope: 'openid svc:maps:read', username: 'temp', password: 'temporary password' });
    assert.equal((await api(srv, first.tokens.access_token)).status, 200);
    await users.setPassword('temp', 'another temporary password');
    assert.equal((await api(srv, first.tokens.access_token)).status, 401);
    const second = await codeFlow({ config: editor, redirectUri: CB, scope: 'openid svc:maps:read', username: 'temp', password: 'another temporary password' });
    assert.equal((await api(srv, second.tokens.access_token)).status, 200);
    await users.remove('temp');
    assert.equal((await api(srv, second.tokens.access_token)).status, 401);
  });
});

describe('built-in provider: client credentials', () => {
  let srv: Running;
  before(async () => { srv = await startServer(oidcSettings()); });
  after(() => srv.stop());

  it('issues a JWT access token limited to the client\'s scopes; the API accepts it', async () => {
    const robot = await discover(`${srv.baseUrl}/oidc`, 'robot', 'robot secret value');
    const tokens = await client.clientCredentialsGrant(robot, { scope: 'svc:maps:read svc:maps:publish svc:admin' });
    assert.equal(tokens.scope, 'svc:maps:read svc:maps:publish');
    assert.equal(tokens.refresh_token, undefined);
    const me = await api(srv, tokens.access_token);
    assert.deepEqual(await me.json(), { username: 'robot', name: 'robot', email: '', scope: ['svc:maps:read', 'svc:maps:publish'] });
  });

  it('refuses a wrong secret and a client not allowed the grant', async () => {
    const wrong = await discover(`${srv.baseUrl}/oidc`, 'robot', 'not the secret');
    await assert.rejects(client.clientCredentialsGrant(wrong, { scope: 'svc:maps:read' }), (e: { status?: number; cause?: Array<{ parameters?: { error?: string } }> }) => {
      assert.equal(e.status, 401);
      assert.equal(e.cause?.[0]?.parameters?.error, 'invalid_client');
      return true;
    });
    const web = await discover(`${srv.baseUrl}/oidc`, 'web', 'web secret value');
    await assert.rejects(client.clientCredentialsGrant(web, { scope: 'svc:maps:read' }), (e: { error_description?: string }) => {
      assert.equal(e.error_description, 'requested grant type is not allowed for this client');
      return true;
    });
  });
});

describe('built-in provider: keys and refresh tokens survive a restart', () => {
  it('an access token and a refresh token from before the restart still work', async () => {
    const first = await startServer(oidcSettings());
    const port = first.port;
    const editor = await discover(`${first.baseUrl}/oidc`, 'editor');
    const { tokens } = await codeFlow({ config: editor, redirectUri: CB, scope: 'openid svc:maps:read', username: 'admin', password: ADMIN_PASSWORD });
    await first.stop(false);
    const second = await startServer(oidcSettings(), { dir: first.dir, port });
    try {
      assert.equal((await api(second, tokens.access_token)).status, 200);
      const again = await discover(`${second.baseUrl}/oidc`, 'editor');
      const refreshed = await client.refreshTokenGrant(again, tokens.refresh_token!);
      assert.equal((await api(second, refreshed.access_token)).status, 200);
    } finally {
      await second.stop(true);
    }
  });
});

describe('built-in provider: login throttling', () => {
  it('the login form answers 429 with Retry-After once the failures are used up', async () => {
    const srv = await startServer({ ...oidcSettings(), auth: { ...oidcSettings().auth, loginThrottle: { maxFailures: 2 } } });
    try {
      const editor = await discover(`${srv.baseUrl}/oidc`, 'editor');
      const attempt = () => login({ config: editor, redirectUri: CB, scope: 'openid svc:maps:read', username: 'admin', password: 'wrong password' });
      assert.equal((await attempt()).posted.status, 401);
      assert.equal((await attempt()).posted.status, 401);
      const blocked = (await attempt()).posted;
      assert.equal(blocked.status, 429);
      assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
      assert.match(await blocked.text(), /too many failed login attempts/);
    } finally {
      await srv.stop();
    }
  });
});
