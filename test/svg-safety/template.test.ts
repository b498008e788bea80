import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DOMParser } from '@xmldom/xmldom';
import { checkTemplate, compileTemplate, DEFAULT_TEMPLATES } from '../../svg-safety/template.ts';

const parses = (svg: string) =>
  new DOMParser({ onError: (l, m) => { throw new Error(`${l}: ${m}`); } })
    .parseFromString(`<svg xmlns="http://www.w3.org/2000/svg">${svg}</svg>`, 'image/svg+xml');

describe('checkTemplate', () => {
  const cases: [string, RegExp | null][] = [
    [DEFAULT_TEMPLATES.geographic.template, null],
    [DEFAULT_TEMPLATES.logical.template, null],
    ['<g><polygon points="0,0 5,5 0,5"/></g>', null],
    ['<g><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject></g>', null], // stripped at render
    ['<g>', /not well-formed/],
    ['<g></h>', /not well-formed/],
    ['<g a="1" a="2"/>', /not well-formed/],
    ['<!DOCTYPE x [<!ENTITY a "b">]><g>&a;</g>', /DOCTYPE/],
    ['<g>&lol;</g>', /not well-formed/],
    ['text only', /at least one SVG element/],
    ['', /non-empty/],
    ['<script>alert(1)</script>', /<script>/],
    ['<g><SCRIPT/></g>', /SCRIPT/],
    ['<g onclick="x()"/>', /event-handler/],
    ['<g><set attributeName="onmouseover" to="alert(1)"/></g>', /<set>/],
    ['<use href="&#106;avascript:alert(1)"/>', /javascript:/],
    ['<g><text>Metadata: fine</text></g>', null],
    ['<g>'.repeat(64) + '</g>'.repeat(64), null],
    ['<g>'.repeat(65) + '</g>'.repeat(65), /must not nest elements more than 64 levels deep/],
  ];
  for (const [markup, expected] of cases) {
    it(`${expected ? 'refuses' : 'accepts'} ${JSON.stringify(markup).slice(0, 70)}`, () => {
      const r = checkTemplate(markup);
      if (expected === null) assert.equal(r, null);
      else assert.match(String(r), expected);
    });
  }
  it('refuses a non-string', () => assert.match(String(checkTemplate(42)), /string/));
});

describe('compileTemplate', () => {
  it('substitutes name, endpoint_name and meta fields with XML escaping', () => {
    const t = compileTemplate('<g data-width="12" data-height="7"><title>{{ meta.descr }}</title><text x="{{ meta.x }}">{{name}} / {{ endpoint_name }}</text></g>');
    const r = t.render({ name: 'A&B', endpoint_name: '<b>', meta: { descr: `"quoted" & 'single'`, x: 3 } });
    assert.equal(r.svg, `<g data-width="12" data-height="7"><title>"quoted" &amp; 'single'</title><text x="3">A&amp;B / &lt;b&gt;</text></g>`);
    assert.equal(r.width, 12);
    assert.equal(r.height, 7);
    parses(r.svg);
  });

  it('drops an attribute whose substituted value is unsafe, keeps a safe one', () => {
    const t = compileTemplate('<rect fill="{{ meta.c }}" style="{{ meta.s }}"/>');
    assert.equal(t.render({ name: 'n', meta: { c: 'url(https://evil.example/x#a)', s: 'background:url(x)' } }).svg, '<rect/>');
    assert.equal(t.render({ name: 'n', meta: { c: 'javascript:alert(1)', s: 'a\\62 c' } }).svg, '<rect/>');
    assert.equal(t.render({ name: 'n', meta: { c: 'url(#grad)', s: 'opacity:.5' } }).svg, '<rect fill="url(#grad)" style="opacity:.5"/>');
  });

  it('cannot be made to emit markup through values', () => {
    const t = compileTemplate('<g><text>{{ name }}</text><rect class="{{ name }}"/></g>');
    const r = t.render({ name: '"/><script>alert(1)</script><x a="', meta: {} });
    assert.ok(!r.svg.includes('<script'));
    assert.equal(parses(r.svg).getElementsByTagName('script').length, 0);
  });

  it('scopes the ids a template defines, and its references to them, to that template; other references stay', () => {
    const badge = (colour: string) => compileTemplate(
      `<g><defs><linearGradient id="g"><stop offset="0" stop-color="${colour}"/></linearGradient><path id="p" d="M0 0h9"/></defs>` +
      `<rect width="9" height="9" fill="url(#g)" style="stroke:url('#g')" filter="url(#page-shadow)"/><use href="#p"/><textPath xlink:href="#elsewhere"/></g>`);
    const [red, blue] = [badge('#ff0000'), badge('#0000ff')].map((t) => t.render({ name: 'n', meta: {} }).svg);
    const ids = (svg: string) => [...svg.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    const [gRed, pRed] = ids(red), [gBlue] = ids(blue);
    assert.match(gRed, /^t[0-9a-f]{8}-g$/);
    assert.equal(pRed, gRed.replace(/g$/, 'p'));
    assert.notEqual(gRed, gBlue, 'two templates never share an id');
    assert.ok(red.includes(`fill="url(#${gRed})"`) && red.includes(`style="stroke:url(&#39;#${gRed}&#39;)"`) && red.includes(`href="#${pRed}"`), red);
    assert.ok(red.includes('filter="url(#page-shadow)"') && red.includes('href="#elsewhere"'), 'ids it does not define are the page\'s');
    assert.equal(badge('#ff0000').render({ name: 'other node', meta: {} }).svg, red, 'the same template, the same ids');
  });

  it('leaves a template without ids, and ids that hold a placeholder, as they are', () => {
    const t = compileTemplate('<g id="node-{{ name }}"><rect fill="url(#page-gradient)"/></g>');
    assert.equal(t.render({ name: 'r1', meta: {} }).svg, '<g id="node-r1"><rect fill="url(#page-gradient)"/></g>');
  });

  it('sizes the default logical pill from the label', () => {
    const t = compileTemplate(DEFAULT_TEMPLATES.logical.template);
    const short = t.render({ name: 'A', meta: {} }), long = t.render({ name: 'A much longer router name', meta: {} });
    assert.ok(long.width! > short.width! + 80, `${short.width} vs ${long.width}`);
  });
});
