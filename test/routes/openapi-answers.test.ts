// The OpenAPI document against the routes' real answers. For every operation
// the document lists, the requests any route can be sent are sent (no token, a
// token without the scope, an unknown ID or path value, a malformed query
// parameter, a malformed, mistyped, invalid or oversized body, a conditional
// GET, a stale If-Match), then the answers that need particular data (a
// dataset in use, a sheet that is not there, a map whose layer cannot be
// drawn, …), then each write as it should succeed. Every answer must be one
// the document lists for that operation, with its `code` among the codes
// listed; and every status the document lists must have been answered, but
// for those that need a failing disk, a slow client or a bug (each of the
// disk's provoked once, on a representative route, at the end). What Node
// answers before any route (400, 431; 413 to a body) is asked of the listening service.
import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMemoryLogger } from '../../log.ts';
import { serve } from '../../server.ts';
import type { SyncFs } from '../../store/write-thread.mjs';
import { ADMIN_PASSWORD } from '../helpers/app.ts';
import { body, createMap, sampleMap, sampleTemplate, start, type Started } from './fixtures.ts';

const BODY_LIMIT = 64 * 1024;
/** Error codes no request can provoke here: a slow client, an unexpected failure, and what a failing or edited disk answers. */
const UNPROVOKABLE = new Set(['request_timeout', 'internal', 'storage_unavailable', 'changed_on_disk', 'resource_unavailable']);

const CSV = `${[
  'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude',
  'c1,CHIC-NEWY,CHIC,NEWY,100,41.88,-87.63,40.71,-74.01',
  'c2,CHIC-DENV,CHIC,DENV,40,41.88,-87.63,39.74,-104.99',
].join('\n')}\n`;
const NO_POSITIONS = 'source,destination\na,b\nb,c\n';

const endpoint = (sheet: string) => `spreadsheet?${new URLSearchParams({ sheet_id: sheet, sheet_name: sheet })}`;
const revision = (sheet: string) => ({
  name: `Circuits of ${sheet}`,
  query: { endpoint: endpoint(sheet), filters: [], node_deduplication_field: null, node_group_criteria: null, node_group_layout: null },
});
const layer = (extra: Record<string, unknown>) => ({ name: 'core', color: '#1f77b4', layout: 'geographic', ...extra });
const mapWith = (name: string, layers: unknown[]) => {
  const m = sampleMap(name);
  return { ...m, configuration: { ...m.configuration, layers } };
};

interface Op {
  key: string;
  method: string;
  path: string;
  spec: any;
}

interface Call {
  params?: Record<string, string>;
  query?: string;
  token?: string;
  headers?: Record<string, string>;
  body?: string;
  json?: unknown;
}

let t: Started;
let doc: any;
let ops: Op[];
const ids: Record<string, string> = {};
let viewer: string; // a token of a user with the read scope and no stored user data
/** `method path` -> statuses answered by the probes. */
const answered = new Map<string, Set<number>>();
const VIEWER_PASSWORD = 'a long enough viewer password';

