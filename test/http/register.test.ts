// http/register.ts: the one registrar. Each operation becomes one route from
// its declaration: the declared scope guards it, the declared body schema is
// what `input.body()` validates with, basicOnly operations exist only with
// local accounts, and a GET with nothing to wait for stays one synchronous
// handler (the fast path @hono/node-server sends without a promise).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv, ScopeKind } from '../../auth/types.ts';
import { ServiceError } from '../../errors.ts';
import { errorHandler } from '../../http/on-error.ts';
import { declarer } from '../../http/operation.ts';
import { registerOperations } from '../../http/register.ts';
import { createMemoryLogger } from '../../log.ts';
import { makeTestApp } from '../helpers/app.ts';

type Deps = { greeting: string };
const route = declarer<Deps>();
const Body = v.object({ name: v.pipe(v.string(), v.minLength(1)) });
const OPS = [
  route({ method: 'get', path: '/hello/{name}/', tag: 't', summary: 'hello', scope: null, answers: { 200: { description: 'text' } },
    handle: ({ greeting }) => (c) => c.text(`${greeting} ${c.req.param('name')}`) }),
  route({ method: 'post', path: '/named/', tag: 't', summary: 'named', scope: 'write', body: { name: 'Body', schema: Body }, answers: { 200: { description: 'text' } },
    handle: () => async (c, input) => c.text((await input.body()).name.toUpperCase()) }),
  route({ method: 'get', path: '/local/', tag: 't', summary: 'basic only', scope: null, basicOnly: true, answers: { 200: { description: 'text' } },
    handle: () => (c) => c.text('local') }),
  route({ method: 'get', path: '/files/{path}/', wide: ['path'], tag: 't', summary: 'wide', scope: null, answers: { 200: { description: 'text' } },
    handle: () => (c) => c.text(c.req.param('path') ?? '') }),
];

/** A guard that lets a request through when its X-Scope header names the scope. */
const guard = (scope: ScopeKind, handler: (c: import('hono').Context<AppEnv>) => Response | Promise<Response>) =>
  (c: import('hono').Context<AppEnv>) => {
    if (c.req.header('x-scope') !== scope) throw new ServiceError('insufficient_scope', `needs ${scope}`);
    return handler(c);
  };

function appWith(basic: boolean) {
  const app = new Hono<AppEnv>({ strict: false });
  app.onError(errorHandler(createMemoryLogger()));
  registerOperations(app, OPS, { greeting: 'hi' }, { guard, basic });
  return app;
}

describe('registerOperations', () => {
  it('registers each declared path, with and without its trailing slash', async () => {
    const app = appWith(false);
    for (const url of ['/hello/ann/', '/hello/ann']) assert.equal(await (await app.request(url)).text(), 'hi ann');
  });

  it('guards a declared scope, and hands the handler the body validated by the declared schema', async () => {
    const app = appWith(false);
    const post = (headers: Record<string, string>, body: unknown) =>
      app.request('/named/', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
    assert.equal((await post({}, { name: 'x' })).status, 403);
    assert.equal(await (await post({ 'x-scope': 'write' }, { name: 'ann' })).text(), 'ANN');
    const bad = await post({ 'x-scope': 'write' }, { name: '' });
    assert.equal(bad.status, 422);
    assert.equal((await bad.json()).code, 'validation_failed');
  });

  it('registers basicOnly operations only with local accounts', async () => {
    assert.equal((await appWith(false).request('/local/')).status, 404);
    assert.equal(await (await appWith(true).request('/local/')).text(), 'local');
  });

  it('lets a wide path parameter hold a slash', async () => {
    assert.equal(await (await appWith(false).request('/files/a/b/')).text(), 'a/b');
  });

  it('refuses a declaration it cannot register: no handler, or a scope without a guard', () => {
    const app = new Hono<AppEnv>();
    assert.throws(() => registerOperations(app, [{ ...OPS[0], handle: undefined }], { greeting: '' }), /without a handler/);
    assert.throws(() => registerOperations(app, [OPS[1]], { greeting: '' }), /needs a scope guard/);
  });
});

describe('the fast path', () => {
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  it('answers a GET of a known map with a token, and /healthz, without a promise', async () => {
    const token = await t.token();
    const created = await t.request('/api/v1/map/', { method: 'POST', token, json: { name: 'fast', configuration: { layers: [] } } });
    const { mapId } = await created.json() as { mapId: string };
    const get = () => t.app.fetch(new Request(`http://service.test/api/v1/map/id/${mapId}/`, { headers: { Authorization: `Bearer ${token}` } }));
    await get(); // the token verified once, the body serialized once
    const answer = get();
    assert.ok(!(answer instanceof Promise), 'a promise');
    assert.equal((answer as Response).status, 200);
    assert.ok(!(t.app.fetch(new Request('http://service.test/healthz')) instanceof Promise));
  });
});
