// The operation declarations (routes/index.ts, http/operation.ts) are the
// one list of routes: the router serves exactly the declared operations, no
// source file registers a route but the registrar (http/register.ts), every
// declared scope is the one the route enforces, and every declared route
// answers a CORS preflight. Adding a route means adding its declaration;
// these tests then cover it without a list of their own.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ScopeKind } from '../../auth/types.ts';
import { routerPath, type Operation } from '../../http/operation.ts';
import { OPERATIONS, RESOURCE_ROUTES, type RouteDeps } from '../../routes/index.ts';
import { body, start, type Started } from './fixtures.ts';

const GRAFANA = 'https://grafana.example.net';

let t: Started;
before(async () => {
  t = await start({ settings: { server: { cors: { origins: [GRAFANA] } } } });
});
after(() => t.close(true));

/** A request path for a declared one: each {parameter} filled with a value of the right shape. */
const SAMPLES: Record<string, string> = {
  mapId: 'AbCdEf1', datasetId: 'AbCdEf2', templateId: 'AbCdEf3', username: 'nobody', layout: 'geographic',
  datatype: 'snapshot', output_type: 'json', sheet_id: 'nothing', sheet_name: 'nothing', field: 'name',
};
const filled = (op: Operation<RouteDeps>) => op.path.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLES[name] ?? 'x');

/** A token holding another scope than the one an operation needs. */
const OTHER: Record<ScopeKind, ScopeKind> = { read: 'publish', write: 'read', publish: 'write', admin: 'read' };

const operations = () => OPERATIONS.filter((op) => !op.unlisted);
const label = (op: Operation<RouteDeps>) => `${op.method.toUpperCase()} ${op.path}`;

describe('the operation declarations', () => {
  it('are what the router serves: every declared route is registered, and every registered route declared', () => {
    // The middleware that runs on every path is not an operation.
    const served = new Set(t.app.routes.filter((r) => r.method !== 'ALL' && !r.path.endsWith('*')).map((r) => `${r.method} ${r.path}`));
    // An operation another one's route serves (servedBy) is served when that route is.
    const route = (op: Operation<RouteDeps>) =>
      `${op.method.toUpperCase()} ${routerPath(op.servedBy ? OPERATIONS.find((o) => o.path === op.servedBy)! : op)}`;
    const declared = new Set(OPERATIONS.map(route));
    for (const op of operations()) {
      if (op.servedBy) assert.ok(operations().some((o) => o.path === op.servedBy && o.method === op.method && !o.servedBy), `${label(op)}: servedBy names a declared route`);
    }
    assert.deepEqual([...declared].filter((r) => !served.has(r)), [], 'declared but not served');
    assert.deepEqual([...served].filter((r) => !declared.has(r)), [], 'served but not declared');
  });

  it('carry their handlers, but for one served by another\'s route', () => {
    for (const op of OPERATIONS) assert.ok(Boolean(op.handle) !== Boolean(op.servedBy), label(op));
    for (const kind of RESOURCE_ROUTES) {
      for (const op of kind.operations) assert.ok(operations().some((o) => label(o) === label(op)), `${label(op)} is in the table`);
    }
  });

  it('are the only way a route gets into the app: no source file makes a router or registers a route but the registrar', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    // The registrar; the assembly (the body limit middleware, the OIDC sub-app); the OpenID provider's own sub-app (not an API operation).
    const allowed = new Set(['http/register.ts', 'server.ts']);
    const skipped = new Set(['node_modules', 'test', 'bench', 'data', 'docs', 'cli']);
    const files = (dir: string): string[] => readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = path.join(dir, e.name);
      if (e.name.startsWith('.') || skipped.has(rel)) return [];
      return e.isDirectory() ? files(rel) : /\.ts$/.test(e.name) ? [rel] : [];
    });
    const registering = /new Hono\b|\.(?:route|on|get|post|put|patch|delete|all|use)\(\s*['"`]\//;
    const offenders = files('').filter((f) => !allowed.has(f) && !f.startsWith('auth/oidc/') && registering.test(readFileSync(path.join(root, f), 'utf8')));
    assert.deepEqual(offenders, []);
  });

  for (const op of operations()) {
    if (op.scope === null) {
      it(`${label(op)} answers without a token`, async () => {
        const res = await t.request(filled(op), { method: op.method.toUpperCase() });
        assert.ok(res.status !== 401 && res.status !== 403, `${res.status}`);
      });
      continue;
    }
    const needed = op.scope;
    it(`${label(op)} needs the ${needed} scope: 401 without a token, 403 with another scope`, async () => {
      const path = filled(op);
      const method = op.method.toUpperCase();
      const anonymous = await t.request(path, { method });
      assert.equal(anonymous.status, 401);
      const other = await t.request(path, { method, token: t[OTHER[needed] === 'admin' ? 'all' : OTHER[needed]] });
      assert.equal(other.status, 403);
      assert.equal((await body(other)).code, 'insufficient_scope');
      assert.match(other.headers.get('www-authenticate') ?? '', new RegExp(`scope="${t.settings.auth.scopes[needed]}"`));
    });
  }

  it('every declared route counts its requests under the route template the router matched for it', async () => {
    // The registrar notes the template of the route that runs (http/register.ts); the metrics must say what a
    // router match finds: its last route with a path of its own.
    const counted = async () => {
      const text = await (await t.request('/metrics')).text();
      const by = new Map<string, number>();
      for (const [, series, n] of text.matchAll(/^http_requests_total\{(method="\w+",route="[^"]*"),status="\d+"\} (\d+)$/gm)) by.set(series, (by.get(series) ?? 0) + Number(n));
      return by;
    };
    const template = (method: string, path: string) =>
      t.app.router.match(method, t.app.getPath(new Request(`http://localhost${path}`)))[0].map((m) => m[0][1].path).filter((p) => !p.endsWith('*')).at(-1);
    const expected = new Map([[`method="GET",route="${template('GET', '/metrics')}"`, 1]]); // the first scrape itself
    const before = await counted();
    for (const op of operations()) {
      const method = op.method.toUpperCase();
      const series = `method="${method}",route="${template(method, filled(op))}"`;
      expected.set(series, (expected.get(series) ?? 0) + 1);
      await (await t.request(filled(op), { method })).arrayBuffer();
    }
    const after = await counted();
    for (const [series, n] of expected) assert.equal((after.get(series) ?? 0) - (before.get(series) ?? 0), n, series);
  });

  it('every declared route answers a CORS preflight for a listed origin', async () => {
    for (const op of operations()) {
      const res = await t.request(filled(op), {
        method: 'OPTIONS',
        headers: { Origin: GRAFANA, 'Access-Control-Request-Method': op.method.toUpperCase(), 'Access-Control-Request-Headers': 'authorization' },
      });
      assert.equal(res.status, 204, label(op));
      // The public routes answer any origin ("*"), the rest the listed one.
      assert.ok([GRAFANA, '*'].includes(res.headers.get('access-control-allow-origin') ?? ''), label(op));
      assert.match(res.headers.get('access-control-allow-methods') ?? '', new RegExp(op.method.toUpperCase()), label(op));
    }
  });
});
