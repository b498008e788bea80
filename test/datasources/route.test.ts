// routes/datasources.ts: GET /api/v1/datasources/ on a tiny Hono app that
// registers its declaration (the full app registers the same one). Public: no token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Hono } from 'hono';
import type { AppEnv } from '../../auth/types.ts';
import { registerOperations } from '../../http/register.ts';
import { DATASOURCE_LIST } from '../../routes/datasources.ts';
import { endpoint, registryFor, tempDir, writeCsv, writeXlsx } from './helpers.ts';

let dir: string;
let cleanup: () => Promise<void>;
before(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeXlsx(dir, 'net.xlsx', [
    { name: 'Circuits', rows: [['source', 'destination'], ['a', 'b']] },
    { name: 'Nodes', rows: [['name', 'latitude', 'longitude'], ['a', 1, 2], ['b', 3, 4]] },
  ]);
  await writeCsv(dir, 'inline.csv', [['source', 'destination', 'source_latitude'], ['a', 'b', 'x']]);
});
after(() => cleanup());

describe('GET /api/v1/datasources/', () => {
  // The service's app is not strict about the trailing slash (server.ts): both spellings reach the one route.
  for (const strict of [false]) {
    for (const url of ['/api/v1/datasources/', '/api/v1/datasources']) {
      it(`answers ${url} without credentials (app strict: ${strict})`, async () => {
        const registry = registryFor(dir);
        const app = new Hono<AppEnv>({ strict });
        registerOperations(app, [DATASOURCE_LIST], { datasources: registry });
        const res = await app.request(url);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        const body = await res.json();
        assert.deepEqual(Object.keys(body), [endpoint('inline', 'inline'), endpoint('net', 'Circuits')]);
        assert.deepEqual(body, JSON.parse(JSON.stringify(await registry.list())));
        const entry = body[endpoint('net', 'Circuits')];
        assert.deepEqual(entry.context, { sheet_id: 'net', sheet_name: 'Circuits' });
        assert.equal(entry.recordCount, 1);
        assert.deepEqual(body[endpoint('inline', 'inline')].problems,
          [{ sheet: 'inline', row: 2, message: 'source "a": latitude "x" is not a number; row skipped' }]);
      });
    }
  }
});
