// GET /openapi.json: an OpenAPI 3.1 document listing every route of docs/api.md
// (our additions to Terranova's API included) with the request schemas the routes validate
// with, and bearer security with the configured scope of each route.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseSettings } from '../../config/settings.ts';
import { TokenRequestSchema } from '../../schema/auth.ts';
import { DatasetRevisionSchema } from '../../schema/dataset.ts';
import { MapRevisionSchema } from '../../schema/map.ts';
import { DATASET_FIELDS, MAP_FIELDS, TEMPLATE_FIELDS } from '../../schema/objects.ts';
import { TemplateRevisionSchema } from '../../schema/template.ts';
import { SetPasswordSchema, UserCreateSchema, UserUpdateSchema } from '../../schema/users.ts';
import { buildOpenApi, jsonSchema } from '../../http/openapi-document.ts';
import { OPERATIONS } from '../../routes/index.ts';
import { NAMED_SCHEMAS } from '../../routes/openapi.ts';
import { body, start, type Started } from './fixtures.ts';

// The routes Terranova's API has, plus our unpublish and token route (docs/api.md): [method, path, scope kind | null].
const SPEC_ROUTES: Array<[string, string, string | null]> = [
  ['get', '/api/v1/maps/', 'read'], ['get', '/api/v1/map/id/{mapId}/', 'read'], ['post', '/api/v1/map/', 'write'],
  ['put', '/api/v1/map/id/{mapId}/', 'write'], ['post', '/api/v1/map/id/{mapId}/publish/', 'publish'],
  ['post', '/api/v1/map/id/{mapId}/unpublish/', 'publish'], ['get', '/api/v1/public/maps/', null],
  ['get', '/api/v1/datasets/', 'read'], ['get', '/api/v1/dataset/id/{datasetId}/', 'read'],
  ['post', '/api/v1/dataset/', 'write'], ['put', '/api/v1/dataset/id/{datasetId}/', 'write'],
  ['get', '/api/v1/templates/', 'read'], ['get', '/api/v1/template/id/{templateId}/', 'read'],
  ['post', '/api/v1/template/', 'write'], ['put', '/api/v1/template/id/{templateId}/', 'write'],
  ['get', '/api/v1/output/dataset/{datasetId}/{layout}/{datatype}/{output_type}/', 'read'],
  ['get', '/api/v1/output/map/{mapId}/', 'write'], ['get', '/api/v1/output/map/{mapId}/svg/', 'write'],
  ['get', '/api/v1/public/output/map/{mapId}/', null], ['get', '/api/v1/public/output/map/{mapId}/svg/', null],
  ['patch', '/api/v1/output/map/', 'write'], ['get', '/api/v1/datasources/', null],
  ['get', '/api/v1/current_user/', 'read'], ['get', '/api/v1/user/', 'admin'], ['post', '/api/v1/user', 'admin'],
  ['put', '/api/v1/user/{username}/', 'admin'], ['put', '/api/v1/user/{username}/set_password/', 'admin'],
  ['delete', '/api/v1/user/{username}/', 'admin'], ['post', '/api/v1/auth/token', null],
];

const REQUEST_SCHEMAS: Array<[string, string, unknown]> = [
  ['post', '/api/v1/map/', MapRevisionSchema], ['put', '/api/v1/map/id/{mapId}/', MapRevisionSchema],
  ['patch', '/api/v1/output/map/', MapRevisionSchema],
  ['post', '/api/v1/dataset/', DatasetRevisionSchema], ['put', '/api/v1/dataset/id/{datasetId}/', DatasetRevisionSchema],
  ['post', '/api/v1/template/', TemplateRevisionSchema], ['put', '/api/v1/template/id/{templateId}/', TemplateRevisionSchema],
  ['post', '/api/v1/user', UserCreateSchema], ['put', '/api/v1/user/{username}/', UserUpdateSchema],
  ['put', '/api/v1/user/{username}/set_password/', SetPasswordSchema], ['post', '/api/v1/auth/token', TokenRequestSchema],
];

