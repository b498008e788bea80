// The XSS corpus: every vector docs/render.md (SVG pictures) guards against, through node templates,
// through spreadsheet values, through override states and inline map JSON.
// Nothing emitted - topology `meta.svg` or a picture - may contain a script,
// an event handler, a javascript:/data: URL, foreignObject content or an
// external reference.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology } from '../../render/topology.ts';
import { renderMapSvg, renderTopologySvg } from '../../render/svg.ts';
import { applyOverrides } from '../../output/overrides.ts';
import { checkTemplate } from '../../svg-safety/template.ts';
import { ep, rec } from './fixtures.ts';
import { activeContent } from './svg-check.ts';

const TEMPLATE_PAYLOADS: string[] = [
  '<script>alert(1)</script>',
  '<g><script xlink:href="https://evil.example/x.js"/></g>',
  '<x:script xmlns:x="http://www.w3.org/2000/svg">alert(1)</x:script>',
  '<g onload="alert(1)"><rect/></g>',
  '<svg onload="alert(1)"/>',
  '<rect ONCLICK="alert(1)"/>',
  '<set attributeName="onmouseover" to="alert(1)"/>',
  '<rect><set attributeName="onclick" to="alert(1)" begin="0s"/></rect>',
  '<animate attributeName="href" values="javascript:alert(1)"/>',
  '<a><animate attributeName="xlink:href" to="javascript:alert(1)"/><text>x</text></a>',
  '<animateTransform attributeName="transform" onbegin="alert(1)"/>',
  '<discard onbegin="alert(1)"/>',
  '<a href="javascript:alert(1)"><rect/></a>',
  '<a xlink:href="javascript:alert(1)"><text>x</text></a>',
  '<use href="javascript:alert(1)"/>',
  '<use href="&#106;avascript:alert(1)"/>',
  '<use href="&#x6A;avascript&#x3A;alert(1)"/>',
  '<use href="jav&#x09;ascript:alert(1)"/>',
  '<use href="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"/>',
  '<use xlink:href="http://evil.example/x.svg#a"/>',
  '<use href="//evil.example/x.svg#a"/>',
  '<image href="https://evil.example/x.png"/>',
  '<image xlink:href="data:image/png;base64,AAAA"/>',
  '<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert(1)"/></foreignObject>',
  '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml" onclick="alert(1)">x</div></foreignObject>',
  '<foreignObject><script xmlns="http://www.w3.org/1999/xhtml">alert(1)</script></foreignObject>',
  '<iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example"/>',
  '<rect style="fill:url(https://evil.example/p)"/>',
  '<rect fill="url(https://evil.example/#p)"/>',
  '<rect fill="url( \'https://evil.example/#p\' )"/>',
  '<rect style="background-image:url(javascript:alert(1))"/>',
  '<rect style="width:expression(alert(1))"/>',
  '<rect style="fill:\\75 rl(https://evil.example/)"/>',
  '<style>@import url(https://evil.example/x.css);</style>',
  '<style>rect{fill:url(https://evil.example/#p)}</style>',
  '<rect filter="url(https://evil.example/f.svg#f)"/>',
  '<filter><feImage href="https://evil.example/x.png"/></filter>',
  '<text><tref xlink:href="https://evil.example/t.svg#t"/></text>',
  '<pattern id="p" href="https://evil.example/p.svg#p"/>',
  '<rect data-x="javascript:alert(1)"/>',
  '<handler xmlns:ev="http://www.w3.org/2001/xml-events" ev:event="load">alert(1)</handler>',
  '<g><title><![CDATA[</title><script>alert(1)</script>]]></title></g>',
  '<?xml-stylesheet href="https://evil.example/x.css"?><g/>',
  '<!DOCTYPE svg [<!ENTITY x "<script>alert(1)</script>">]><g>&x;</g>',
  '<!DOCTYPE svg SYSTEM "https://evil.example/x.dtd"><g/>',
  '<!ENTITY x SYSTEM "file:///etc/passwd"><g>&x;</g>',
];

// Templates that are safe as written but receive hostile node values.
const HOLE_TEMPLATES: [string, Record<string, string>][] = [
  ['<rect fill="{{ meta.evil }}"/>', { evil: 'url(javascript:alert(1))' }],
  ['<rect style="{{ meta.evil }}"/>', { evil: 'background:url(https://evil.example/x)' }],
  ['<use href="{{ meta.evil }}"/>', { evil: 'https://evil.example/#a' }],
  ['<use href="#{{ meta.evil }}"/>', { evil: 'a" onload="alert(1)' }],
  ['<rect class="{{ meta.evil }}"/>', { evil: '" onload="alert(1)' }],
  ['<g><text>{{ meta.evil }}</text></g>', { evil: '</text><script>alert(1)</script>' }],
  ['<rect filter="{{ meta.evil }}"/>', { evil: 'url(data:image/svg+xml,<svg/>)' }],
];

