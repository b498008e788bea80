// The request log (routes/observe.ts) through HTTP, with the service's own
// logger (log.ts, pino) writing JSON lines or text: one line per request with
// its fields, a line per refused login, a 500's trace ID in its line and its
// answer, and never a token, a password or a sheet's contents.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseSettings } from '../../config/settings.ts';
import { createDatasources } from '../../datasources/index.ts';
import { createLogger, type LogFormat } from '../../log.ts';
import { ADMIN_PASSWORD, makeDemoApp, type TestApp } from '../helpers/app.ts';

const WRONG_PASSWORD = 'hunter2-never-in-a-log';
const QUERY_SECRET = 'query-secret-never-in-a-log';

/** A demo service whose log writes `format` lines into memory. */
async function logged(format: LogFormat, options: Parameters<typeof makeDemoApp>[0] = {}) {
  const lines: string[] = [];
  const log = Object.assign(createLogger({ format, sink: { write: (line) => void lines.push(line) } }), { lines });
  return { t: await makeDemoApp({ ...options, log }), lines };
}

type Entry = Record<string, unknown>;

describe('the request log, as JSON lines', () => {
  let t: TestApp;
  let lines: string[];
  let token: string;
  const entries = () => lines.map((l) => JSON.parse(l) as Entry);
  const requests = () => entries().filter((e) => e.msg === 'request');

  before(async () => {
    ({ t, lines } = await logged('json'));
    token = await t.token();
  });
  after(() => t.close());

  it('writes every line as one JSON object with time, level and msg', () => {
    assert.ok(lines.length > 0);
    for (const line of lines) {
      assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'), 'one line each');
      const e = JSON.parse(line) as Entry;
      assert.equal(typeof e.msg, 'string');
      assert.ok(['info', 'error'].includes(e.level as string), String(e.level));
      assert.ok(!Number.isNaN(Date.parse(e.time as string)), `an ISO time: ${e.time}`);
    }
  });

  it('gives each request one line: method, path, status, duration, user, client address and trace ID', async () => {
    const before = requests().length;
    const res = await t.request('/api/v1/maps/?limit=1', { token, remoteAddress: '192.0.2.7' });
    assert.equal(res.status, 200);
    const anonymous = await t.request('/api/v1/maps/');
    assert.equal(anonymous.status, 401);
    const [mine, theirs] = requests().slice(before);
    assert.deepEqual({ ...mine, time: undefined, ms: undefined, traceId: undefined }, {
      level: 'info', msg: 'request', method: 'GET', path: '/api/v1/maps/?limit=1', status: 200, user: 'admin', client: '192.0.2.7',
      time: undefined, ms: undefined, traceId: undefined,
    });
    assert.equal(typeof mine.ms, 'number');
    assert.match(mine.traceId as string, /^[0-9a-f-]{36}$/);
    assert.deepEqual([theirs.status, theirs.user], [401, null]);
    assert.notEqual(theirs.traceId, mine.traceId);
  });

  it('writes a line for a refused login with the username and the address, and no password', async () => {
    const res = await t.request('/api/v1/auth/token', {
      method: 'POST', json: { grant_type: 'password', username: 'admin', password: WRONG_PASSWORD }, remoteAddress: '198.51.100.9',
    });
    assert.equal(res.status, 400);
    const refused = entries().filter((e) => e.msg === 'login refused');
    assert.deepEqual(refused.at(-1), { ...refused.at(-1), username: 'admin', client: '198.51.100.9', reason: 'wrong username or password' });
  });

  it('masks secret query parameters in the path', async () => {
    await t.request(`/api/v1/public/maps/?access_token=${QUERY_SECRET}&limit=1`);
    assert.equal(requests().at(-1)?.path, '/api/v1/public/maps/?access_token=***&limit=1');
  });

  it('never logs a token, a password or the contents of a sheet', async () => {
    // A dataset update runs its query over the sheet: its rows pass through the service.
    const dataset = await (await t.request('/api/v1/dataset/id/A1PiupU/', { token })).json() as { name: string; query: unknown; results: Entry[] };
    const put = await t.request('/api/v1/dataset/id/A1PiupU/', { method: 'PUT', token, json: { name: dataset.name, query: dataset.query } });
    assert.equal(put.status, 200);
    const all = lines.join('');
    const cells = dataset.results.slice(0, 20).flatMap((r) => [r.name, r.source, r.destination]).filter((v): v is string => typeof v === 'string' && v.length > 3);
    assert.ok(cells.length > 0);
    for (const secret of [token, ADMIN_PASSWORD, WRONG_PASSWORD, QUERY_SECRET, ...cells]) {
      assert.ok(!all.includes(secret), `the log holds ${secret.slice(0, 20)}…`);
    }
  });
});

describe('an internal error in the log', () => {
  let t: TestApp;
  let lines: string[];
  before(async () => {
    // A datasource listing that fails unexpectedly: the one way to make a 500 from outside.
    const broken = () => {
      const real = createDatasources(parseSettings({ data: { dir: '/nonexistent' } }));
      return new Proxy(real, {
        get: (target, key) => (key === 'list' ? () => Promise.reject(new Error('the disk is on fire'))
          : typeof target[key as keyof typeof target] === 'function' ? (target[key as keyof typeof target] as (...a: unknown[]) => unknown).bind(target)
            : target[key as keyof typeof target]),
      });
    };
    ({ t, lines } = await logged('json', { datasources: broken() }));
  });
  after(() => t.close());

  it('carries the trace ID its answer shows, in the error line and the request line', async () => {
    const res = await t.request('/api/v1/datasources/');
    assert.equal(res.status, 500);
    const { traceId } = await res.json() as { traceId: string };
    const entries = lines.map((l) => JSON.parse(l) as Entry).filter((e) => e.traceId === traceId);
    assert.deepEqual(entries.map((e) => [e.level, e.msg]), [['error', 'internal error'], ['info', 'request']]);
    assert.match(entries[0].stack as string, /the disk is on fire/);
  });
});

describe('the request log, as text', () => {
  let t: TestApp;
  let lines: string[];
  before(async () => {
    ({ t, lines } = await logged('text'));
  });
  after(() => t.close());

  it('writes time, level, message and quoted fields; a crafted username cannot start a line of its own', async () => {
    await t.request('/api/v1/auth/token', { method: 'POST', json: { grant_type: 'password', username: 'eve\n2026-01-01T00:00:00.000Z INFO forged', password: WRONG_PASSWORD } });
    const refused = lines.filter((l) => l.includes('login refused'));
    assert.equal(refused.length, 1);
    assert.match(refused[0], /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO login refused username="eve\\n2026-01-01T00:00:00.000Z INFO forged" client="no-socket" reason="wrong username or password"\n$/);
    assert.ok(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n')));
    assert.match(lines.at(-1)!, /^\S+ INFO request method="POST" path="\/api\/v1\/auth\/token" status=400 ms=[\d.]+ user=null client=null traceId="[0-9a-f-]{36}"\n$/);
  });
});

describe('log.requests: false', () => {
  it('leaves the request lines out and keeps the rest', async () => {
    const { t, lines } = await logged('json', { settings: { log: { requests: false } } });
    try {
      await t.request('/api/v1/auth/token', { method: 'POST', json: { grant_type: 'password', username: 'admin', password: WRONG_PASSWORD } });
      const msgs = lines.map((l) => (JSON.parse(l) as Entry).msg);
      assert.ok(msgs.includes('login refused'));
      assert.ok(!msgs.includes('request'));
    } finally {
      await t.close();
    }
  });
});
