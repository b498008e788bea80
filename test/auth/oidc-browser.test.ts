// The built-in provider for browser apps, end to end on a real loopback
// server with openid-client: CORS on the token and revocation endpoints for
// the origins of each client's redirect URIs (as a browser enforces it),
// per-client default_scopes, one winner among parallel uses of a refresh
// token, the issuer and endpoint URLs pinned to server.baseUrl
// whatever the Host header, and the bounds on sign-in interactions and
// anonymous sessions (in number and lifetime, and never written to the data
// folder).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { oidcStorageOf, OIDC_STATE } from '../../auth/oidc/adapter.ts';
import { UserDirectory } from '../../auth/users.ts';
import { parseSettings, SettingsError, type SettingsInput } from '../../config/settings.ts';
import { createMemoryLogger } from '../../log.ts';
import { createApp } from '../../server.ts';
import { openFileStore } from '../../store/file.ts';
import { ADMIN_PASSWORD, TEST_PASSWORD_COST } from '../helpers/app.ts';
import { Browser, CB, codeFlow, discover, login, startServer, type Running } from './oidc-helpers.ts';

const READER_PASSWORD = 'reader password!';
/** The origin of CB: where the browser app of the `spa` client runs. */
const APP_ORIGIN = new URL(CB).origin;
const OTHER_APP = 'https://other-app.example.net';

type OidcInput = NonNullable<NonNullable<SettingsInput['auth']>['oidc']>;
const settingsWith = (oidc: Partial<OidcInput> = {}, server: SettingsInput['server'] = {}): SettingsInput => ({
  server,
  auth: {
    backend: 'oidc',
    oidc: {
      issuer: 'builtin',
      clients: [
        // Terranova's editor: public, code + PKCE, asks for `openid` only.
        { client_id: 'spa', redirect_uris: [CB], grant_types: ['authorization_code', 'refresh_token'],
          scope: 'svc:maps:read svc:maps:write svc:admin', default_scopes: 'svc:maps:read svc:maps:write' },
        // Defaults beyond its scope: never granted.
        { client_id: 'lean', redirect_uris: [CB], grant_types: ['authorization_code'],
          scope: 'svc:maps:read', default_scopes: 'svc:maps:read svc:maps:publish' },
        // Another browser app: its origin is not spa's.
        { client_id: 'other', redirect_uris: [`${OTHER_APP}/callback`], grant_types: ['authorization_code'], scope: 'svc:maps:read' },
        { client_id: 'robot', client_secret: 'robot secret value', grant_types: ['client_credentials'], scope: 'svc:maps:read' },
      ],
      ...oidc,
    },
  },
});

async function addReader(srv: Running) {
  await new UserDirectory(srv.store, () => new Date(), TEST_PASSWORD_COST).create({ username: 'reader', password: READER_PASSWORD, scope: ['svc:maps:read'] });
}

type Seen = { url: string; method: string; status: number; allowOrigin: string | null; vary: string | null; body: string };

/**
 * openid-client's requests as a page on `origin` makes them: with an Origin
 * header, and failing (as a browser's fetch does) when the answer does not
 * allow that origin. Every answer is recorded as the server sent it.
 */
function inBrowserAt(config: client.Configuration, origin: string) {
  const seen: Seen[] = [];
  config[client.customFetch] = async (url, options) => {
    const res = await fetch(url, { ...options, headers: { ...options.headers, origin } } as RequestInit);
    const allowOrigin = res.headers.get('access-control-allow-origin');
    seen.push({ url, method: options.method, status: res.status, allowOrigin, vary: res.headers.get('vary'), body: await res.clone().text() });
    if (allowOrigin !== origin && allowOrigin !== '*') throw new TypeError(`CORS: ${url} does not allow ${origin}`);
    return res;
  };
  return seen;
}

/** A request with any Host header (fetch will not send another Host). */
function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const preflight = (srv: Running, path: string, origin: string) => fetch(`${srv.baseUrl}${path}`, {
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
});