// Spreadsheet values: node names, endpoint fields, edge names, capacity.
const VALUE_PAYLOADS = [
  '<script>alert(1)</script>',
  '"><svg onload=alert(1)>',
  "'><g onload='alert(1)'>",
  'javascript:alert(1)',
  ']]><script>alert(1)</script>',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '<!DOCTYPE x [<!ENTITY a "b">]>',
  'bad\u0000ctrl\u0008chars\uFFFE\uD800',
  '{{ name }}<foreignObject>',
  'url(https://evil.example/x)',
];

const geo = (i: number) => [10 + i, 20 + i] as const;

describe('the corpus checker', () => {
  it('flags every raw template payload that parses (so the tests below can fail)', () => {
    for (const p of TEMPLATE_PAYLOADS) {
      let problems: string[];
      try {
        problems = activeContent(p, true);
      } catch {
        continue; // DOCTYPE/ENTITY payloads: refused by the checker's parser itself
      }
      if (p.includes('CDATA')) continue; // CDATA content is text by definition
      assert.notDeepEqual(problems, [], p);
    }
  });
});

describe('XSS corpus through node templates', () => {
  const records = [rec('1', 'e', ep('A', ...geo(0)), ep('B', ...geo(1)))];
  for (const payload of TEMPLATE_PAYLOADS) {
    it(JSON.stringify(payload).slice(0, 90), async () => {
      let t;
      try {
        t = await buildTopology(records, { name: 'd', layout: 'geographic', template: payload });
      } catch (e) {
        assert.equal((e as { status?: number }).status, 422, 'a template that does not parse is a 422');
        assert.notEqual(checkTemplate(payload), null);
        return;
      }
      for (const n of t.nodes) assert.deepEqual(activeContent(String(n.meta.svg), true), []);
      assert.deepEqual(activeContent(renderTopologySvg(t)), []);
    });
  }
  for (const [tpl, meta] of HOLE_TEMPLATES) {
    it(`value ${JSON.stringify(meta.evil)} into ${tpl}`, async () => {
      const t = await buildTopology([rec('1', 'e', ep('A', 1, 2, meta), ep('B', 3, 4, meta))], { name: 'd', layout: 'geographic', template: tpl });
      for (const n of t.nodes) assert.deepEqual(activeContent(String(n.meta.svg), true), [], String(n.meta.svg));
      assert.deepEqual(activeContent(renderTopologySvg(t)), []);
    });
  }
  it('the template check refuses every active payload that still parses', () => {
    const refused = ['<script>alert(1)</script>', '<g onload="alert(1)"><rect/></g>', '<set attributeName="onmouseover" to="alert(1)"/>', '<use href="&#106;avascript:alert(1)"/>', '<use href="data:image/svg+xml;base64,PHN2Zz4="/>'];
    for (const p of refused) assert.notEqual(checkTemplate(p), null, p);
  });
});

describe('XSS corpus through spreadsheet values', () => {
  for (const [i, payload] of VALUE_PAYLOADS.entries()) {
    for (const layout of ['geographic', 'logical'] as const) {
      it(`${layout}: ${JSON.stringify(payload)}`, async () => {
        const a = ep(payload, ...geo(i), { descr: payload, [payload.slice(0, 10)]: payload });
        const t = await buildTopology([rec(payload, payload, a, ep(`B${i}`, ...geo(i + 1))), rec('2', payload, ep(`B${i}`, 1, 1), a, { capacity: payload })], { name: payload, layout, query: { node_group_criteria: ['descr'] } });
        assert.equal(t.nodes[0].name, payload.trim(), 'the value is kept as data');
        for (const n of t.nodes) assert.deepEqual(activeContent(String(n.meta.svg), true), []);
        const svg = renderTopologySvg(t);
        assert.deepEqual(activeContent(svg), []);
        const map = renderMapSvg({ name: payload, configuration: { showLegend: true, background: payload, layers: [{ name: payload, color: payload, mapjson: JSON.stringify(t) }] } });
        assert.deepEqual(activeContent(map), []);
      });
    }
  }
});

describe('XSS corpus through override states and inline map JSON', () => {
  for (const payload of TEMPLATE_PAYLOADS.slice(0, 30)) {
    it(JSON.stringify(payload).slice(0, 90), async () => {
      const base = await buildTopology([rec('1', 'e', ep('A', 1, 2), ep('B', 3, 4))], { name: 'd', layout: 'geographic' });
      const state = { name: 'X', coordinate: [5, 6] as [number, number], meta: { svg: payload } };
      const t = applyOverrides(base, { nodes: { X: { operation: 'add', state }, A: { operation: 'override', state: { ...state, name: 'A' } } }, edges: {} });
      for (const n of t.nodes) assert.deepEqual(activeContent(String(n.meta.svg), true), []);
      const inline = { name: 'i', nodes: [{ name: 'Q', coordinate: [1, 1], meta: { svg: payload } }], edges: [] };
      const svg = renderMapSvg({ configuration: { layers: [{ mapjson: JSON.stringify(t) }, { mapjson: inline }] } });
      assert.deepEqual(activeContent(svg), []);
      // a topology handed straight to the renderer, never normalized, is still sanitized on the way out
      const raw = { ...base, nodes: [{ name: 'R', coordinate: [1, 1] as [number, number], meta: { svg: payload } }] };
      assert.deepEqual(activeContent(renderTopologySvg(raw)), []);
    });
  }
});
