// http/parameters.ts through the registrar: each declared path and query
// parameter is parsed with its schema before the handler runs. A bad one is
// answered (404 for a path value that names nothing, 400 naming a query
// parameter) without the handler running; a good one reaches the handler as
// its schema's output (a number stays a number).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv } from '../../auth/types.ts';
import { errorHandler } from '../../http/on-error.ts';
import { declarer, queryParam } from '../../http/operation.ts';
import { registerOperations } from '../../http/register.ts';
import { createMemoryLogger } from '../../log.ts';
import { idParamSchema } from '../../schema/common.ts';
import { LimitParamSchema, OneVersionParamSchema } from '../../schema/list.ts';

const route = declarer<{ calls: string[] }>();
const kind = v.picklist(['a', 'b'], 'no such kind');
const OPS = [
  route({
    method: 'get', path: '/item/{itemId}/{kind}/', tag: 't', summary: 'echo', scope: null, answers: { 200: { description: 'json' } },
    pathParams: { itemId: idParamSchema('item'), kind },
    query: [
      queryParam({ name: 'version', schema: OneVersionParamSchema }),
      queryParam({ name: 'limit', schema: LimitParamSchema, blankIsAbsent: true }),
      queryParam({ name: 'tag', schema: v.pipe(v.string(), v.maxLength(3, 'too long')), list: true, commas: true }),
      queryParam({ name: 'template', schema: idParamSchema('template'), names: true }),
    ],
    handle: ({ calls }) => (c, { params, query }) => {
      calls.push(c.req.path);
      // Typed: the version is a number or 'latest', the limit a number, the tags strings.
      const version: 'latest' | number | undefined = query.version;
      const limit: number | undefined = query.limit;
      const tags: readonly string[] = query.tag;
      return c.json({ itemId: params.itemId, kind: params.kind, version: version ?? null, limit: limit ?? null, tags, template: query.template ?? null });
    },
  }),
  route({
    method: 'post', path: '/revert/', tag: 't', summary: 'required', scope: null, answers: { 200: { description: 'json' } },
    query: [queryParam({ name: 'version', schema: v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number)), required: true })],
    handle: ({ calls }) => (c, { query }) => {
      calls.push(c.req.path);
      const version: number = query.version;
      return c.json({ version });
    },
  }),
];

function appWith() {
  const calls: string[] = [];
  const app = new Hono<AppEnv>({ strict: false });
  app.onError(errorHandler(createMemoryLogger()));
  registerOperations(app, OPS, { calls });
  return { app, calls };
}

describe('declared parameters reach the handler typed', () => {
  const cases: Array<[string, string, Record<string, unknown>]> = [
    ['no query string', '/item/abc1234/a/', { itemId: 'abc1234', kind: 'a', version: null, limit: null, tags: [], template: null }],
    ['a version number', '/item/abc1234/b/?version=3', { version: 3 }],
    ['latest', '/item/abc1234/b/?version=latest', { version: 'latest' }],
    ['a count as a number', '/item/abc1234/a/?limit=7', { limit: 7 }],
    ['an empty value counted as absent', '/item/abc1234/a/?limit=', { limit: null }],
    ['a list, repeated and comma-separated', '/item/abc1234/a/?tag=x,y&tag=z', { tags: ['x', 'y', 'z'] }],
    ['a parameter the route does not declare, ignored', '/item/abc1234/a/?t=123&version=2', { version: 2 }],
    ['an ID in the query', '/item/abc1234/a/?template=tpl0001', { template: 'tpl0001' }],
  ];
  for (const [what, url, expected] of cases) {
    it(what, async () => {
      const { app, calls } = appWith();
      const res = await app.request(url);
      assert.equal(res.status, 200);
      const body = await res.json() as Record<string, unknown>;
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(body[key], value, key);
      assert.equal(calls.length, 1);
    });
  }

  it('a required parameter, given', async () => {
    const { app } = appWith();
    assert.deepEqual(await (await app.request('/revert/?version=4', { method: 'POST' })).json(), { version: 4 });
  });
});

describe('a bad declared parameter is answered before the handler runs', () => {
  const cases: Array<[string, string, number, RegExp, string | undefined]> = [
    ['a path ID of the wrong shape names nothing', '/item/abc/a/', 404, /no item with that ID/, undefined],
    ['a path value not among its choices', '/item/abc1234/c/', 404, /no such kind/, undefined],
    ['a malformed query value', '/item/abc1234/a/?version=first', 400, /invalid query parameter version="first"/, 'version'],
    ['a count that is not one', '/item/abc1234/a/?limit=-1', 400, /invalid query parameter limit/, 'limit'],
    ['one item of a list', '/item/abc1234/a/?tag=ok,toolong', 400, /invalid query parameter tag="toolong": too long/, 'tag'],
    ['a single parameter given twice', '/item/abc1234/a/?version=1&version=2', 400, /version may be given once/, 'version'],
    ['an ID in the query of the wrong shape', '/item/abc1234/a/?template=x', 404, /no template with that ID/, undefined],
  ];
  for (const [what, url, status, detail, named] of cases) {
    it(what, async () => {
      const { app, calls } = appWith();
      const res = await app.request(url);
      assert.equal(res.status, status);
      const body = await res.json() as { detail: string; errors?: Array<{ path: string }> };
      assert.match(body.detail, detail);
      if (named) assert.equal(body.errors?.[0]?.path, named);
      assert.deepEqual(calls, [], 'the handler did not run');
    });
  }

  it('a required parameter missing', async () => {
    const { app, calls } = appWith();
    const res = await app.request('/revert/', { method: 'POST' });
    assert.equal(res.status, 400);
    assert.match((await res.json() as { detail: string }).detail, /query parameter version is required/);
    assert.deepEqual(calls, []);
  });
});

describe('an operation served by another\'s route', () => {
  const serving = route({
    method: 'get', path: '/out/{id}/{a}/{b}/', tag: 't', summary: 'serving', scope: null, answers: { 200: { description: 'json' } },
    pathParams: { id: idParamSchema('thing'), a: v.picklist(['x', 'y'], 'no such a'), b: v.picklist(['1', '2'], 'no such b') },
    handle: () => (c, { params, served }) => c.json({ served: served?.path ?? null, params: served?.params ?? params }),
  });
  const served = route({
    method: 'get', path: '/out/{id}/diff/{a}/', tag: 't', summary: 'served', scope: null, answers: { 200: { description: 'json' } },
    pathParams: { id: idParamSchema('thing'), a: v.picklist(['x', 'y'], 'no such a') }, servedBy: '/out/{id}/{a}/{b}/',
  });
  const app = new Hono<AppEnv>({ strict: false });
  app.onError(errorHandler(createMemoryLogger()));
  registerOperations(app, [served, serving], { calls: [] });

  it('gets its own parameters, parsed with its own schemas', async () => {
    assert.deepEqual(await (await app.request('/out/abc1234/diff/y/')).json(), { served: '/out/{id}/diff/{a}/', params: { id: 'abc1234', a: 'y' } });
    const bad = await app.request('/out/abc1234/diff/z/');
    assert.equal(bad.status, 404);
    assert.match((await bad.json() as { detail: string }).detail, /no such a/);
  });

  it('leaves every other request to the serving operation', async () => {
    assert.deepEqual(await (await app.request('/out/abc1234/x/2/')).json(), { served: null, params: { id: 'abc1234', a: 'x', b: '2' } });
    assert.equal((await app.request('/out/abc1234/diff/2/')).status, 404);
  });
});
