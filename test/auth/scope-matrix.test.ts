// The route x scope matrix (docs/api.md: Scopes): every route without a token (401, or
// success for the public ones), and with a token holding each single scope
// (success for the scope docs/api.md names, 403 insufficient_scope for the
// others; scopes are independent). A route the app does not serve yet (its
// notFound answer) is skipped with a reason, so the table shows what is left.
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ScopeKind } from '../../auth/types.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

const root = path.resolve(import.meta.dirname, '../..');
const KINDS: ScopeKind[] = ['read', 'write', 'publish', 'admin'];

interface Fixtures { mapId: string; datasetId: string; templateId: string; user: () => Promise<string> }

interface Row {
  method: string;
  /** The path as docs/api.md writes it; {placeholders} are filled from the fixtures. */
  path: string;
  scope: ScopeKind | null;
  /** Status on success. */
  ok: number;
  body?: (f: Fixtures) => Promise<unknown> | unknown;
}

const ENDPOINT = 'spreadsheet?sheet_id=rne-exchanges&sheet_name=rne-exchanges';
const mapBody = (f: Fixtures) => ({
  name: 'Matrix map',
  configuration: { initialViewStrategy: 'manual', viewport: { center: { lat: 40, lng: -95 }, zoom: 3 }, showLegend: false,
    layers: [{ name: 'core', color: '#1f77b4', datasetId: f.datasetId, layout: 'geographic', datatype: 'snapshot' }] },
  overrides: {},
});
const datasetBody = (filters: unknown[] = []) => ({
  name: 'Matrix dataset',
  query: { endpoint: ENDPOINT, filters, node_deduplication_field: 'name', node_group_criteria: null, node_group_layout: null },
});
const templateBody = { name: 'Matrix square', template: '<g data-width="10" data-height="10"><rect x="-5" y="-5" width="10" height="10"/></g>' };
const ALL_ROWS = [{ field: 'source', operator: 'like', value: [''] }];

const ROWS: Row[] = [
  // Maps
  { method: 'GET', path: '/api/v1/maps/', scope: 'read', ok: 200 },
  { method: 'GET', path: '/api/v1/map/id/{mapId}/', scope: 'read', ok: 200 },
  { method: 'POST', path: '/api/v1/map/', scope: 'write', ok: 201, body: mapBody },
  { method: 'PUT', path: '/api/v1/map/id/{mapId}/', scope: 'write', ok: 200, body: mapBody },
  { method: 'POST', path: '/api/v1/map/id/{mapId}/publish/', scope: 'publish', ok: 200 },
  { method: 'GET', path: '/api/v1/public/maps/', scope: null, ok: 200 },
  // Datasets
  { method: 'GET', path: '/api/v1/datasets/', scope: 'read', ok: 200 },
  { method: 'GET', path: '/api/v1/dataset/id/{datasetId}/', scope: 'read', ok: 200 },
  { method: 'POST', path: '/api/v1/dataset/', scope: 'write', ok: 201, body: () => datasetBody() },
  { method: 'PUT', path: '/api/v1/dataset/id/{datasetId}/', scope: 'write', ok: 200, body: () => datasetBody(ALL_ROWS) },
  // Templates
  { method: 'GET', path: '/api/v1/templates/', scope: 'read', ok: 200 },
  { method: 'GET', path: '/api/v1/template/id/{templateId}/', scope: 'read', ok: 200 },
  { method: 'POST', path: '/api/v1/template/', scope: 'write', ok: 201, body: () => templateBody },
  { method: 'PUT', path: '/api/v1/template/id/{templateId}/', scope: 'write', ok: 200, body: () => templateBody },
  // Output
  { method: 'GET', path: '/api/v1/output/dataset/{datasetId}/geographic/snapshot/json/', scope: 'read', ok: 200 },
  { method: 'GET', path: '/api/v1/output/map/{mapId}/', scope: 'write', ok: 200 },
  { method: 'GET', path: '/api/v1/output/map/{mapId}/svg/', scope: 'write', ok: 200 },
  { method: 'GET', path: '/api/v1/public/output/map/{mapId}/', scope: null, ok: 200 },
  { method: 'GET', path: '/api/v1/public/output/map/{mapId}/svg/', scope: null, ok: 200 },
  { method: 'PATCH', path: '/api/v1/output/map/', scope: 'write', ok: 200, body: mapBody },
  // Datasources
  { method: 'GET', path: '/api/v1/datasources/', scope: null, ok: 200 },
  // Users (basic backend)
  { method: 'GET', path: '/api/v1/current_user/', scope: 'read', ok: 200 },
  { method: 'GET', path: '/api/v1/user/', scope: 'admin', ok: 200 },
  { method: 'POST', path: '/api/v1/user', scope: 'admin', ok: 201,
    body: async (f) => ({ username: await f.user().then((u) => `${u}-new`), name: 'N', password: 'twelve chars', scope: ['svc:maps:read'] }) },
  { method: 'PUT', path: '/api/v1/user/{username}/', scope: 'admin', ok: 200, body: () => ({ name: 'Renamed', scope: ['svc:maps:read'] }) },
  { method: 'PUT', path: '/api/v1/user/{username}/set_password/', scope: 'admin', ok: 200, body: () => ({ password: 'another twelve' }) },
  { method: 'DELETE', path: '/api/v1/user/{username}/', scope: 'admin', ok: 200 },
  // Our addition beside publish (docs/api.md: Maps)
  { method: 'POST', path: '/api/v1/map/id/{mapId}/unpublish/', scope: 'publish', ok: 200 },
];