before(async () => {
  t = await start({ settings: { server: { bodyLimitBytes: BODY_LIMIT }, auth: { loginThrottle: { maxFailures: 6, windowSeconds: 600 } } } });
  doc = await body(await t.request('/openapi.json'));
  ops = Object.entries(doc.paths).flatMap(([p, methods]: [string, any]) =>
    Object.entries(methods).map(([method, spec]) => ({ key: `${method} ${p}`, method, path: p, spec })));

  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'circuits.csv'), CSV);
  await writeFile(path.join(sheets, 'nopos.csv'), NO_POSITIONS);

  const post = async (url: string, json: unknown, status = 201) => {
    const res = await t.request(url, { method: 'POST', token: t.all, json });
    assert.equal(res.status, status, `${url}: ${await res.clone().text()}`);
    return body(res);
  };
  const put = async (url: string, json: unknown) => {
    const res = await t.request(url, { method: 'PUT', token: t.all, json });
    assert.equal(res.status, 200, `${url}: ${await res.clone().text()}`);
  };
  const dataset = async (sheet: string, run: boolean) => {
    const id = (await post('/api/v1/dataset/', revision(sheet))).datasetId as string;
    if (run) await put(`/api/v1/dataset/id/${id}/`, revision(sheet));
    return id;
  };
  const template = async () => {
    const id = (await post('/api/v1/template/', sampleTemplate())).templateId as string;
    await put(`/api/v1/template/id/${id}/`, sampleTemplate('Square 2'));
    return id;
  };
  const publishedMap = async (name: string, layers: unknown[]) => {
    const id = (await createMap(t, name, { configuration: mapWith(name, layers).configuration })).mapId as string;
    await post(`/api/v1/map/id/${id}/publish/`, undefined, 200);
    return id;
  };

  ids.dataset = await dataset('circuits', true); // what every probe names
  ids.usedDataset = await dataset('circuits', true); // drawn by the map below: deleting it is refused
  ids.noPositions = await dataset('nopos', true);
  ids.gone = await dataset('gone', false); // its sheet is not there
  ids.placeholder = (await post('/api/v1/dataset/', { name: 'Placeholder', query: { endpoint: 'esdb', filters: [] } })).datasetId as string;
  ids.template = await template();
  ids.usedTemplate = await template();
  ids.map = await publishedMap('Probed', [layer({ datasetId: ids.usedDataset, templateId: ids.usedTemplate })]);
  ids.badMap = await publishedMap('Unusable layer', [layer({ mapjsonUrl: 'https://example.com/topology.json' })]);
  ids.goneMap = await publishedMap('Live layer of a missing sheet', [layer({ datasetId: ids.gone, datatype: 'dynamic' })]);
  await post('/api/v1/userdata/', { favorites: { maps: [ids.map] } });
  await post('/api/v1/user', { username: 'viewer', password: VIEWER_PASSWORD, scope: [t.settings.auth.scopes.read] });
  viewer = await t.token(t.settings.auth.scopes.read, 'viewer', VIEWER_PASSWORD);
});
after(async () => { await t.close(); });

/** The value each path parameter takes in a request that should get through. */
const known = (): Record<string, string> => ({
  mapId: ids.map, datasetId: ids.dataset, templateId: ids.template, username: 'viewer',
  layout: 'geographic', datatype: 'snapshot', output_type: 'json', sheet_id: 'circuits', sheet_name: 'circuits', field: 'name',
});
/** A value a path parameter that names something can take yet name nothing. */
const UNKNOWN: Record<string, string> = { mapId: 'Nope000', datasetId: 'Nope000', templateId: 'Nope000', username: 'nobody' };
/** Bodies that pass validation, by request schema. */
const BODIES: Record<string, (n: number) => unknown> = {
  MapRevision: (n) => mapWith(`Probe ${n}`, []),
  MapMergePatch: (n) => ({ name: `Probe ${n}` }),
  DatasetRevision: () => revision('circuits'),
  NewTemplate: (n) => sampleTemplate(`Probe ${n}`),
  UserCreate: (n) => ({ username: `probe${n}`, password: 'a password long enough', scope: [t.settings.auth.scopes.read] }),
  UserUpdate: () => ({ name: 'Probe' }),
  SetPassword: () => ({ password: 'another password long enough' }),
  UserData: () => ({ favorites: { maps: [] } }),
  TokenRequest: () => ({ grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }),
};

const parameters = (op: Op, where: 'path' | 'query') => (op.spec.parameters ?? []).filter((p: any) => p.in === where);
const bodyName = (op: Op) => op.spec.requestBody?.content['application/json'].schema.$ref.split('/').pop() as string | undefined;
const validBody = (op: Op, n = 0) => {
  const name = bodyName(op);
  if (!name) return undefined;
  assert.ok(BODIES[name], `a valid ${name} body for the probes`);
  return BODIES[name](n);
};
/** Required query parameters, with values that get through. */
const requiredQuery = (op: Op) => parameters(op, 'query').filter((p: any) => p.required)
  .map((p: any) => `${p.name}=${p.schema.type === 'integer' ? p.schema.minimum : 'latest'}`).join('&');

function url(op: Op, call: Call) {
  const values = { ...known(), ...call.params };
  const filled = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    assert.ok(values[name] !== undefined, `a value for path parameter ${name}`);
    return encodeURIComponent(values[name]);
  });
  return call.query ? `${filled}?${call.query}` : filled;
}

function send(op: Op, call: Call = {}) {
  return t.request(url(op, call), {
    method: op.method.toUpperCase(), token: call.token, headers: call.headers,
    ...(call.json !== undefined ? { json: call.json } : call.body !== undefined ? { body: call.body } : {}),
  });
}

