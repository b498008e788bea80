// Bearer tokens of the basic backend: RFC 6750 answers, key kept across
// restarts, revocation, and the attacks of issue 3 (each one 401).
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { base64url, decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

const ISS = 'http://localhost:8080';
const AUD = 'map-topology-service';
const ALL = 'svc:maps:read svc:maps:write svc:maps:publish svc:admin';

/** A JWT assembled by hand, for headers and signatures jose refuses to produce. */
function rawJwt(header: object, payload: object, sign: (input: string) => string) {
  const input = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}`;
  return `${input}.${sign(input)}`;
}
const hs256 = (secret: string | Buffer) => (input: string) => createHmac('sha256', secret).update(input).digest('base64url');

describe('bearer tokens: RFC 6750 answers', () => {
  let t: TestApp;
  before(async () => { t = await makeTestApp(); });
  after(() => t.close());

  // RFC 6750 3.1: no credentials, or an authentication method the API does not take, get no error code.
  const none: Array<[string, string | undefined]> = [
    ['no credentials are sent', undefined],
    ['another scheme is sent (Basic)', 'Basic YWRtaW46cGFzc3dvcmQ='],
    ['another scheme is sent (Token)', 'Token abc'],
    ['a scheme that merely starts like Bearer is sent', 'Bearerabc'],
  ];
  for (const [what, header] of none) {
    it(`401 with a bare Bearer challenge when ${what}`, async () => {
      const res = await t.request('/api/v1/current_user/', { headers: header ? { Authorization: header } : {} });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="map-topology-service"');
      const problem = (await res.json()) as { code: string; detail: string };
      assert.equal(problem.code, 'unauthorized');
      assert.match(problem.detail, /Authorization: Bearer <token>/);
    });
  }
  const bad: Array<[string, string]> = [
    ['a garbage token', 'Bearer not-a-jwt'],
    ['a lower-case scheme with a garbage token', 'bearer not-a-jwt'],
    ['an empty bearer', 'Bearer '],
    ['two tokens', 'Bearer a.b.c d.e.f'],
  ];
  for (const [what, header] of bad) {
    it(`401 invalid_token for ${what}`, async () => {
      const res = await t.request('/api/v1/current_user/', { headers: { Authorization: header } });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer realm="map-topology-service", error="invalid_token"/);
    });
  }
  it('403 insufficient_scope naming the needed scope', async () => {
    const res = await t.request('/api/v1/user/', { token: await t.token('svc:maps:read svc:maps:write svc:maps:publish') });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="map-topology-service", error="insufficient_scope", scope="svc:admin"');
    assert.match(((await res.json()) as { detail: string }).detail, /svc:admin/);
  });
});

describe('bearer tokens: the signing key survives a restart', () => {
  it('a token issued before a restart still works after it', async () => {
    const first = await makeTestApp();
    const token = await first.token();
    await first.close(false);
    const second = await makeTestApp({ dir: first.dir });
    try {
      assert.equal((await second.request('/api/v1/current_user/', { token })).status, 200);
    } finally {
      await second.close(true);
    }
  });
});

describe('bearer tokens: attacks, each answered 401 invalid_token', () => {
  let t: TestApp;
  let clock = new Date();
  let signer: { jwk: JWK; sign: (claims: Record<string, unknown>, header?: Record<string, unknown>) => Promise<string> };
  let pwv: number;
  let uid: string;
  before(async () => {
    t = await makeTestApp({ now: () => clock });
    await t.token();
    // The service's own private key, read from the data folder: tokens it signs
    // with bad claims must fail on the claims, not the signature.
    const { jwk } = t.store.get<{ jwk: JWK }>('private', 'signing-key')!;
    const key = await importJWK(jwk, 'EdDSA');
    const admin = t.store.get<{ users: Array<{ passwordVersion: number; id: string }> }>('private', 'users')!.users[0];
    pwv = admin.passwordVersion;
    uid = admin.id;
    signer = {
      jwk,
      sign: (claims, header = {}) => new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: jwk.kid, typ: 'at+jwt', ...header }).sign(key),
    };
  });
  after(() => t.close());

  const now = () => Math.floor(clock.getTime() / 1000);
  const good = () => ({ sub: 'admin', uid, scope: ALL, pwv, iss: ISS, aud: AUD, iat: now(), exp: now() + 600 });

  it('control: a token with good claims signed by the service key is accepted', async () => {
    assert.equal((await t.request('/api/v1/current_user/', { token: await signer.sign(good()) })).status, 200);
  });

  const attacks: Array<[string, () => Promise<string>]> = [
    ['alg: none', async () => rawJwt({ alg: 'none', typ: 'JWT' }, good(), () => '')],
    ['alg: none with the real kid', async () => rawJwt({ alg: 'none', kid: signer.jwk.kid }, good(), () => '')],
    ['HS256 signed with the public key (raw bytes)', async () =>
      rawJwt({ alg: 'HS256', kid: signer.jwk.kid }, good(), hs256(Buffer.from(signer.jwk.x!, 'base64url')))],
    ['HS256 signed with the public key (JWK JSON)', async () => {
      const { d: _d, ...pub } = signer.jwk;
      return rawJwt({ alg: 'HS256', kid: signer.jwk.kid }, good(), hs256(JSON.stringify(pub)));
    }],
    ['HS256 signed with a guessed secret', async () => rawJwt({ alg: 'HS256', typ: 'JWT' }, good(), hs256('secret'))],
    ['expired', async () => signer.sign({ ...good(), iat: now() - 7200, exp: now() - 3600 })],
    ['no exp claim', async () => { const { exp: _e, ...c } = good(); return signer.sign(c); }],
    ['nbf in the future', async () => signer.sign({ ...good(), nbf: now() + 3600 })],
    ['wrong iss', async () => signer.sign({ ...good(), iss: 'https://evil.example' })],
    ['wrong aud', async () => signer.sign({ ...good(), aud: 'some-other-api' })],
    ['tampered payload (scope raised, signature kept)', async () => {
      const reader = await t.token('svc:maps:read');
      const [h, , s] = reader.split('.');
      const claims = { ...decodeJwt(reader), scope: ALL };
      return `${h}.${base64url.encode(JSON.stringify(claims))}.${s}`;
    }],
    ['unknown kid (another key)', async () => {
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      return new SignJWT(good()).setProtectedHeader({ alg: 'EdDSA', kid: 'attacker-key' }).sign(privateKey);
    }],
    ['the real kid but signed by another key', async () => {
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      return new SignJWT(good()).setProtectedHeader({ alg: 'EdDSA', kid: signer.jwk.kid }).sign(privateKey);
    }],
    ['a key embedded in the header (jwk)', async () => {
      const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      return new SignJWT(good()).setProtectedHeader({ alg: 'EdDSA', jwk: await exportJWK(publicKey) }).sign(privateKey);
    }],
    ['a key referenced by the header (jku)', async () => {
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      return new SignJWT(good()).setProtectedHeader({ alg: 'EdDSA', kid: 'k', jku: 'http://127.0.0.1:9/jwks.json' }).sign(privateKey);
    }],
    ['RS256 with an attacker key', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const key = await importJWK(privateKey.export({ format: 'jwk' }) as JWK, 'RS256');
      return new SignJWT(good()).setProtectedHeader({ alg: 'RS256', kid: signer.jwk.kid }).sign(key);
    }],
    ['a stale password version', async () => signer.sign({ ...good(), pwv: pwv - 1 })],
    ['a user that does not exist', async () => signer.sign({ ...good(), sub: 'ghost' })],
    ['another account\'s id', async () => signer.sign({ ...good(), uid: 'someone-else' })],
  ];
  for (const [what, make] of attacks) {
    it(what, async () => {
      const res = await t.request('/api/v1/current_user/', { token: await make() });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    });
  }

  it('a token stops working once it expires, also after a first successful use', async () => {
    const token = await t.token('svc:maps:read');
    assert.equal((await t.request('/api/v1/current_user/', { token })).status, 200);
    clock = new Date(clock.getTime() + 3601_000);
    try {
      assert.equal((await t.request('/api/v1/current_user/', { token })).status, 401);
    } finally {
      clock = new Date();
    }
  });
});

describe('bearer tokens: revocation', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await makeTestApp();
    admin = await t.token();
    await t.request('/api/v1/user', { method: 'POST', token: admin,
      json: { username: 'judy', password: 'judy password', scope: ['svc:maps:read'] } });
  });
  after(() => t.close());

  it('a token from before a password change is 401, one from after works', async () => {
    const before = await t.token(undefined, 'judy', 'judy password');
    await t.request('/api/v1/user/judy/set_password/', { method: 'PUT', token: admin, json: { password: 'new judy password' } });
    assert.equal((await t.request('/api/v1/current_user/', { token: before })).status, 401);
    const fresh = await t.token(undefined, 'judy', 'new judy password');
    assert.equal((await t.request('/api/v1/current_user/', { token: fresh })).status, 200);
  });

  it('a deleted user\'s token is 401 at once', async () => {
    const token = await t.token(undefined, 'judy', 'new judy password');
    assert.equal((await t.request('/api/v1/user/judy/', { method: 'DELETE', token: admin })).status, 200);
    const res = await t.request('/api/v1/current_user/', { token });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  // A token in use is remembered (its signature, its header, its principal): every change to the account still counts at once.
  const inUse = async (username: string, scope = ['svc:maps:read', 'svc:admin']) => {
    assert.equal((await t.request('/api/v1/user', { method: 'POST', token: admin, json: { username, password: `${username} password`, scope } })).status, 201);
    const token = await t.token(undefined, username, `${username} password`);
    for (let i = 0; i < 3; i++) assert.equal((await t.request('/api/v1/current_user/', { token })).status, 200);
    return token;
  };
  const changes: Array<[string, (username: string) => Promise<Response>, number]> = [
    ['its password changed', (u) => t.request(`/api/v1/user/${u}/set_password/`, { method: 'PUT', token: admin, json: { password: 'another password' } }), 401],
    ['its user deleted', (u) => t.request(`/api/v1/user/${u}/`, { method: 'DELETE', token: admin }), 401],
    ['its user\'s scopes narrowed', (u) => t.request(`/api/v1/user/${u}/`, { method: 'PUT', token: admin, json: { scope: ['svc:maps:read'] } }), 403],
  ];
  for (const [what, change, status] of changes) {
    it(`a token in use is refused at once when ${what} (${status})`, async () => {
      const username = `holder${changes.findIndex(([w]) => w === what)}`;
      const token = await inUse(username);
      assert.equal((await t.request('/api/v1/user/', { token })).status, 200, 'admin scope before');
      assert.equal((await change(username)).status, 200);
      const res = await t.request('/api/v1/user/', { token });
      assert.equal(res.status, status);
      if (status === 401) assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    });
  }

  it('a user deleted and created again under the same name does not inherit old tokens', async () => {
    const create = () => t.request('/api/v1/user', { method: 'POST', token: admin,
      json: { username: 'kim', password: 'kim password', scope: ['svc:maps:read'] } });
    assert.equal((await create()).status, 201);
    const old = await t.token(undefined, 'kim', 'kim password');
    await t.request('/api/v1/user/kim/', { method: 'DELETE', token: admin });
    assert.equal((await create()).status, 201);
    assert.equal((await t.request('/api/v1/current_user/', { token: old })).status, 401);
  });
});
