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