/** The token every probe that should get past authentication carries (none for public routes). */
const authorized = (op: Op) => (op.spec.security?.length ? t.all : undefined);

/** Checks one answer against the document; what is wrong, if anything. */
async function check(op: Op, res: Response, expected: number | undefined, what: string): Promise<string[]> {
  const problems: string[] = [];
  const text = await res.text();
  const listed = op.spec.responses[String(res.status)];
  if (!answered.has(op.key)) answered.set(op.key, new Set());
  answered.get(op.key)!.add(res.status);
  if (expected !== undefined && res.status !== expected) problems.push(`${what}: answered ${res.status}, expected ${expected}: ${text.slice(0, 300)}`);
  if (!listed) problems.push(`${what}: answered ${res.status}, which the document does not list (${text.slice(0, 200)})`);
  else if (res.status >= 400 && /json/.test(res.headers.get('content-type') ?? '')) {
    const code = JSON.parse(text).code;
    const codes: string[] | undefined = listed.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum;
    if (codes && !codes.includes(code)) problems.push(`${what}: answered ${res.status} ${code}, not among the codes listed (${codes.join(', ')})`);
  }
  return problems;
}

/** The first of `statuses` the document lists for the operation. */
const firstListed = (op: Op, statuses: number[]) => statuses.find((s) => op.spec.responses[String(s)] !== undefined);

describe('every operation answers the generic probes as its document says', () => {
  // The operations are read from the document in before(), so one test walks them all and reports every problem at once.
  it('probes each operation', async () => {
    assert.ok(ops.length > 50);
    const problems: string[] = [];
    const scopes = t.settings.auth.scopes;
    for (const op of ops) {
      const got = async (call: Call, expected: number | undefined, what: string) =>
        problems.push(...(await check(op, await send(op, call), expected, `${op.key}: ${what}`)));
      const needs = op.spec.security?.[0]?.bearer?.[0] as string | undefined;
      const token = authorized(op);

      if (needs) {
        await got({}, 401, 'no token');
        await got({ token: needs === scopes.read ? t.publish : t.read }, 403, 'a token without the scope');
      }

      for (const p of parameters(op, 'path')) {
        if (typeof p.schema.pattern === 'string') {
          assert.ok(UNKNOWN[p.name], `an unknown value for ${p.name}`);
          await got({ token, params: { [p.name]: UNKNOWN[p.name] }, query: requiredQuery(op) }, 404, `unknown ${p.name}`);
        } else if (Array.isArray(p.schema.enum)) {
          await got({ token, params: { [p.name]: 'nonesuch' } }, 404, `${p.name} not one of its values`);
        }
      }

      const query = parameters(op, 'query');
      if (query.length > 0) {
        const numeric = query.find((p: any) => p.schema.type === 'integer' || p.schema.anyOf);
        const q = numeric ? `${numeric.name}=x` : `${query[0].name}=AAAAAAA&${query[0].name}=AAAAAAA`;
        await got({ token, query: q }, 400, numeric ? `${numeric.name}=x` : `${query[0].name} given twice`);
      }

      if (op.spec.requestBody) {
        const json = { 'Content-Type': 'application/json' };
        await got({ token, headers: json, body: '{"name": ' }, 400, 'a body that is not JSON');
        await got({ token, headers: { 'Content-Type': 'text/plain' }, body: 'x' }, firstListed(op, [415, 400]), 'a text/plain body');
        await got({ token, json: 42 }, firstListed(op, [422, 400]), 'a body that fails validation');
      }

      if (['post', 'put', 'patch', 'delete'].includes(op.method)) {
        await got({ token, headers: { 'Content-Type': 'application/json' }, body: `"${'x'.repeat(BODY_LIMIT)}"` }, 413, 'a body over the limit');
        await got({ token, headers: { 'Content-Length': 'many' } }, 400, 'a Content-Length that is no number');
      }

      if (op.method === 'get') {
        const res = await send(op, { token });
        const etag = res.headers.get('etag');
        problems.push(...(await check(op, res, 200, `${op.key}: as asked`)));
        if (etag) await got({ token, headers: { 'If-None-Match': etag } }, 304, 'If-None-Match with its ETag');
        if (!etag !== !op.spec.responses['304']) problems.push(`${op.key}: ${etag ? 'answers with an ETag but lists no 304' : 'lists 304 but sends no ETag'}`);
      }

      if (op.spec.responses['412']) {
        await got({ token, headers: { 'If-Match': '"stale"' }, json: validBody(op), query: requiredQuery(op) }, 412, 'a stale If-Match');
      }
    }
    assert.deepEqual(problems, []);
  });
});

