import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, sampleTemplate, start, type Started } from './fixtures.ts';

let t: Started;
before(async () => { t = await start(); });
after(async () => { await t.close(); });

const create = (json: unknown, token = t.write) => t.request('/api/v1/template/', { method: 'POST', token, json });

describe('default node templates', () => {
  it('are created on first start: a geographic marker and a logical label', async () => {
    const res = await t.request('/api/v1/templates/?fields=name,template,lastUpdatedBy,version', { token: t.read });
    const defaults = (await body(res)).filter((x: any) => x.lastUpdatedBy === 'system');
    assert.equal(defaults.length, 2);
    assert.ok(defaults.some((x: any) => /marker/i.test(x.name)));
    assert.ok(defaults.some((x: any) => /label/i.test(x.name)));
    for (const d of defaults) assert.equal(d.version, 1);
  });
});

describe('POST /api/v1/template/', () => {
  it('creates version 1; 201 + Location + ETag', async () => {
    const res = await create(sampleTemplate('Box'));
    assert.equal(res.status, 201);
    const tpl = await body(res);
    assert.match(tpl.templateId, /^[A-Za-z0-9]{7}$/);
    assert.deepEqual(Object.keys(tpl).sort(), ['lastUpdatedBy', 'lastUpdatedOn', 'name', 'template', 'templateId', 'version']);
    assert.equal(tpl.template, sampleTemplate().template);
    assert.equal(res.headers.get('location'), `${t.settings.server.baseUrl}/api/v1/template/id/${tpl.templateId}/`);
    assert.equal(res.headers.get('etag'), `"${tpl.templateId}-v1"`);
    assert.deepEqual(await body(await t.request(`/api/v1/template/id/${tpl.templateId}`, { token: t.read })), tpl);
  });

  const refused: Array<[string, string, RegExp]> = [
    ['an unclosed element', '<g><rect/>', /well-formed/],
    ['plain text', 'just a name', /at least one SVG element/],
    ['a repeated attribute', '<g a="1" a="2"/>', /well-formed/],
    ['an undeclared prefix', '<foo:g/>', /well-formed/],
    ['an unknown entity', '<g>&nbsp;</g>', /well-formed/],
    ['a DOCTYPE', '<!DOCTYPE g [<!ENTITY x "y">]><g>&x;</g>', /DOCTYPE/],
    ['a script', '<g><script>alert(1)</script></g>', /script/],
    ['an event handler', '<g onclick="alert(1)"><circle r="3"/></g>', /event-handler/],
    ['a javascript: URL', '<a href="javascript:alert(1)"><circle r="3"/></a>', /javascript/],
    ['elements nested 9,000 deep (within the length limit)', `${'<g>'.repeat(9000)}<circle r="1"/>${'</g>'.repeat(9000)}`, /more than 64 levels deep/],
  ];
  for (const [what, template, message] of refused) {
    it(`is 422 for markup with ${what}`, async () => {
      const res = await create({ name: 'Bad', template });
      assert.equal(res.status, 422);
      const err = await body(res);
      assert.equal(err.errors[0].path, 'template');
      assert.match(err.errors[0].message, message);
    });
  }

  it('accepts a fragment of several elements with placeholders', async () => {
    const template = '<circle r="4"/><text y="12">{{ name }}</text>';
    const res = await create({ name: 'Two parts', template });
    assert.equal(res.status, 201);
    assert.equal((await body(res)).template, template);
  });

  it('is 422 without a name or template, 403 without write', async () => {
    assert.equal((await create({ template: sampleTemplate().template })).status, 422);
    assert.equal((await create({ name: 'x' })).status, 422);
    assert.equal((await create({ name: 'x', template: '' })).status, 422);
    assert.equal((await create(sampleTemplate(), t.read)).status, 403);
  });
});

describe('PUT /api/v1/template/id/{templateId}/', () => {
  it('stores a new version; If-Match stale is 412', async () => {
    const tpl = await body(await create(sampleTemplate('Tri')));
    const update = (json: unknown, headers: Record<string, string> = {}) =>
      t.request(`/api/v1/template/id/${tpl.templateId}/`, { method: 'PUT', token: t.write, json, headers });
    const res = await update({ name: 'Triangle', template: '<g><polygon points="0,-5 5,5 -5,5"/></g>' }, { 'If-Match': `"${tpl.templateId}-v1"` });
    assert.equal(res.status, 200);
    const v2 = await body(res);
    assert.deepEqual([v2.version, v2.name], [2, 'Triangle']);
    assert.equal((await update(sampleTemplate(), { 'If-Match': `"${tpl.templateId}-v1"` })).status, 412);
    assert.equal((await update({ name: 'x', template: '<g>' })).status, 422);
    assert.equal((await body(await t.request(`/api/v1/template/id/${tpl.templateId}/?version=1`, { token: t.read }))).name, 'Tri');
    assert.equal((await t.request('/api/v1/template/id/Zz9Zz9Z/', { method: 'PUT', token: t.write, json: sampleTemplate() })).status, 404);
  });
});

describe('GET /api/v1/templates/', () => {
  it('lists with the template fields and filters', async () => {
    const a = await body(await create(sampleTemplate('Filter A')));
    const res = await t.request(`/api/v1/templates/?templateId=${a.templateId}&name=Filter%20A`, { token: t.read });
    const items = await body(res);
    assert.deepEqual(items, [{ templateId: a.templateId, name: 'Filter A', version: 1, lastUpdatedBy: 'admin', lastUpdatedOn: a.lastUpdatedOn }]);
    assert.equal((await t.request('/api/v1/templates/?public=true', { token: t.read })).status, 200, 'a filter templates do not have is an unknown parameter: ignored');
    assert.equal((await t.request('/api/v1/templates/?fields=query', { token: t.read })).status, 400);
    assert.equal((await t.request('/api/v1/templates/')).status, 401);
  });
});