let t: Started;
let doc: any;
before(async () => {
  t = await start();
  const res = await t.request('/openapi.json');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  doc = await body(res);
});
after(async () => { await t.close(); });

const resolve = (schema: any) => {
  const name = schema?.$ref?.replace('#/components/schemas/', '');
  return name ? doc.components.schemas[name] : schema;
};

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 and needs no token', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.title, 'Map Topology Service');
    assert.equal(doc.components.securitySchemes.bearer.scheme, 'bearer');
  });

  for (const [method, path, scope] of SPEC_ROUTES) {
    it(`describes ${method.toUpperCase()} ${path} with its security`, () => {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method} ${path} is in the document`);
      assert.ok(op.summary && Object.keys(op.responses).length > 0);
      if (scope === null) assert.deepEqual(op.security, []);
      else {
        const wanted = (t.settings.auth.scopes as Record<string, string>)[scope];
        assert.deepEqual(op.security[0], { bearer: [wanted] });
        assert.ok(op.responses['401'] && op.responses['403']);
      }
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        assert.ok(op.parameters.some((p: any) => p.in === 'path' && `{${p.name}}` === name), `path parameter ${name}`);
      }
    });
  }

  for (const [method, path, schema] of REQUEST_SCHEMAS) {
    it(`${method.toUpperCase()} ${path} has the request schema its route validates with`, () => {
      const op = doc.paths[path][method];
      assert.equal(op.requestBody.required, true);
      assert.deepEqual(resolve(op.requestBody.content['application/json'].schema), jsonSchema(schema as any));
    });
  }

  it('the token endpoint also takes a form body', () => {
    assert.ok(doc.paths['/api/v1/auth/token'].post.requestBody.content['application/x-www-form-urlencoded']);
    // RFC 6749 5.2: every failure the token endpoint can answer, with the error shape it sends
    const token = doc.paths['/api/v1/auth/token'].post.responses;
    // (408 and 413 come from the body limit before the route, 431 from Node before it; 500 is any route's unexpected failure.)
    assert.deepEqual(Object.keys(token).sort(), ['200', '400', '408', '413', '429', '431', '500']);
    assert.deepEqual(token['400'].content['application/json'].schema, { $ref: '#/components/schemas/TokenError' });
  });

  for (const [path, fields, filters] of [
    ['/api/v1/maps/', MAP_FIELDS, ['mapId', 'name', 'lastUpdatedBy', 'public']],
    ['/api/v1/public/maps/', MAP_FIELDS, ['mapId', 'name', 'lastUpdatedBy']],
    ['/api/v1/datasets/', DATASET_FIELDS, ['datasetId', 'name', 'lastUpdatedBy']],
    ['/api/v1/templates/', TEMPLATE_FIELDS, ['templateId', 'name', 'lastUpdatedBy']],
  ] as const) {
    it(`GET ${path} lists its query parameters: version, fields (valid names), filters, limit, offset, sort`, () => {
      const params = doc.paths[path].get.parameters.filter((p: any) => p.in === 'query');
      assert.deepEqual(params.map((p: any) => p.name), ['version', 'fields', ...filters, 'limit', 'offset', 'sort']);
      assert.deepEqual(params.find((p: any) => p.name === 'fields').schema.items.enum, fields);
      assert.deepEqual(params.find((p: any) => p.name === 'version').schema.anyOf[0].enum, ['latest', 'all']);
    });
  }

  it('describes every route the app serves (except the OIDC provider)', () => {
    const described = new Set(Object.entries(doc.paths).flatMap(([p, ops]: [string, any]) =>
      Object.keys(ops).map((m) => `${m} ${p.replace(/\/$/, '')}`)));
    const served = (t.app.routes as Array<{ method: string; path: string }>)
      // Middleware on every path (method ALL, or the body limit on '/*') is no route; nor are the files of the docs and home pages.
      .filter((r) => r.method !== 'ALL' && r.path !== '/*' && !r.path.startsWith('/oidc') && !r.path.startsWith('/docs/') && !r.path.startsWith('/web/'))
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}').replace(/\/$/, '')}`);
    const missing = [...new Set(served)].filter((r) => !described.has(r));
    assert.deepEqual(missing, []);
  });

  it('types counts and version numbers as integers, though they travel as text', () => {
    const numbers: string[] = [];
    for (const [p, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const param of op.parameters ?? []) {
          const where = `${method} ${p} ${param.name}`;
          if (['limit', 'offset', 'from', 'to'].includes(param.name)) {
            assert.equal(param.schema.type, 'integer', where);
            assert.equal(typeof param.schema.minimum, 'number', where);
            assert.equal(param.schema.pattern, undefined, where);
            numbers.push(param.name);
          }
          if (param.name === 'version') {
            const integer = param.schema.type === 'integer' ? param.schema : param.schema.anyOf?.find((s: any) => s.type === 'integer');
            assert.deepEqual([integer?.minimum, param.schema.pattern], [1, undefined], where);
            numbers.push(param.name);
          }
        }
        for (const [status, answer] of Object.entries<any>(op.responses)) {
          for (const header of ['X-Total-Count', 'X-Result-Count', 'Retry-After']) {
            if (answer.headers?.[header]) assert.equal(answer.headers[header].schema.type, 'integer', `${method} ${p} ${status} ${header}`);
          }
        }
      }
    }
    assert.ok(numbers.includes('limit') && numbers.includes('offset') && numbers.includes('from') && numbers.includes('version'));
    // Only the document says integer: the routes still read the text.
    assert.deepEqual(doc.paths['/api/v1/maps/'].get.parameters.find((p: any) => p.name === 'version').schema.anyOf,
      [{ type: 'string', enum: ['latest', 'all'] }, { type: 'integer', minimum: 1, maximum: 999_999_999 }]);
    assert.deepEqual(doc.paths['/api/v1/user/'].get.parameters.map((p: any) => [p.name, p.schema.type, p.schema.minimum, p.schema.maximum]),
      [['limit', 'integer', 1, 10_000], ['offset', 'integer', 0, Number.MAX_SAFE_INTEGER]]);
    assert.equal(doc.paths['/api/v1/map/id/{mapId}/revert/'].post.parameters.find((p: any) => p.name === 'version').required, true);
  });

  it('gives every error answer the shared Error schema, with the codes it can carry', () => {
    for (const [p, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const [status, answer] of Object.entries<any>(op.responses)) {
          // 431, and 400 to a request that is not well-formed HTTP, are Node's own answers, with no body.
          if (status === '431') assert.equal(answer.content, undefined, `${method} ${p} 431`);
          if (status === '400') assert.match(answer.description, /not well-formed HTTP/, `${method} ${p} 400`);
          const nodeOnly = status === '400' && answer.content === undefined;
          if (Number(status) < 400 || status === '431' || nodeOnly || (p === '/api/v1/auth/token' && status === '400')) continue;
          const schema = answer.content['application/json'].schema;
          assert.deepEqual(schema.allOf[0], { $ref: '#/components/schemas/Error' }, `${method} ${p} ${status}`);
          assert.ok(schema.allOf[1].properties.code.enum.length > 0, `${method} ${p} ${status}`);
        }
      }
    }
    const put = doc.paths['/api/v1/dataset/id/{datasetId}/'].put.responses;
    assert.deepEqual(put['503'].content['application/json'].schema.allOf[1].properties.code.enum, ['resource_unavailable', 'datasource_unavailable']);
    assert.deepEqual(put['409'].content['application/json'].schema.allOf[1].properties.code.enum, ['changed_on_disk']);
    const del = doc.paths['/api/v1/dataset/id/{datasetId}/'].delete.responses;
    assert.deepEqual(del['409'].content['application/json'].schema.allOf[1].properties.code.enum, ['conflict', 'changed_on_disk']);
    assert.match(del['409'].description, /used by a map/);
  });

  it('with an external OpenID issuer, authenticated operations may answer 503 when its keys cannot be fetched', () => {
    const settings = parseSettings({ auth: { backend: 'oidc', oidc: { issuer: 'https://id.example.net', audience: 'maps' } } }, {}, t.dir);
    const external = buildOpenApi(settings, OPERATIONS, NAMED_SCHEMAS) as any;
    const codes = (op: any) => op.responses['503']?.content['application/json'].schema.allOf[1].properties.code.enum;
    assert.deepEqual(codes(external.paths['/api/v1/current_user/'].get), ['identity_provider_unavailable']);
    assert.deepEqual(codes(external.paths['/api/v1/map/id/{mapId}/'].get), ['identity_provider_unavailable', 'resource_unavailable']);
    assert.deepEqual(codes(external.paths['/api/v1/public/maps/'].get), ['resource_unavailable']);
    assert.equal(doc.paths['/api/v1/current_user/'].get.responses['503'], undefined);
  });

  it('omits the user management routes with the OIDC backend', () => {
    const settings = parseSettings({ auth: { backend: 'oidc' } }, {}, t.dir);
    const oidc = buildOpenApi(settings, OPERATIONS, NAMED_SCHEMAS) as any;
    assert.equal(oidc.paths['/api/v1/user/'], undefined);
    assert.equal(oidc.paths['/api/v1/auth/token'], undefined);
    assert.ok(oidc.paths['/api/v1/current_user/']);
    assert.equal(oidc.components.securitySchemes.oidc.type, 'openIdConnect');
  });

  it('puts a base path from server.baseUrl in the server URL once, paths staying as served', () => {
    const settings = parseSettings({ server: { baseUrl: 'https://noc.example.net/topology/' } }, {}, t.dir);
    const prefixed = buildOpenApi(settings, OPERATIONS, NAMED_SCHEMAS) as any;
    assert.deepEqual(prefixed.servers, [{ url: '/topology' }]);
    // OpenAPI appends each path to the server URL: /topology + /api/v1/maps/, never /topology/topology/...
    assert.deepEqual(Object.keys(prefixed.paths), Object.keys(doc.paths));
    assert.equal(prefixed.components.securitySchemes.password.flows.password.tokenUrl, '/topology/api/v1/auth/token');
  });
});