/** Answers that need particular data: [operation, what, request, status]. */
const particular = (): Array<[string, string, () => Promise<Response>, number]> => {
  const { map, usedDataset, usedTemplate, noPositions, gone, badMap, goneMap, dataset, template } = ids;
  const as = (method: string, url: string, token: string | undefined, json?: unknown) =>
    () => t.request(url, { method, token, ...(json !== undefined ? { json } : {}) });
  const get = (url: string, token: string | undefined = t.all) => as('GET', url, token);
  const outputs = (id: string, datatype: string, status: number, what: string): Array<[string, string, () => Promise<Response>, number]> => [
    ['get /api/v1/output/dataset/{datasetId}/{layout}/{datatype}/{output_type}/', what, get(`/api/v1/output/dataset/${id}/geographic/${datatype}/json/`), status],
    ['get /api/v1/output/dataset/{datasetId}/{layout}/{datatype}/', what, get(`/api/v1/output/dataset/${id}/geographic/${datatype}/`), status],
  ];
  const mapOutputs = (id: string, status: number, what: string): Array<[string, string, () => Promise<Response>, number]> =>
    ['', 'json/', 'svg/', 'png/', 'traffic/'].flatMap((tail): Array<[string, string, () => Promise<Response>, number]> => [
      [`get /api/v1/output/map/{mapId}/${tail}`, what, get(`/api/v1/output/map/${id}/${tail}`), status],
      [`get /api/v1/public/output/map/{mapId}/${tail}`, what, get(`/api/v1/public/output/map/${id}/${tail}`, undefined), status],
    ]).concat(['svg/', 'png/'].map((tail): [string, string, () => Promise<Response>, number] =>
      [`get /api/v1/output/map/{mapId}/diff/${tail}`, what, get(`/api/v1/output/map/${id}/diff/${tail}`), status]));
  const editor = (sheet: string, status: number, what: string): Array<[string, string, () => Promise<Response>, number]> => [
    ['get /api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/filterable_columns/', what, get(`/api/v1/datasources/spreadsheet/${sheet}/${sheet}/filterable_columns/`), status],
    ['get /api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/distinct/{field}/', what, get(`/api/v1/datasources/spreadsheet/${sheet}/${sheet}/distinct/name/`), status],
    ['get /api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/query/', what, get(`/api/v1/datasources/spreadsheet/${sheet}/${sheet}/query/`), status],
  ];
  return [
    ['delete /api/v1/dataset/id/{datasetId}/', 'a dataset a map draws', as('DELETE', `/api/v1/dataset/id/${usedDataset}/`, t.all), 409],
    ['delete /api/v1/template/id/{templateId}/', 'a template a map draws with', as('DELETE', `/api/v1/template/id/${usedTemplate}/`, t.all), 409],
    ['post /api/v1/map/id/{mapId}/restore/', 'a map that is not deleted', as('POST', `/api/v1/map/id/${map}/restore/`, t.all), 409],
    ['post /api/v1/dataset/id/{datasetId}/restore/', 'a dataset that is not deleted', as('POST', `/api/v1/dataset/id/${dataset}/restore/`, t.all), 409],
    ['post /api/v1/template/id/{templateId}/restore/', 'a template that is not deleted', as('POST', `/api/v1/template/id/${template}/restore/`, t.all), 409],
    ['post /api/v1/user', 'a username that exists', as('POST', '/api/v1/user', t.all, { username: 'viewer', password: VIEWER_PASSWORD, scope: [] }), 409],
    ['put /api/v1/user/{username}/', 'the last admin losing the admin scope', as('PUT', '/api/v1/user/admin/', t.all, { scope: [t.settings.auth.scopes.read] }), 409],
    ['delete /api/v1/user/{username}/', 'the last admin', as('DELETE', '/api/v1/user/admin/', t.all), 409],
    ['get /api/v1/userdata/', 'a user with no data stored', get('/api/v1/userdata/', viewer), 404],
    ['put /api/v1/userdata/', 'a user with no data stored', as('PUT', '/api/v1/userdata/', viewer, BODIES.UserData(0)), 404],
    ['get /api/v1/datasources/spreadsheet/{sheet_id}/{sheet_name}/distinct/{field}/', 'a field the sheet does not have', get('/api/v1/datasources/spreadsheet/circuits/circuits/distinct/nonesuch/'), 404],
    ['patch /api/v1/output/map/', 'a layer naming an unknown dataset', as('PATCH', '/api/v1/output/map/', t.all, mapWith('Preview', [layer({ datasetId: 'Nope000' })])), 404],
    ...outputs(noPositions, 'snapshot', 422, 'geographic, no node with coordinates'),
    ['get /api/v1/output/dataset/{datasetId}/diff/{layout}/svg/', 'geographic, no node with coordinates', get(`/api/v1/output/dataset/${noPositions}/diff/geographic/svg/`), 422],
    ['get /api/v1/output/dataset/{datasetId}/diff/{layout}/png/', 'geographic, no node with coordinates', get(`/api/v1/output/dataset/${noPositions}/diff/geographic/png/`), 422],
    ['patch /api/v1/output/query/{layout}/', 'geographic, no node with coordinates', as('PATCH', '/api/v1/output/query/geographic/', t.all, revision('nopos')), 422],
    ...mapOutputs(badMap, 422, 'a layer whose mapjsonUrl is no dataset output'),
    ...editor('.hidden', 422, 'a sheet_id that is no file name'),
    ...outputs(gone, 'dynamic', 503, 'live data of a sheet that is not there'),
    ...mapOutputs(goneMap, 503, 'a live layer of a sheet that is not there'),
    ...editor('gone', 503, 'a sheet that is not there'),
    ['put /api/v1/dataset/id/{datasetId}/', 'a sheet that is not there', as('PUT', `/api/v1/dataset/id/${dataset}/`, t.all, revision('gone')), 503],
    ['post /api/v1/dataset/id/{datasetId}/refresh/', 'a sheet that is not there', as('POST', `/api/v1/dataset/id/${gone}/refresh/`, t.all), 503],
    ['post /api/v1/dataset/id/{datasetId}/refresh/', 'a placeholder endpoint (an unknown kind)', as('POST', `/api/v1/dataset/id/${ids.placeholder}/refresh/`, t.all), 422],
    ['patch /api/v1/output/query/{layout}/', 'a sheet that is not there', as('PATCH', '/api/v1/output/query/raw/', t.all, revision('gone')), 503],
    ['patch /api/v1/output/map/', 'a live layer of a sheet that is not there', as('PATCH', '/api/v1/output/map/', t.all, mapWith('Preview', [layer({ datasetId: gone, datatype: 'dynamic' })])), 503],
  ];
};

