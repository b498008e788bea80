// The operation declarations (routes/api-operations.ts, routes/operation.ts)
// are the one list of routes: the router serves exactly the declared
// operations, every declared scope is the one the route enforces, and every
// declared route answers a CORS preflight. Adding a route means adding its
// declaration; these tests then cover it without a list of their own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ScopeKind } from '../../auth/types.ts';
import { operations, RESOURCE_ROUTES } from '../../routes/api-operations.ts';
import { routerPath, type Operation } from '../../routes/operation.ts';
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
const filled = (op: Operation) => op.path.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLES[name] ?? 'x');

/** A token holding another scope than the one an operation needs. */
const OTHER: Record<ScopeKind, ScopeKind> = { read: 'publish', write: 'read', publish: 'write', admin: 'read' };

const label = (op: Operation) => `${op.method.toUpperCase()} ${op.path}`;

describe('the operation declarations', () => {
  it('are what the router serves: every declared route is registered, and every registered route declared', () => {
    // The docs page's static assets and the middleware that runs on every path are not operations.
    const served = new Set(t.app.routes.filter((r) => r.method !== 'ALL' && !r.path.endsWith('*') && !r.path.startsWith('/docs/assets/'))
      .map((r) => `${r.method} ${r.path.replace(/\{[^}]*\}/g, '').replace(/(.)\/$/, '$1')}`));
    // An operation another one's route serves (servedBy) is served when that route is.
    const route = (op: Operation) => `${op.method.toUpperCase()} ${routerPath(op.servedBy ?? op.path)}`;
    const declared = new Set(operations().map(route));
    for (const op of operations()) {
      if (op.servedBy) assert.ok(operations().some((o) => o.path === op.servedBy && o.method === op.method && !o.servedBy), `${label(op)}: servedBy names a declared route`);
    }
    assert.deepEqual([...declared].filter((r) => !served.has(r)), [], 'declared but not served');
    assert.deepEqual([...served].filter((r) => !declared.has(r)), [], 'served but not declared');
  });

  it('declare the versioned resources\' operations with their handlers (the router registers those from the declaration)', () => {
    for (const kind of RESOURCE_ROUTES) {
      const handled = kind.operations.filter((op) => op.handle).map(label);
      assert.ok(handled.includes(`GET /api/v1/${kind.tag}/`) && handled.includes(`PUT ${kind.objectPath}`), kind.segment);
      for (const op of kind.operations) assert.ok(operations().some((o) => label(o) === label(op)), `${label(op)} is in the table`);
    }
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