describe('route x scope matrix (docs/api.md)', () => {
  let t: TestApp;
  let dir: string;
  let admin: string;
  const single = {} as Record<ScopeKind, string>;
  const f = {} as Fixtures;
  let users = 0;
  const built = new Map<string, boolean>();

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mts-matrix-'));
    await mkdir(path.join(dir, 'sheets'), { recursive: true });
    await copyFile(path.join(root, 'data/sheets/rne-exchanges.csv'), path.join(dir, 'sheets/rne-exchanges.csv'));
    t = await makeTestApp({ dir });
    admin = await t.token();
    for (const kind of KINDS) single[kind] = await t.token(t.settings.auth.scopes[kind]);
    const create = async (url: string, json: unknown, key: string) => {
      const res = await t.request(url, { method: 'POST', token: admin, json });
      return res.status === 201 ? ((await res.json()) as Record<string, string>)[key] : '0000000';
    };
    f.templateId = await create('/api/v1/template/', templateBody, 'templateId');
    f.datasetId = await create('/api/v1/dataset/', datasetBody(), 'datasetId');
    await t.request(`/api/v1/dataset/id/${f.datasetId}/`, { method: 'PUT', token: admin, json: datasetBody(ALL_ROWS) });
    f.mapId = await create('/api/v1/map/', mapBody(f), 'mapId');
    await t.request(`/api/v1/map/id/${f.mapId}/publish/`, { method: 'POST', token: admin });
    // Each user-mutating request gets its own fresh account.
    f.user = async () => {
      const username = `matrix${++users}`;
      await t.request('/api/v1/user', { method: 'POST', token: admin, json: { username, password: 'twelve chars', scope: ['svc:maps:read'] } });
      return username;
    };
  });
  after(async () => {
    await t.close(false);
    await rm(dir, { recursive: true, force: true });
  });

  const send = async (row: Row, token?: string) => {
    let url = row.path.replace('{mapId}', f.mapId).replace('{datasetId}', f.datasetId).replace('{templateId}', f.templateId);
    if (url.includes('{username}')) url = url.replace('{username}', await f.user());
    const json = row.body ? await row.body(f) : undefined;
    return t.request(url, { method: row.method, token, ...(json !== undefined ? { json } : {}) });
  };
  /** A route the app does not have answers with the notFound handler's "no such route". */
  const isBuilt = async (row: Row) => {
    const key = `${row.method} ${row.path}`;
    if (!built.has(key)) {
      const res = await send(row, admin);
      const body = res.status === 404 ? await res.json().catch(() => ({})) as { detail?: string } : {};
      built.set(key, !(res.status === 404 && body.detail?.startsWith('no such route')));
    }
    return built.get(key)!;
  };

  for (const row of ROWS) {
    describe(`${row.method} ${row.path} (${row.scope ?? 'public'})`, () => {
      it('without a token', async (ctx) => {
        if (!(await isBuilt(row))) return ctx.skip('route not built yet');
        const res = await send(row);
        if (row.scope === null) {
          assert.equal(res.status, row.ok, await res.text());
        } else {
          assert.equal(res.status, 401);
          assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="map-topology-service"');
        }
      });
      for (const kind of KINDS) {
        const expectOk = row.scope === null || row.scope === kind;
        it(`with only the ${kind} scope: ${expectOk ? row.ok : 403}`, async (ctx) => {
          if (!(await isBuilt(row))) return ctx.skip('route not built yet');
          const res = await send(row, single[kind]);
          if (expectOk) {
            assert.equal(res.status, row.ok, await res.text());
          } else {
            assert.equal(res.status, 403, await res.text());
            const needed = t.settings.auth.scopes[row.scope!];
            assert.equal(res.headers.get('www-authenticate'), `Bearer realm="map-topology-service", error="insufficient_scope", scope="${needed}"`);
          }
        });
      }
    });
  }
});