describe('answers that need particular data are the ones the document lists', () => {
  it('each particular request', async () => {
    const problems: string[] = [];
    const byKey = new Map(ops.map((op) => [op.key, op]));
    for (const [key, what, request, status] of particular()) {
      const op = byKey.get(key);
      assert.ok(op, `${key} is in the document`);
      problems.push(...(await check(op, await request(), status, `${key}: ${what}`)));
    }
    assert.deepEqual(problems, []);
  });

  it('too many failed logins: 429 from the token endpoint', async () => {
    const op = ops.find((o) => o.key === 'post /api/v1/auth/token')!;
    const attempt = () => t.request('/api/v1/auth/token', {
      method: 'POST', remoteAddress: '203.0.113.9', json: { grant_type: 'password', username: 'ghost', password: 'not it at all' },
    });
    for (let i = 0; i < t.settings.auth.loginThrottle!.maxFailures; i++) assert.equal((await attempt()).status, 400);
    assert.deepEqual(await check(op, await attempt(), 429, 'one failure too many'), []);
  });
});

describe('every write succeeds as its document says', () => {
  it('each operation that changes something, on resources of its own', async () => {
    const problems: string[] = [];
    let n = 0;
    const fresh: Record<string, () => Promise<string>> = {
      mapId: async () => (await createMap(t, 'Fresh', { configuration: mapWith('Fresh', []).configuration })).mapId,
      datasetId: async () => (await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.all, json: revision('circuits') }))).datasetId,
      templateId: async () => (await body(await t.request('/api/v1/template/', { method: 'POST', token: t.all, json: sampleTemplate('Fresh') }))).templateId,
      username: async () => (await body(await t.request('/api/v1/user', { method: 'POST', token: t.all, json: BODIES.UserCreate(1000 + n) }))).username,
    };
    for (const op of ops.filter((o) => o.method !== 'get')) {
      n++;
      const params: Record<string, string> = {};
      for (const p of parameters(op, 'path')) if (fresh[p.name]) params[p.name] = await fresh[p.name]();
      const resource = Object.entries(params).find(([name]) => name !== 'username');
      if (op.path.endsWith('/restore/') && resource) {
        const base = op.path.slice(0, -'restore/'.length).replace(/\{\w+\}/, resource[1]);
        assert.equal((await t.request(base, { method: 'DELETE', token: t.all })).status, 200);
      }
      // Created first, then the rest: POST /api/v1/userdata/ answers 201 the first time and 200 after (the viewer has none yet).
      const success = Object.keys(op.spec.responses).map(Number).filter((s) => s < 300).sort((a, b) => b - a);
      const token = op.key === 'post /api/v1/userdata/' ? viewer : authorized(op);
      // A route that lists no 412 must not answer one: its writes carry a stale If-Match, which it ignores.
      const headers: Record<string, string> = op.spec.responses['412'] ? {} : { 'If-Match': '"stale"' };
      for (const status of success) {
        const res = await send(op, { token, params, headers, json: validBody(op, n), query: requiredQuery(op) });
        problems.push(...(await check(op, res, status, `${op.key}: as it should succeed${headers['If-Match'] ? ' (If-Match ignored)' : ''}`)));
      }
    }
    assert.deepEqual(problems, []);
  });
});

