// auth.oidc.issuer set to an external issuer: here a second instance of the
// service running the built-in provider on another loopback port. Discovery,
// JWKS (cached; a rotated key is picked up without restart), iss/aud/exp/nbf,
// scopes from scope or scp, current_user from claims, and token attacks.
import { TEST_PASSWORD_COST } from '../helpers/app.ts';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { base64url, decodeProtectedHeader, importJWK, SignJWT, type JWK } from 'jose';
import * as client from 'openid-client';
import { createAuth } from '../../auth/index.ts';
import { parseSettings } from '../../config/settings.ts';
import { createMemoryLogger } from '../../log.ts';
import { createMemoryStore } from '../../store/memory.ts';
import { OIDC_KEYS, rotateOidcKeys, type OidcKeys } from '../../auth/oidc/keys.ts';
import { UserDirectory } from '../../auth/users.ts';
import { openFileStore } from '../../store/file.ts';
import { CB, codeFlow, discover, oidcSettings, startServer, type Running } from './oidc-helpers.ts';

const external = (issuerServer: Running, extra: Record<string, unknown> = {}) => ({
  auth: { backend: 'oidc' as const, oidc: { issuer: `${issuerServer.baseUrl}/oidc`, audience: issuerServer.baseUrl, jwksCooldownSeconds: 0, ...extra } },
});
const call = (srv: Running, token: string, path = '/api/v1/current_user/') =>
  fetch(`${srv.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
const robotToken = async (issuer: Running, scope = 'svc:maps:read svc:maps:publish') =>
  (await client.clientCredentialsGrant(await discover(`${issuer.baseUrl}/oidc`, 'robot', 'robot secret value'), { scope })).access_token;

describe('external issuer: tokens of another instance\'s provider', () => {
  let issuer: Running;
  let api: Running;
  before(async () => {
    issuer = await startServer(oidcSettings());
    await new UserDirectory(issuer.store, () => new Date(), TEST_PASSWORD_COST).create({ username: 'noc.reader', name: 'NOC Reader', email: 'reader@noc.example', password: 'reader password!', scope: ['svc:maps:read'] });
    api = await startServer(external(issuer));
  });
  after(async () => {
    await api.stop();
    await issuer.stop();
  });

  it('accepts a client-credentials token; current_user comes from its claims', async () => {
    const res = await call(api, await robotToken(issuer));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { username: 'robot', name: 'robot', email: '', scope: ['svc:maps:read', 'svc:maps:publish'] });
  });

  it('accepts a user\'s code-flow token: preferred_username and the granted scopes', async () => {
    const editor = await discover(`${issuer.baseUrl}/oidc`, 'editor');
    const { tokens } = await codeFlow({ config: editor, redirectUri: CB, scope: 'openid svc:maps:read', username: 'noc.reader', password: 'reader password!' });
    const res = await call(api, tokens.access_token);
    assert.equal(res.status, 200);
    const me = await res.json() as Record<string, unknown>;
    assert.equal(me.username, 'noc.reader');
    assert.deepEqual(me.scope, ['svc:maps:read']);
  });

  it('403 insufficient_scope when the token lacks the scope; no user management, no local provider', async () => {
    const token = await robotToken(issuer, 'svc:maps:publish');
    const res = await call(api, token);
    assert.equal(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="svc:maps:read"/);
    for (const path of ['/api/v1/user/', '/oidc/.well-known/openid-configuration']) {
      assert.equal((await call(api, token, path)).status, 404, path);
    }
  });

  it('rejects a token for another audience', async () => {
    const other = await startServer(external(issuer, { audience: 'https://other-api.example' }));
    try {
      const res = await call(other, await robotToken(issuer));
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
    } finally {
      await other.stop();
    }
  });
});

describe('external issuer: scopes from scope or scp, and token attacks', () => {
  let issuer: Running;
  let api: Running;
  let signingJwk: JWK;
  before(async () => {
    issuer = await startServer(oidcSettings());
    api = await startServer(external(issuer));
    signingJwk = issuer.store.get<OidcKeys>('private', OIDC_KEYS)!.keys[0];
  });
  after(async () => {
    await api.stop();
    await issuer.stop();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const good = () => ({ sub: 'ext-user', preferred_username: 'ext.user', iss: `${issuer.baseUrl}/oidc`, aud: issuer.baseUrl, iat: now(), exp: now() + 300 });
  /** Signed with the issuer's real key: only the claims are wrong. */
  const sign = async (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: signingJwk.kid, ...header }).sign(await importJWK(signingJwk, 'RS256'));
  const raw = (header: object, payload: object, sig: (input: string) => string) => {
    const input = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}`;
    return `${input}.${sig(input)}`;
  };

  it('reads scopes from a space-separated scope claim or from an scp array', async () => {
    for (const claims of [{ scope: 'svc:maps:read svc:maps:write' }, { scp: ['svc:maps:read', 'svc:maps:write'] }]) {
      const res = await call(api, await sign({ ...good(), ...claims }));
      assert.equal(res.status, 200, JSON.stringify(claims));
      assert.deepEqual((await res.json() as { scope: string[] }).scope, ['svc:maps:read', 'svc:maps:write']);
    }
  });

  const attacks: Array<[string, () => Promise<string>]> = [
    ['alg: none', async () => raw({ alg: 'none' }, { ...good(), scope: 'svc:maps:read' }, () => '')],
    ['HS256 signed with the issuer\'s public key (modulus)', async () =>
      raw({ alg: 'HS256', kid: signingJwk.kid }, { ...good(), scope: 'svc:maps:read' },
        (i) => createHmac('sha256', Buffer.from(signingJwk.n!, 'base64url')).update(i).digest('base64url'))],
    ['HS256 with a guessed secret', async () =>
      raw({ alg: 'HS256' }, { ...good(), scope: 'svc:maps:read' }, (i) => createHmac('sha256', 'secret').update(i).digest('base64url'))],
    ['expired', async () => sign({ ...good(), scope: 'svc:maps:read', iat: now() - 900, exp: now() - 600 })],
    ['nbf in the future', async () => sign({ ...good(), scope: 'svc:maps:read', nbf: now() + 600 })],
    ['no exp', async () => { const { exp: _e, ...c } = good(); return sign({ ...c, scope: 'svc:maps:read' }); }],
    ['wrong iss', async () => sign({ ...good(), scope: 'svc:maps:read', iss: 'https://evil.example/oidc' })],
    ['wrong aud', async () => sign({ ...good(), scope: 'svc:maps:read', aud: 'https://other.example' })],
    ['tampered payload', async () => {
      const [h, , s] = (await sign({ ...good(), scope: 'svc:maps:read' })).split('.');
      return `${h}.${base64url.encode(JSON.stringify({ ...good(), scope: 'svc:maps:read svc:admin' }))}.${s}`;
    }],
    ['unknown kid', async () => sign({ ...good(), scope: 'svc:maps:read' }, { kid: 'no-such-key' })],
  ];
  for (const [what, make] of attacks) {
    it(`401 for ${what}`, async () => {
      const res = await call(api, await make());
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    });
  }
});