describe('built-in provider: CORS for browser apps', () => {
  let srv: Running;
  before(async () => { srv = await startServer(settingsWith()); });
  after(() => srv.stop());

  it('code + PKCE and refresh complete from the origin of the redirect URI, with its Access-Control-Allow-Origin', async () => {
    const spa = await discover(`${srv.baseUrl}/oidc`, 'spa');
    const seen = inBrowserAt(spa, APP_ORIGIN);
    const { tokens } = await codeFlow({ config: spa, redirectUri: CB, scope: 'openid offline_access svc:maps:read',
      username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(tokens.scope, 'svc:maps:read');
    const exchange = seen.find((s) => s.url === `${srv.baseUrl}/oidc/token`);
    assert.equal(exchange?.status, 200);
    assert.equal(exchange?.allowOrigin, APP_ORIGIN);
    assert.match(exchange?.vary ?? '', /origin/i);
    const refreshed = await client.refreshTokenGrant(spa, tokens.refresh_token!);
    assert.ok(refreshed.access_token);
    assert.equal(seen.at(-1)?.allowOrigin, APP_ORIGIN);
  });

  for (const [what, origin] of [['an unrelated origin', 'https://evil.example'], ["another client's origin", OTHER_APP]]) {
    it(`refuses the token request from ${what}: invalid_request, no Access-Control-Allow-Origin`, async () => {
      const spa = await discover(`${srv.baseUrl}/oidc`, 'spa');
      const seen = inBrowserAt(spa, origin);
      await assert.rejects(codeFlow({ config: spa, redirectUri: CB, scope: 'openid svc:maps:read', username: 'admin', password: ADMIN_PASSWORD }),
        (e: Error) => e instanceof TypeError && /^CORS: /.test(e.message));
      const exchange = seen.find((s) => s.url === `${srv.baseUrl}/oidc/token`);
      assert.equal(exchange?.status, 400);
      assert.equal(exchange?.allowOrigin, null);
      assert.equal(JSON.parse(exchange!.body).error, 'invalid_request');
    });
  }

  it('the client of that other origin is served from it', async () => {
    // Same exchange as above, for the client whose redirect URI is on OTHER_APP: only the code is wrong here.
    const res = await fetch(`${srv.baseUrl}/oidc/token`, {
      method: 'POST', headers: { origin: OTHER_APP, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'other', code: 'nope', code_verifier: 'x'.repeat(43), redirect_uri: `${OTHER_APP}/callback` }),
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json() as { error: string }).error, 'invalid_grant');
    assert.equal(res.headers.get('access-control-allow-origin'), OTHER_APP);
  });

  it('preflight of the token and revocation endpoints: allowed for a client origin, not for another', async () => {
    for (const path of ['/oidc/token', '/oidc/token/revocation']) {
      const ok = await preflight(srv, path, APP_ORIGIN);
      assert.equal(ok.status, 204, path);
      assert.equal(ok.headers.get('access-control-allow-origin'), APP_ORIGIN, path);
      assert.match(ok.headers.get('access-control-allow-methods') ?? '', /POST/, path);
      assert.match(ok.headers.get('access-control-allow-headers') ?? '', /content-type/i, path);
      const refused = await preflight(srv, path, 'https://evil.example');
      assert.equal(refused.headers.get('access-control-allow-origin'), null, path);
    }
  });

  it('revocation from the app origin is allowed; from another origin it is refused', async () => {
    const post = (origin: string) => fetch(`${srv.baseUrl}/oidc/token/revocation`, {
      method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'spa', token: 'not-a-token' }),
    });
    const ok = await post(APP_ORIGIN);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), APP_ORIGIN);
    const refused = await post('https://evil.example');
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
  });
});

