// POST /api/v1/auth/token (basic backend): form and JSON, errors, scope
// narrowing, identical answers for wrong username and wrong password.
import assert from 'node:assert/strict';
import { passwordChecks } from '../../auth/passwords.ts';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { ADMIN_PASSWORD, makeTestApp, type TestApp } from '../helpers/app.ts';

const ALL = 'svc:maps:read svc:maps:write svc:maps:publish svc:admin';

describe('POST /api/v1/auth/token', () => {
  let t: TestApp;
  before(async () => { t = await makeTestApp(); });
  after(() => t.close());

  const encodings: Array<[string, (fields: Record<string, string>) => RequestInit]> = [
    ['a form (RFC 6749)', (f) => ({ headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(f).toString() })],
    ['JSON', (f) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(f) })],
  ];
  for (const [what, encode] of encodings) {
    it(`issues a bearer JWT for ${what}`, async () => {
      const res = await t.request('/api/v1/auth/token', { method: 'POST',
        ...encode({ grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }) });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const body = await res.json() as Record<string, unknown>;
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, 3600);
      assert.equal(body.scope, ALL);
      const header = decodeProtectedHeader(body.access_token as string);
      assert.equal(header.alg, 'EdDSA');
      assert.equal(header.typ, 'at+jwt');
      const claims = decodeJwt(body.access_token as string);
      assert.equal(claims.sub, 'admin');
      assert.equal(claims.scope, ALL);
      assert.equal((claims.exp as number) - (claims.iat as number), 3600);
      const me = await t.request('/api/v1/current_user/', { token: body.access_token as string });
      assert.equal(me.status, 200);
    });
  }

  it('narrows the token to the requested scopes', async () => {
    const res = await t.request('/api/v1/auth/token', { method: 'POST',
      json: { grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD, scope: 'svc:maps:read  svc:maps:publish' } });
    const body = await res.json() as { scope: string; access_token: string };
    assert.equal(body.scope, 'svc:maps:read svc:maps:publish');
    assert.equal(decodeJwt(body.access_token).scope, 'svc:maps:read svc:maps:publish');
    assert.equal((await t.request('/api/v1/user/', { token: body.access_token })).status, 403);
  });

  it('400 invalid_scope for a scope the user does not hold', async () => {
    await t.request('/api/v1/user', { method: 'POST', token: await t.token(),
      json: { username: 'reader', password: 'reader password', scope: ['svc:maps:read'] } });
    const res = await t.request('/api/v1/auth/token', { method: 'POST',
      json: { grant_type: 'password', username: 'reader', password: 'reader password', scope: 'svc:maps:read svc:admin' } });
    assert.equal(res.status, 400);
    const body = await res.json() as { detail: string; error: string; error_description: string };
    assert.equal(body.error, 'invalid_scope');
    assert.match(body.error_description, /svc:admin/);
    assert.equal(body.detail, body.error_description);
  });

  it('400 unsupported_grant_type for another grant, whatever fields it carries', async () => {
    for (const fields of [
      { grant_type: 'client_credentials', username: 'admin', password: ADMIN_PASSWORD },
      { grant_type: 'PASSWORD', username: 'admin', password: ADMIN_PASSWORD },
      { grant_type: 'refresh_token', refresh_token: 'abc' },
      { grant_type: 'client_credentials', client_id: 'a', client_secret: 'b' },
    ]) {
      const res = await t.request('/api/v1/auth/token', { method: 'POST', json: fields });
      assert.equal(res.status, 400, fields.grant_type);
      assert.equal(((await res.json()) as { error: string }).error, 'unsupported_grant_type');
    }
  });

  // RFC 6749 5.2: a request the endpoint cannot read is 400 invalid_request, whatever is wrong with it.
  for (const [what, init] of [
    ['a missing field', { json: { grant_type: 'password', username: 'admin' } }],
    ['another content type', { headers: { 'Content-Type': 'text/plain' }, body: 'x' }],
    ['malformed JSON', { headers: { 'Content-Type': 'application/json' }, body: '{"grant_type":' }],
    ['no grant_type', { json: { username: 'admin', password: ADMIN_PASSWORD } }],
  ] as const) {
    it(`400 invalid_request for ${what}`, async () => {
      const res = await t.request('/api/v1/auth/token', { method: 'POST', ...init });
      assert.equal(res.status, 400);
      const body = await res.json() as { error: string; error_description: string };
      assert.equal(body.error, 'invalid_request');
      // RFC 6749 5.2: error_description is printable ASCII without " or \
      assert.match(body.error_description, /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
    });
  }
});

describe('POST /api/v1/auth/token: wrong username and wrong password', () => {
  let t: TestApp;
  before(async () => { t = await makeTestApp(); });
  after(() => t.close());
  let n = 0;
  const tryLogin = async (username: string, password: string) => {
    const res = await t.request('/api/v1/auth/token', { method: 'POST', remoteAddress: `192.0.2.${++n}`,
      json: { grant_type: 'password', username, password } });
    return { res, body: await res.text() };
  };

  it('answer identically: 400 invalid_grant (RFC 6749 5.2), same headers, same body', async () => {
    const user = await tryLogin('admin', 'not the password');
    const nobody = await tryLogin('nobody-here', 'not the password');
    for (const r of [user, nobody]) {
      assert.equal(r.res.status, 400);
      assert.equal(JSON.parse(r.body).error, 'invalid_grant');
    }
    assert.equal(user.body, nobody.body);
    assert.deepEqual([...user.res.headers].sort(), [...nobody.res.headers].sort());
  });

  it('cost the same work: one password hash at the same cost, for an unknown user too', async () => {
    // Counted, not timed (a wall-clock ratio failed under load): the answer's time is the scrypt run's,
    // so a wrong password and an unknown user must each run exactly one, with the same parameters.
    const verify = passwordChecks.verify;
    const runs: string[] = [];
    passwordChecks.verify = (password, stored) => {
      runs.push(stored.split('$').slice(0, 4).join('$')); // scrypt$N$r$p: the cost, not the salt or hash
      return verify(password, stored);
    };
    try {
      assert.equal((await tryLogin('admin', 'wrong')).res.status, 400);
      const wrongPassword = runs.splice(0);
      assert.equal((await tryLogin('ghost-user', 'wrong')).res.status, 400);
      const unknownUser = runs.splice(0);
      assert.equal(wrongPassword.length, 1);
      assert.match(wrongPassword[0], /^scrypt\$\d+\$\d+\$\d+$/);
      assert.deepEqual(unknownUser, wrongPassword);
    } finally {
      passwordChecks.verify = verify;
    }
  });
});
