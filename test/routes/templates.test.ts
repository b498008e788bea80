import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { activeContent } from '../render/svg-check.ts';
import { body, sampleTemplate, start, type Started } from './fixtures.ts';

// Three sites, one of them named to break out of a <text> element.
const EVIL = 'EVIL</text><script>alert(1)</script>';
const CSV = `${[
  'id,name,source,destination,capacity,source_site,destination_site,source_latitude,source_longitude,destination_latitude,destination_longitude',
  'c1,CHIC-NEWY,CHIC,NEWY,100,Chicago,New York,41.88,-87.63,40.71,-74.01',
  `c2,NEWY-EVIL,NEWY,"${EVIL}",10,New York,Nowhere,40.71,-74.01,33.75,-84.39`,
].join('\n')}\n`;

let t: Started;
let dataset: string;
before(async () => {
  t = await start();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'sites.csv'), CSV);
  const query = (filters: unknown[]) => ({
    name: 'Sites',
    query: { endpoint: `spreadsheet?${new URLSearchParams({ sheet_id: 'sites', sheet_name: 'sites' })}`, filters, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null },
  });
  const created = await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: query([]) }));
  const put = await t.request(`/api/v1/dataset/id/${created.datasetId}/`, { method: 'PUT', token: t.write, json: query([{ field: 'capacity', operator: 'not_equal', value: ['0'] }]) });
  assert.equal(put.status, 200, await put.clone().text());
  dataset = created.datasetId;
});
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