describe('built-in provider: default_scopes', () => {
  let srv: Running;
  before(async () => {
    srv = await startServer(settingsWith());
    await addReader(srv);
  });
  after(() => srv.stop());

  it('a client asking only for openid gets its default scopes', async () => {
    const spa = await discover(`${srv.baseUrl}/oidc`, 'spa');
    const { tokens } = await codeFlow({ config: spa, redirectUri: CB, scope: 'openid', username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(tokens.scope, 'svc:maps:read svc:maps:write');
    assert.equal(decodeJwt(tokens.access_token).scope, 'svc:maps:read svc:maps:write');
    const me = await fetch(`${srv.baseUrl}/api/v1/current_user/`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.deepEqual((await me.json() as { scope: string[] }).scope, ['svc:maps:read', 'svc:maps:write']);
  });

  it('never a default scope the user lacks; the consent page lists it as not granted', async () => {
    const spa = await discover(`${srv.baseUrl}/oidc`, 'spa');
    const { posted, pageUrl, browser, verifier, state } = await login({ config: spa, redirectUri: CB, scope: 'openid',
      username: 'reader', password: READER_PASSWORD });
    const consent = await browser.follow(new URL(posted.headers.get('location')!, pageUrl), CB);
    const html = await consent.res.text();
    assert.match(html, /Not granted[\s\S]*svc:maps:write/);
    const confirmed = await browser.submit(consent.url, html, '/confirm');
    const back = await browser.follow(new URL(confirmed.headers.get('location')!, consent.url), CB);
    const tokens = await client.authorizationCodeGrant(spa, back.url, { pkceCodeVerifier: verifier, expectedState: state });
    assert.equal(tokens.scope, 'svc:maps:read');
  });

  it('never a default scope beyond the client\'s scope', async () => {
    const lean = await discover(`${srv.baseUrl}/oidc`, 'lean');
    const { tokens } = await codeFlow({ config: lean, redirectUri: CB, scope: 'openid', username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(tokens.scope, 'svc:maps:read');
  });

  it('a request naming an API scope gets what it names, not the defaults', async () => {
    const spa = await discover(`${srv.baseUrl}/oidc`, 'spa');
    const { tokens } = await codeFlow({ config: spa, redirectUri: CB, scope: 'openid svc:admin', username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(tokens.scope, 'svc:admin');
  });

  it('default_scopes naming a scope not under auth.scopes stops the start', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mts-test-'));
    const store = await openFileStore(dir);
    try {
      const bad = settingsWith({ clients: [{ client_id: 'x', redirect_uris: [CB], scope: 'svc:maps:read', default_scopes: 'svc:maps:read maps:everything' }] });
      await assert.rejects(createApp({ settings: parseSettings(bad, {}, dir), store, log: createMemoryLogger() }),
        (e: Error) => e instanceof SettingsError && /^auth\.oidc\.clients \(x\): default_scopes .*maps:everything/.test(e.message));
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('built-in provider: refresh token rotation', () => {
  let srv: Running;
  before(async () => { srv = await startServer(settingsWith()); });
  after(() => srv.stop());

  const outcomes = async (attempts: Array<Promise<unknown>>) => {
    const settled = await Promise.allSettled(attempts);
    const errors = settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason as { error?: string });
    return { won: settled.filter((s) => s.status === 'fulfilled').length, errors: errors.map((e) => e.error ?? String(e)) };
  };

  it('10 parallel refreshes with one refresh token: exactly one succeeds, the others invalid_grant', async () => {
    const spa = await discover(`${srv.baseUrl}/oidc`, 'spa');
    const { tokens } = await codeFlow({ config: spa, redirectUri: CB, scope: 'openid offline_access', username: 'admin', password: ADMIN_PASSWORD });
    assert.ok(tokens.refresh_token);
    const results: client.TokenEndpointResponse[] = [];
    const { won, errors } = await outcomes(Array.from({ length: 10 }, () =>
      client.refreshTokenGrant(spa, tokens.refresh_token!).then((t) => void results.push(t))));
    assert.equal(won, 1);
    assert.deepEqual(errors, Array(9).fill('invalid_grant'));
    // The nine were reuse of a rotated token: as for any reuse, the grant is revoked, the winner's new token with it.
    await assert.rejects(client.refreshTokenGrant(spa, results[0].refresh_token!), (e: { error?: string }) => e.error === 'invalid_grant');
  });
});

describe('built-in provider: issuer and URLs from server.baseUrl, never the Host header', () => {
  it('discovery, sign-in redirects and token iss ignore a spoofed Host and X-Forwarded-* headers', async () => {
    const srv = await startServer(settingsWith());
    try {
      const issuer = `${srv.baseUrl}/oidc`;
      const spoofed = { host: 'evil.example:666', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
      const res = await rawRequest(`${issuer}/.well-known/openid-configuration`, { headers: spoofed });
      assert.equal(res.status, 200);
      const meta = JSON.parse(res.body) as Record<string, unknown>;
      assert.equal(meta.issuer, issuer);
      for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'revocation_endpoint', 'end_session_endpoint', 'pushed_authorization_request_endpoint']) {
        assert.ok(String(meta[key]).startsWith(`${issuer}/`), `${key}: ${meta[key]}`);
      }

      const token = await rawRequest(`${issuer}/token`, {
        method: 'POST',
        headers: { ...spoofed, authorization: `Basic ${Buffer.from('robot:robot secret value').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&scope=svc%3Amaps%3Aread',
      });
      assert.equal(token.status, 200, token.body);
      assert.equal(decodeJwt(JSON.parse(token.body).access_token).iss, issuer);

      // The sign-in: after the login form, the provider sends the browser back to its own absolute URL.
      const spa = await discover(issuer, 'spa');
      const browser = new Browser();
      const authUrl = client.buildAuthorizationUrl(spa, { redirect_uri: CB, scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
      const page = await browser.follow(authUrl, CB);
      const form = [...(await page.res.text()).matchAll(/<input type="hidden" name="csrf" value="([^"]+)">/g)][0][1];
      const posted = await rawRequest(`${page.url.href}/login`, {
        method: 'POST',
        headers: { ...spoofed, cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: form, username: 'admin', password: ADMIN_PASSWORD }).toString(),
      });
      assert.equal(posted.status, 303);
      assert.ok(posted.headers.location?.startsWith(`${issuer}/auth/`), posted.headers.location);
    } finally {
      await srv.stop();
    }
  });

  it('with server.trustProxy the endpoints follow X-Forwarded-Proto/-Host, and baseUrl where the proxy sends none', async () => {
    const srv = await startServer(settingsWith({}, { trustProxy: true }));
    try {
      const issuer = `${srv.baseUrl}/oidc`;
      const proxied = await rawRequest(`${issuer}/.well-known/openid-configuration`,
        { headers: { host: 'internal:8080', 'x-forwarded-host': 'maps.example.net', 'x-forwarded-proto': 'https' } });
      const meta = JSON.parse(proxied.body) as Record<string, string>;
      assert.equal(meta.issuer, issuer);
      assert.equal(meta.token_endpoint, 'https://maps.example.net/oidc/token');
      const bare = JSON.parse((await rawRequest(`${issuer}/.well-known/openid-configuration`, { headers: { host: 'evil.example' } })).body) as Record<string, string>;
      assert.equal(bare.token_endpoint, `${issuer}/token`);
    } finally {
      await srv.stop();
    }
  });
});

describe('built-in provider: bounded sign-in interactions', () => {
  const MAX = 5;
  let srv: Running;
  let spa: client.Configuration;
  let stateWrites = 0;
  before(async () => {
    srv = await startServer(settingsWith({ maxInteractions: MAX }));
    spa = await discover(`${srv.baseUrl}/oidc`, 'spa');
    // Count writes of the provider's document (the spy only watches; the store does the work).
    const update = srv.store.update.bind(srv.store);
    srv.store.update = ((collection, key, fn) => {
      if (key === OIDC_STATE) stateWrites++;
      return update(collection, key, fn);
    }) as typeof srv.store.update;
  });
  after(() => srv.stop());

  const authUrl = async () => client.buildAuthorizationUrl(spa, { redirect_uri: CB, scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
  /** An anonymous authorization request, as a crawler or attacker sends it: a new interaction each. */
  const anonymous = async () => {
    const res = await fetch(await authUrl(), { redirect: 'manual' });
    assert.equal(res.status, 303);
    assert.match(res.headers.get('location') ?? '', /^\/oidc\/interaction\//);
  };
  const interactions = () => oidcStorageOf(srv.store)!.counts().memory.Interaction ?? 0;

  it(`beyond maxInteractions (${MAX}) the oldest never shown go; sign-ins whose form was shown still sign in; the count stays bounded`, async () => {
    const old = new Browser();
    const oldPage = await old.follow(await authUrl(), CB);
    assert.equal(oldPage.res.status, 200);
    const oldHtml = await oldPage.res.text();
    for (let i = 0; i < 3 * MAX; i++) await anonymous();
    assert.equal(interactions(), MAX);

    const recent = new Browser();
    const recentPage = await recent.follow(await authUrl(), CB);
    const recentHtml = await recentPage.res.text();
    for (let i = 0; i < MAX - 1; i++) await anonymous();
    assert.equal(interactions(), MAX);

    // Anonymous starts do not push out a sign-in under way (its login form was shown), however old.
    const oldPosted = await old.submit(oldPage.url, oldHtml, '/login', { username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(oldPosted.status, 303);
    const posted = await recent.submit(recentPage.url, recentHtml, '/login', { username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(posted.status, 303);
  });

  it('anonymous requests never write the provider\'s document; anonymous sessions are bounded too', async () => {
    const before = stateWrites;
    for (let i = 0; i < 2 * MAX; i++) await anonymous();
    // A bare visit of the logout page makes oidc-provider save a session (for its form's token).
    for (let i = 0; i < 3 * MAX; i++) assert.equal((await fetch(`${srv.baseUrl}/oidc/session/end`)).status, 200);
    assert.equal(stateWrites, before);
    const counts = oidcStorageOf(srv.store)!.counts();
    assert.equal(counts.memory.Session, MAX);
    assert.equal(counts.persisted.Session ?? 0, 0);
  });

  it('an interaction lives interactionTtlSeconds', async () => {
    // Two seconds, not one: expiry is in whole seconds, so a lifetime of one could end before the page is fetched.
    const short = await startServer(settingsWith({ interactionTtlSeconds: 2 }));
    try {
      const shortSpa = await discover(`${short.baseUrl}/oidc`, 'spa');
      const browser = new Browser();
      const url = client.buildAuthorizationUrl(shortSpa, { redirect_uri: CB, scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
      const page = await browser.follow(url, CB);
      assert.equal(page.res.status, 200);
      await page.res.text();
      // Past 3 s the interaction of 2 s is over whatever the rounding: the clock every expiry reads (Date) moved on,
      // not waited for.
      mock.timers.enable({ apis: ['Date'], now: Date.now() });
      mock.timers.tick(3100);
      const gone = await browser.fetch(page.url);
      assert.equal(gone.status, 400);
      assert.match(await gone.text(), /expired/);
    } finally {
      mock.timers.reset();
      await short.stop();
    }
  });
});