describe('what a failing or edited disk answers', () => {
  it('a stored version that cannot be read: 503 resource_unavailable', async () => {
    const op = ops.find((o) => o.key === 'get /api/v1/map/id/{mapId}/')!;
    const id = (await createMap(t, 'To be damaged')).mapId;
    await t.request(`/api/v1/map/id/${id}/`, { method: 'PUT', token: t.all, json: sampleMap('Damaged') });
    await writeFile(path.join(t.dir, 'maps', id, 'v1.json'), '{"not": ');
    const res = await t.request(`/api/v1/map/id/${id}/?version=1`, { token: t.read });
    assert.equal(res.headers.get('content-type')?.includes('json'), true);
    assert.deepEqual(await check(op, res.clone(), 503, 'version 1 damaged on disk'), []);
    assert.equal((await body(res)).code, 'resource_unavailable');
  });

  it('a version already on disk that the service did not write: 409 changed_on_disk', async () => {
    const op = ops.find((o) => o.key === 'put /api/v1/map/id/{mapId}/')!;
    const map = await createMap(t, 'Edited under the service');
    await writeFile(path.join(t.dir, 'maps', map.mapId, 'v2.json'), JSON.stringify({ ...map, version: 2 }));
    const res = await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.all, json: sampleMap('Mine') });
    assert.deepEqual(await check(op, res.clone(), 409, 'v2.json put there by hand'), []);
    assert.equal((await body(res)).code, 'changed_on_disk');
  });

  it('a full disk: 507 storage_unavailable', async () => {
    const first = await start();
    const map = await createMap(first, 'Kept');
    await first.close(false);
    const enospc = () => Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const full: SyncFs = { ...nodeFs, openSync: (file, flags, mode) => { if (flags !== 'r') throw enospc(); return nodeFs.openSync(file, flags, mode); } };
    await mkdir(path.join(first.dir, 'private'), { recursive: true });
    const s = await start({ dir: first.dir, storeOptions: { syncFs: full, log: () => undefined } });
    try {
      const fullDoc = await body(await s.request('/openapi.json'));
      for (const [method, p, url, json] of [
        ['post', '/api/v1/map/', '/api/v1/map/', sampleMap('Lost')],
        ['put', '/api/v1/map/id/{mapId}/', `/api/v1/map/id/${map.mapId}/`, sampleMap('Lost')],
        ['post', '/api/v1/userdata/', '/api/v1/userdata/', BODIES.UserData(0)],
      ] as const) {
        const res = await s.request(url, { method: method.toUpperCase(), token: s.all, json });
        assert.equal(res.status, 507, `${method} ${url}: ${await res.clone().text()}`);
        assert.ok(fullDoc.paths[p][method].responses['507'], `${method} ${p} lists 507`);
        assert.equal((await body(res)).code, 'storage_unavailable');
      }
    } finally {
      await s.close(true);
    }
  });
});