describe('external issuer: key rotation and an issuer that is down', () => {
  it('picks up a rotated key without restart; keeps verifying with cached keys while the issuer is down', async () => {
    let issuer = await startServer(oidcSettings());
    const { port, dir } = issuer;
    const api = await startServer(external(issuer));
    try {
      const before = await robotToken(issuer);
      assert.equal((await call(api, before)).status, 200);

      // Rotate the issuer's keys while it is stopped (it owns its data folder), then start it again.
      await issuer.stop(false);
      const store = await openFileStore(dir);
      const newKid = await rotateOidcKeys(store);
      await store.close();
      issuer = await startServer(oidcSettings(), { dir, port });

      const after = await robotToken(issuer);
      assert.equal(decodeProtectedHeader(after).kid, newKid);
      assert.notEqual(decodeProtectedHeader(before).kid, newKid);
      assert.equal((await call(api, after)).status, 200, 'new key picked up');
      assert.equal((await call(api, before)).status, 200, 'previous key still verifies');

      // The issuer goes away: keys already fetched keep working.
      await issuer.stop(false);
      assert.equal((await call(api, after)).status, 200);
      // A fresh instance that never reached the issuer answers 503, not 401.
      const fresh = await startServer(external({ baseUrl: `http://127.0.0.1:${port}` } as Running));
      try {
        const res = await call(fresh, after);
        assert.equal(res.status, 503);
        assert.match((await res.json() as { detail: string }).detail, /discovery document/);
      } finally {
        await fresh.stop();
      }
    } finally {
      await api.stop();
      await issuer.stop(true).catch(() => undefined);
    }
  });
});

describe('external issuer: settings', () => {
  it('refuses to start with a plain-http issuer that is not on this machine', async () => {
    const settings = parseSettings({ auth: { backend: 'oidc', oidc: { issuer: 'http://idp.example.net/realms/noc' } } });
    await assert.rejects(createAuth({ settings, store: createMemoryStore(), now: () => new Date(), log: createMemoryLogger() }),
      /auth\.oidc\.issuer must be an https URL/);
  });
});
