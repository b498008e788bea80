// http/peer-lookup.ts: with replicas, an operation whose path names a map,
// dataset or template by an ID memory has never heard of asks the store's
// database first and then runs once; a known ID, an ID of another shape and
// any other path run the handler at once, synchronously.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import type { AppEnv } from '../../auth/types.ts';
import { ServiceError } from '../../errors.ts';
import { errorHandler } from '../../http/on-error.ts';
import { declarer } from '../../http/operation.ts';
import type { Peers } from '../../http/peer-lookup.ts';
import { registerOperations } from '../../http/register.ts';
import { createMemoryLogger } from '../../log.ts';
import type { LogCollection } from '../../store/types.ts';

const route = declarer<{ known: Set<string> }>();
const answer = { 200: { description: 'text' } };
/** Answers 200 with the ID when memory knows it, 404 otherwise (as a resource route does). */
const byId = (param: string) => ({ known }: { known: Set<string> }) => (c: import('hono').Context<AppEnv>) => {
  const id = c.req.param(param) ?? '';
  if (!known.has(id)) throw new ServiceError('not_found', `no ${id}`);
  return c.text(id);
};
const OPS = [
  route({ method: 'get', path: '/api/v1/map/id/{mapId}/', tag: 't', summary: 'map', scope: null, answers: answer, handle: byId('mapId') }),
  route({ method: 'get', path: '/api/v1/public/output/map/{mapId}/svg/', tag: 't', summary: 'public', scope: null, answers: answer, handle: byId('mapId') }),
  route({ method: 'get', path: '/api/v1/output/dataset/{datasetId}/{layout}/{datatype}/', tag: 't', summary: 'dataset', scope: null, answers: answer, handle: byId('datasetId') }),
  route({ method: 'get', path: '/api/v1/user/{username}/', tag: 't', summary: 'user', scope: null, answers: answer, handle: byId('username') }),
];

/** A store whose database holds `inDatabase`; a lookup copies the asked ID into memory when it is there. */
function replica(inDatabase: string[], opts: { down?: boolean } = {}) {
  const known = new Set<string>(['Known01']);
  const asked: string[] = [];
  const peers: Peers = {
    versions: (_c: LogCollection, key: string) => (known.has(key) ? [1] : []),
    lookup: async (c: LogCollection, key: string) => {
      asked.push(`${c}/${key}`);
      if (opts.down) throw new Error('database out of reach');
      if (!inDatabase.includes(key)) return false;
      known.add(key);
      return true;
    },
  };
  const app = new Hono<AppEnv>({ strict: false });
  app.onError(errorHandler(createMemoryLogger()));
  registerOperations(app, OPS, { known }, { peers });
  return { app, asked };
}

describe('lookupUnknownIds', () => {
  const cases: { name: string; url: string; status: number; asked: string[]; down?: boolean }[] = [
    { name: 'an unknown map ID the database holds', url: '/api/v1/map/id/Unheard/', status: 200, asked: ['maps/Unheard'] },
    { name: 'a public picture of such a map', url: '/api/v1/public/output/map/Unheard/svg/', status: 200, asked: ['maps/Unheard'] },
    { name: 'a dataset output of such a dataset', url: '/api/v1/output/dataset/Unheard/logical/nodes/', status: 200, asked: ['datasets/Unheard'] },
    { name: 'an ID the database does not hold either', url: '/api/v1/map/id/Nowhere/', status: 404, asked: ['maps/Nowhere'] },
    { name: 'the database out of reach: memory answers', url: '/api/v1/map/id/Unheard/', status: 404, asked: ['maps/Unheard'], down: true },
    { name: 'a known ID: no lookup', url: '/api/v1/map/id/Known01/', status: 200, asked: [] },
    { name: 'an ID of another shape: no lookup', url: '/api/v1/map/id/Unheard-x/', status: 404, asked: [] },
    { name: 'a path naming no resource: no lookup', url: '/api/v1/user/Unheard/', status: 404, asked: [] },
  ];
  for (const { name, url, status, asked, down } of cases) {
    it(name, async () => {
      const r = replica(['Unheard'], { down });
      const res = await r.app.request(url);
      assert.equal(res.status, status, await res.text());
      assert.deepEqual(r.asked, asked);
    });
  }

  it('keeps a known ID\'s GET one synchronous handler (no promise to wait for)', () => {
    const { app } = replica([]);
    const res = app.fetch(new Request('http://x/api/v1/map/id/Known01/'));
    assert.ok(res instanceof Response, 'answered without a promise');
  });

  it('registers routes unchanged without a store that looks up', async () => {
    const app = new Hono<AppEnv>({ strict: false });
    app.onError(errorHandler(createMemoryLogger()));
    registerOperations(app, OPS, { known: new Set<string>() }, { peers: { versions: () => [] } });
    assert.equal((await app.request('/api/v1/map/id/Unheard/')).status, 404);
  });
});