describe('the API describes itself beside /api/v1', () => {
  it('GET /api/v1/openapi.json is the same document as /openapi.json', async () => {
    const [a, b] = await Promise.all([t.request('/api/v1/openapi.json'), t.request('/openapi.json')]);
    assert.equal(a.status, 200);
    assert.equal(await a.text(), await b.text());
  });

  it('GET /api/v1/docs is the same page as /docs', async () => {
    const [a, b] = await Promise.all([t.request('/api/v1/docs'), t.request('/docs')]);
    assert.equal(a.status, 200);
    assert.match(a.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(await a.text(), await b.text());
  });

  it('GET /api/v1/ lists the routes with their configured scopes, and links the documents', async () => {
    const res = await t.request('/api/v1/');
    assert.equal(res.status, 200);
    const index = await body(res);
    assert.match(index.openapi, /\/api\/v1\/openapi\.json$/);
    const routes = new Map(index.routes.map((r: any) => [`${r.method} ${r.path}`, r.scope]));
    assert.equal(routes.get('GET /api/v1/maps/'), 'svc:maps:read');
    assert.equal(routes.get('POST /api/v1/map/id/{mapId}/publish/'), 'svc:maps:publish');
    assert.equal(routes.get('GET /api/v1/public/maps/'), null);
    assert.equal(routes.get('DELETE /api/v1/map/id/{mapId}/'), 'svc:maps:write');
    assert.equal(index.routes.length, Object.values(doc.paths).reduce((n: number, ops: any) => n + Object.keys(ops).length, 0));
  });
});