describe('Jinja templates (the safe subset written for Terranova)', () => {
  const picture = async (templateId: string, layout = 'geographic', type = 'svg') => {
    const res = await t.request(`/api/v1/output/dataset/${dataset}/${layout}/snapshot/${type}/?template=${templateId}`, { token: t.read });
    assert.equal(res.status, 200);
    return type === 'svg' ? res.text() : body(res);
  };
  const JINJA = '<g data-width="10" data-height="10"><circle r="4"/>' +
    '<text y="12">{{ meta["site"]|upper }}{% if meta.site == "Chicago" %} (hub){% elif meta.site is defined %} ({{ name|lower|truncate(12) }}){% endif %}{# note #}</text></g>';

  it('POST: 201 without warnings, and the picture shows the rendered text', async () => {
    const res = await create({ name: 'Jinja sites', template: JINJA });
    assert.equal(res.status, 201);
    const tpl = await body(res);
    assert.equal(tpl.template, JINJA, 'stored as written');
    assert.equal(tpl.warnings, undefined);
    const svg = await picture(tpl.templateId) as string;
    assert.ok(svg.includes('>CHICAGO (hub)</text>'), svg);
    assert.ok(svg.includes('>NEW YORK (newy)</text>'), svg);
    assert.ok(svg.includes('>NOWHERE (evil&lt;/tex...)</text>'), svg);
    assert.ok(!/\{\{|\{%|\{#/.test(svg), 'no Jinja left verbatim');
    assert.deepEqual(activeContent(svg), []);
  });

  it('PUT: 200, and the picture shows the new version', async () => {
    const tpl = await body(await create({ name: 'Jinja v1', template: JINJA }));
    const res = await t.request(`/api/v1/template/id/${tpl.templateId}/`, {
      method: 'PUT', token: t.write,
      json: { name: 'Jinja v2', template: `<g><rect width="6" height="6" fill="{{ '#ff0000' if meta.site == 'Chicago' else '#0000ff' }}"/><text>{{ name|title }}: {{ meta.missing|default("n/a") }}</text></g>` },
    });
    assert.equal(res.status, 200);
    assert.equal((await body(res)).version, 2);
    const svg = await picture(tpl.templateId) as string;
    assert.ok(svg.includes('fill="#ff0000"') && svg.includes('fill="#0000ff"'), svg);
    assert.ok(svg.includes('>Chic: n/a</text>') && svg.includes('>Newy: n/a</text>'), svg);
  });

  it("Terranova's default logical template: 201 with warnings, drawn with the default label", async () => {
    const template = '<g><foreignObject width="30" height="15" overflow="visible"><div xmlns="http://www.w3.org/1999/xhtml" style="border: 1px solid rgba(0,0,0,0.2); padding: 2px 5px; border-radius:15px; font-size:10px; background: white; text-align:center; margin-left:-30px; margin-top:-15px;">{{endpoint_name}}</div></foreignObject></g>';
    const res = await create({ name: 'Terranova logical', template });
    assert.equal(res.status, 201);
    const tpl = await body(res);
    assert.equal(tpl.warnings.length, 2);
    assert.match(tpl.warnings[0], /<foreignObject> is removed/);
    assert.match(tpl.warnings[1], /default label instead/);
    assert.equal((await body(await t.request(`/api/v1/template/id/${tpl.templateId}/`, { token: t.read }))).warnings, undefined, 'a GET shows the stored object only');
    const put = await t.request(`/api/v1/template/id/${tpl.templateId}/`, { method: 'PUT', token: t.write, json: { name: 'Terranova logical', template } });
    assert.equal(put.status, 200);
    assert.equal((await body(put)).warnings.length, 2, 'an update answers the warnings too');
    for (const layout of ['logical', 'geographic']) {
      const svg = await picture(tpl.templateId, layout) as string;
      for (const label of ['>CHIC</text>', '>NEWY</text>', '>EVIL&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;</text>']) assert.ok(svg.includes(label), `${layout}: ${label}`);
      assert.ok(!/foreignObject|<div/i.test(svg));
      assert.deepEqual(activeContent(svg), []);
    }
    const topo = await picture(tpl.templateId, 'logical', 'json') as any;
    for (const n of topo.nodes) assert.equal(n.meta.computed_height, 18);
  });

  it('a node name that closes <text> stays text', async () => {
    const tpl = await body(await create({ name: 'Names', template: '<g><circle r="3"/><text>{{ name }}|{{ name|upper }}|{{ name|e }}</text></g>' }));
    const topo = await picture(tpl.templateId, 'geographic', 'json') as any;
    const evil = topo.nodes.find((n: any) => n.name === EVIL);
    assert.equal(evil.meta.svg, '<g><circle r="3"/><text>EVIL&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;|EVIL&lt;/TEXT&gt;&lt;SCRIPT&gt;ALERT(1)&lt;/SCRIPT&gt;|EVIL&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;</text></g>');
    assert.deepEqual(activeContent(await picture(tpl.templateId) as string), []);
  });

  const refused: Array<[string, string, RegExp]> = [
    ['a loop', '<g><text>{% for x in range(1000000) %}{{ x }}{% endfor %}</text></g>', /`\{% for %\}` is not supported/],
    ['an assignment', '<g><text>{% set x = 1 %}</text></g>', /`\{% set %\}` is not supported/],
    ['a macro', '<g><text>{% macro m() %}{% endmacro %}</text></g>', /`\{% macro %\}` is not supported/],
    ['an include', '<g><text>{% include "x.html" %}</text></g>', /`\{% include %\}` is not supported/],
    ['an unknown filter', '<g><text>{{ name|wordcount }}</text></g>', /the filter `wordcount` is not supported/],
    ['the safe filter', '<g><text>{{ meta.html|safe }}</text></g>', /the filter `safe` is not supported/],
    ['a call', '<g><text>{{ meta.constructor.constructor("return 1")() }}</text></g>', /calls such as .* are not supported/],
    ['a class walk', "<g><text>{{ ''.__class__ }}</text></g>", /`__class__` is not a field that can be read/],
    ['a prototype key', '<g><text>{{ meta.__proto__ }}</text></g>', /`__proto__` is not a field that can be read/],
    ['an if that is not closed', '<g><text>{% if meta.x %}x</text></g>', /not closed by \{% endif %\}/],
    ['an if across elements', '<g><text>{% if meta.x %}</text><text>{% endif %}</text></g>', /within the same element/],
    ['ifs nested 1,000 deep', `<g><text>${'{% if 1 %}'.repeat(1000)}x${'{% endif %}'.repeat(1000)}</text></g>`, /nest more than 16 deep/],
    ['an expression nested 1,000 deep', `<g><text>{{ ${'('.repeat(1000)}name${')'.repeat(1000)} }}</text></g>`, /nested more than 32 levels deep/],
    ['an unclosed expression', '<g><text>{{ name</text></g>', /`\{\{` has no closing `\}\}`/],
  ];
  for (const [what, template, message] of refused) {
    it(`is 422 for ${what}, naming the construct`, async () => {
      const res = await create({ name: 'Bad Jinja', template });
      assert.equal(res.status, 422);
      const err = await body(res);
      assert.equal(err.errors[0].path, 'template');
      assert.match(err.errors[0].message, message);
    });
  }
});
