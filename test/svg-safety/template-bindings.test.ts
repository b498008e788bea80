// Templates valid SVG before substitution: `data-jinja-<name>` bindings
// (svg-safety/template-bindings.ts) fill a length or number attribute per node
// while the raw template holds a valid value there, so a viewer that parses
// the template as it is (Terranova's template preview) draws it without SVG
// errors; and the shipped templates, as the API lists them, are all so.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import { checkTemplate, compileTemplate, DEFAULT_TEMPLATES } from '../../svg-safety/template.ts';
import { makeDemoApp, makeTestApp, type TestApp } from '../helpers/app.ts';

/** The default logical label as it was written before bindings: a placeholder in x and width. */
const PLACEHOLDER_LABEL =
  '<g data-width="{{ label_width }}" data-height="18"><rect x="{{ label_x }}" y="-9" width="{{ label_width }}" height="18" rx="9" ' +
  'fill="#ffffff" stroke="currentColor" stroke-width="1.5"/><text text-anchor="middle" dominant-baseline="central" font-size="10" ' +
  'fill="#222222" stroke="none">{{ endpoint_name }}</text></g>';

const NUMERIC = new Set(['x', 'y', 'width', 'height', 'r', 'rx', 'ry', 'cx', 'cy', 'x1', 'y1', 'x2', 'y2', 'stroke-width', 'font-size', 'opacity']);
const NUMBER = /^-?\d+(\.\d+)?(px|%)?$/;

interface El { tagName: string; attributes: ArrayLike<{ name: string; value: string }>; childNodes: ArrayLike<El & { nodeType: number }> }

/** Why `markup`, read as an SVG document as it is (no substitution), is not valid SVG; [] when it is. */
function svgErrors(markup: string): string[] {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, msg) => { throw new Error(`${level}: ${msg}`); } })
    .parseFromString(`<svg xmlns="http://www.w3.org/2000/svg">${markup}</svg>`, 'image/svg+xml');
  const visit = (el: El) => {
    for (const a of Array.from(el.attributes)) {
      if (a.name.startsWith('data-')) continue; // free text by definition: no viewer reads it
      if (/\{[{%]/.test(a.value)) errors.push(`${el.tagName} ${a.name}="${a.value}" holds Jinja`);
      else if (NUMERIC.has(a.name) && !NUMBER.test(a.value)) errors.push(`${el.tagName} ${a.name}="${a.value}" is no number`);
    }
    for (const child of Array.from(el.childNodes)) if (child.nodeType === 1) visit(child);
  };
  visit(doc.documentElement as unknown as El);
  return errors;
}

describe('data-jinja- attribute bindings', () => {
  const render = (markup: string, name: string) => compileTemplate(markup).render({ name, meta: { w: '7' } }).svg;
  const cases: [string, string, string, string][] = [
    ['fills the attribute where it stands', '<rect x="0" y="1" data-jinja-x="{{ meta.w }}"/>', 'A', '<rect x="7" y="1"/>'],
    ['adds an attribute the element lacks', '<rect y="1" data-jinja-x="{{ meta.w }}"/>', 'A', '<rect y="1" x="7"/>'],
    ['takes filters and text', '<rect data-jinja-width="{{ meta.w | int ~ \'0\' }}px" width="1"/>', 'A', '<rect width="70px"/>'],
    ['checks the filled value as any attribute', '<g><circle r="1"/><use href="#c" data-jinja-href="{{ name }}"/></g>', 'javascript:alert(1)', '<g><circle r="1"/><use/></g>'],
  ];
  for (const [rule, markup, name, expected] of cases) {
    it(rule, () => {
      assert.equal(checkTemplate(markup), null);
      assert.deepEqual(svgErrors(markup), []);
      assert.equal(render(markup, name), expected);
    });
  }
  it('refuses an event handler named through a binding, as one written out', () => {
    assert.match(String(checkTemplate('<g data-jinja-onclick="alert(1)"><circle r="1"/></g>')), /event-handler/);
  });
  it('draws the label pill exactly as a placeholder in x and width does', () => {
    const placeholders = compileTemplate(PLACEHOLDER_LABEL);
    const bound = compileTemplate(DEFAULT_TEMPLATES.logical.template);
    assert.ok(svgErrors(PLACEHOLDER_LABEL).length > 0, 'the placeholder form is the invalid SVG being replaced');
    assert.deepEqual(svgErrors(DEFAULT_TEMPLATES.logical.template), []);
    for (const name of ['CHIC', 'a<b&"c', 'Reykjavik (planned)', '', 'ÅÄÖ wide WWW']) {
      const ctx = { name, meta: {} };
      assert.deepEqual(bound.render(ctx), placeholders.render(ctx));
    }
  });
});

describe('GET /api/v1/templates/: the shipped templates are valid SVG as they are', () => {
  for (const [label, make] of [['a first start', () => makeTestApp()], ['the demo data folder', () => makeDemoApp()]] as const) {
    it(`on ${label}`, async () => {
      const t = await make();
      try {
        const res = await t.request('/api/v1/templates/', { token: await t.token() });
        const listed = (await res.json()) as { name: string; template: string }[];
        assert.ok(listed.some((x) => x.name === 'Default logical label'), 'the logical default is listed');
        for (const { name, template } of listed) assert.deepEqual(svgErrors(template), [], name);
      } finally {
        await t.close();
      }
    });
  }
});

describe('GET /api/v1/output/dataset/{id}/logical/snapshot/svg/: the demo pictures are unchanged', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await makeDemoApp();
    token = await t.token();
  });
  after(() => t.close());

  // One dataset (the exchange points: the smallest) keeps the test cheap; every dataset goes through the same renderer.
  it('draws a demo dataset with the default label byte for byte as with the placeholder form', async () => {
    const created = await t.request('/api/v1/template/', { method: 'POST', token, json: { name: 'Placeholder label', template: PLACEHOLDER_LABEL } });
    assert.equal(created.status, 201);
    const { templateId } = (await created.json()) as { templateId: string };
    const datasets = (await (await t.request('/api/v1/datasets/', { token })).json()) as { datasetId: string; name: string }[];
    for (const { datasetId } of datasets.filter((d) => d.name === 'Exchange point links')) {
      const base = `/api/v1/output/dataset/${datasetId}/logical/snapshot/svg/`;
      const [now, before] = await Promise.all([t.request(base, { token }), t.request(`${base}?template=${templateId}`, { token })]);
      assert.deepEqual([now.status, before.status], [200, 200]);
      const picture = await now.text();
      assert.match(picture, /<rect x="-\d+" y="-9" width="\d+" height="18" rx="9"/, 'the pill is drawn from the bindings');
      assert.equal(picture, await before.text(), datasetId);
    }
  });
});