describe('with HTTP Basic on API requests (auth.basic.acceptHttpBasic)', () => {
  it('wrong credentials are 401, then 429 once throttled, both listed for every authenticated operation', async () => {
    const b = await start({ settings: { auth: { basic: { acceptHttpBasic: true }, loginThrottle: { maxFailures: 6 } } } });
    try {
      const basicDoc = await body(await b.request('/openapi.json'));
      assert.ok(basicDoc.components.securitySchemes.basic);
      const op: Op = { key: 'get /api/v1/maps/', method: 'get', path: '/api/v1/maps/', spec: basicDoc.paths['/api/v1/maps/'].get };
      const wrong = `Basic ${Buffer.from('admin:not the password').toString('base64')}`;
      const attempt = () => b.request('/api/v1/maps/', { headers: { Authorization: wrong }, remoteAddress: '198.51.100.7' });
      for (let i = 0; i < 6; i++) assert.deepEqual(await check(op, await attempt(), 401, 'wrong Basic credentials'), []);
      assert.deepEqual(await check(op, await attempt(), 429, 'one failure too many'), []);
      for (const [p, methods] of Object.entries<any>(basicDoc.paths)) {
        for (const [method, spec] of Object.entries<any>(methods)) {
          if (spec.security.length > 0) assert.ok(spec.responses['429'] && spec.security.some((s: any) => 'basic' in s), `${method} ${p}`);
        }
      }
    } finally {
      await b.close();
    }
  });
});

describe('what the listening service answers before any route runs', () => {
  /** Sends each operation's raw request as `request` writes it to a started service; checks the status read back. */
  async function rawProbe(expected: number, what: string, request: (method: string, target: string) => string, only = (_: Op) => true) {
    const tmp = await mkdtemp(path.join(tmpdir(), 'mts-openapi-raw-'));
    const started = await serve({ MTS_DATA_DIR: tmp, PORT: '0', HOST: '127.0.0.1', MTS_ADMIN_PASSWORD: ADMIN_PASSWORD }, { log: createMemoryLogger(), signals: false });
    try {
      const { port } = started.server.address() as AddressInfo;
      const problems: string[] = [];
      for (const op of ops.filter(only)) {
        const target = op.path.replace(/\{[^}]+\}/g, 'x');
        const reply = await new Promise<string>((resolve, reject) => {
          let text = '';
          const socket = net.connect(port, '127.0.0.1', () => socket.write(request(op.method.toUpperCase(), target)));
          socket.on('data', (d) => (text += d)).on('error', reject).on('close', () => resolve(text));
        });
        const status = Number(/^HTTP\/1\.1 (\d+)/.exec(reply)?.[1]);
        problems.push(...await check(op, new Response(null, { status }), expected, `${op.key} ${what}`));
      }
      assert.deepEqual(problems, []);
    } finally {
      started.server.closeAllConnections();
      await new Promise((resolve) => started.server.close(resolve));
      await started.store.close();
      await rm(tmp, { recursive: true, force: true });
    }
  }

  it('header fields over 16 KB: 431 with no body, on every operation\'s path', () =>
    rawProbe(431, 'with 20 KB of headers', (method, target) =>
      `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));

  it('a request that is not well-formed HTTP: 400 with no body, on every operation\'s path', () =>
    rawProbe(400, 'with a space in a header name', (method, target) =>
      `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n`));

  // A GET's route answers before Node reads such a body: only the routes that read bodies meet it.
  it('chunk extensions over 16 KB: 413 with no body, on every POST, PUT, PATCH and DELETE', () =>
    rawProbe(413, 'with 20 KB of chunk extensions', (method, target) =>
      `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5;${'e'.repeat(20_000)}\r\nhello\r\n0\r\n\r\n`,
    (op) => op.method !== 'get'));
});

describe('the document lists nothing the routes never answer', () => {
  it('every status listed was answered, but those only a failing disk, a slow client or a bug can cause', () => {
    const missing: string[] = [];
    for (const op of ops) {
      for (const [status, response] of Object.entries<any>(op.spec.responses)) {
        if (answered.get(op.key)?.has(Number(status))) continue;
        const codes: string[] = response.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum ?? [];
        if (codes.length > 0 && codes.every((c) => UNPROVOKABLE.has(c))) continue;
        missing.push(`${op.key}: ${status} (${codes.join(', ') || response.description})`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
