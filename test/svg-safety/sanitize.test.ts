import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkAttribute, elementMarkup, escapeAttr, escapeText, serialize } from '../../svg-safety/sanitize.ts';
import { parseFragment, sanitizeFragment } from '../../svg-safety/parse.ts';
import { newCanvas } from '../../render/svg-canvas.ts';
import { bfsLevels } from '../../render/logical-layout.ts';

describe('checkAttribute', () => {
  const cases: [string, string, string, string | null][] = [
    ['path', 'd', 'M0 0L10 10', 'M0 0L10 10'],
    ['g', 'transform', 'translate(1.5,2) rotate(45)', 'translate(1.5,2) rotate(45)'],
    ['rect', 'fill', 'rgb(1, 2, 3)', 'rgb(1, 2, 3)'],
    ['rect', 'fill', 'url(#grad)', 'url(#grad)'],
    ['rect', 'fill', "url('#grad')", "url('#grad')"],
    ['rect', 'fill', 'url(x)', null],
    ['rect', 'fill', 'URL(x)', null],
    ['rect', 'fill', 'url(#a) url(https://evil.example/b)', null],
    ['rect', 'style', 'fill:red;opacity:.5', 'fill:red;opacity:.5'],
    ['rect', 'style', 'width:expression(alert(1))', null],
    ['rect', 'style', 'fill:\\75 rl(x)', null],
    ['rect', 'style', '@import "x"', null],
    // read as CSS: escapes and functions that fetch by string, in style and presentation attributes alike
    ['rect', 'fill', 'u\\72l(http://evil.example/x)', null],
    ['rect', 'clip-path', '\\75rl(http://evil.example/x)', null],
    ['rect', 'mask', "image-set('http://evil.example/x' 1x)", null],
    ['rect', 'fill', '-webkit-image-set("http://evil.example/x" 1x)', null],
    ['rect', 'style', "background-image:image-set('http://evil.example/x' 1x)", null],
    ['rect', 'style', "mask-image:cross-fade(url(#a), 'x.png')", null],
    ['rect', 'filter', "drop-shadow(0 0 2px rgba(0,0,0,.5)) blur(1px)", "drop-shadow(0 0 2px rgba(0,0,0,.5)) blur(1px)"],
    ['text', 'font-family', "'Open Sans', sans-serif", "'Open Sans', sans-serif"],
    ['rect', 'style', 'transform:translate3d(1px,2px,0);fill:hsl(120, 50%, 50%)', 'transform:translate3d(1px,2px,0);fill:hsl(120, 50%, 50%)'],
    ['rect', 'data-note', 'a\\b (see image-set(x))', 'a\\b (see image-set(x))'],
    // names and plain text are not CSS: kept as written (escaped on output)
    ['g', 'class', 'AT&T (primary)', 'AT&T (primary)'],
    ['g', 'id', 'core:router(1)', 'core:router(1)'],
    ['g', 'class', 'Link behavior: protected', 'Link behavior: protected'],
    // CSS that fetches nothing
    ['g', 'style', 'transform:translateZ(0) rotateZ(45deg);clip-path:circle(40%);transition-timing-function:cubic-bezier(.2,0,.2,1)',
      'transform:translateZ(0) rotateZ(45deg);clip-path:circle(40%);transition-timing-function:cubic-bezier(.2,0,.2,1)'],
    ['rect', 'class', 'java\tscript:alert(1)', null],
    ['rect', 'class', '&#106;avascript&#58;x', null],
    ['rect', 'class', 'data:text/html,x', null],
    ['rect', 'onclick', 'x', null],
    ['rect', 'onClick', 'x', null],
    ['rect', 'data-site', 'SEA', 'SEA'],
    ['rect', 'data-x', 'javascript:1', null],
    ['use', 'href', '#node', '#node'],
    ['use', 'href', ' #node ', '#node'],
    ['use', 'href', 'https://evil.example/#node', null],
    ['use', 'xlink:href', '#a', '#a'],
    ['rect', 'href', '#a', null],
    ['rect', 'unknown', '1', null],
  ];
  for (const [el, name, value, expected] of cases) {
    it(`${el} ${name}=${JSON.stringify(value)} -> ${JSON.stringify(expected)}`, () => assert.equal(checkAttribute(el, name, value), expected));
  }
});

describe('escaping', () => {
  it('escapes markup characters and drops characters XML cannot carry', () => {
    assert.equal(escapeText('a<b>&c\u0000\u0007d😀'), 'a&lt;b&gt;&amp;cd😀');
    assert.equal(escapeAttr(`"'<\n`), '&quot;&#39;&lt;&#10;');
    assert.equal(escapeText('lone \uD800 surrogate'), 'lone  surrogate');
  });
});

describe('elementMarkup', () => {
  const cases: [string, string, Record<string, string>, string, string][] = [
    ['writes an allowlisted element with its content', 'path', { d: 'M0 0L1 1' }, '<title>t</title>', '<path d="M0 0L1 1"><title>t</title></path>'],
    ['closes an element without content', 'g', { transform: 'translate(1,2)' }, '', '<g transform="translate(1,2)"/>'],
    ['escapes attribute values', 'g', { 'aria-label': `"<a>" & 'b'` }, '', '<g aria-label="&quot;&lt;a&gt;&quot; &amp; &#39;b&#39;"/>'],
    ['drops attributes not on the allowlist', 'path', { d: 'M0 0', onclick: 'alert(1)', srcdoc: 'x' }, '', '<path d="M0 0"/>'],
    ['drops values the walker drops', 'rect', { fill: 'url(http://evil/x)', stroke: 'javascript:alert(1)', width: '3' }, '', '<rect width="3"/>'],
    ['keeps a local href on use', 'use', { href: '#marker' }, '', '<use href="#marker"/>'],
    ['drops any other href', 'use', { href: 'https://evil/x' }, '', '<use/>'],
    ['writes nothing for an element not on the allowlist', 'script', {}, 'alert(1)', ''],
    ['writes nothing for foreignObject', 'foreignObject', { width: '1' }, '<div/>', ''],
  ];
  for (const [what, name, attrs, content, expected] of cases) {
    it(what, () => assert.equal(elementMarkup(name, attrs, content), expected));
  }

  it('agrees with serializing the same element built on svgdom', () => {
    const c = newCanvas();
    const attrs = { d: 'M1 2C3 4 5 6 7 8', transform: 'translate(1.5,2)', style: 'fill:red', 'data-x': '<&>' };
    const path = c.path().attr(attrs);
    const viaDom = serialize(path.node as never);
    assert.equal(elementMarkup('path', attrs), viaDom);
  });
});

describe('serialize', () => {
  it('walks an svgdom tree built with svg.js and keeps only allowlisted content', () => {
    const c = newCanvas();
    c.rect(10, 10).attr({ onclick: 'alert(1)', fill: '#f00' });
    c.element('script').words('alert(1)');
    c.element('foreignObject');
    c.plain('a < b');
    const out = serialize(c.node as never, { root: true });
    assert.match(out, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.ok(out.includes('<rect') && out.includes('fill="#ff0000"'));
    assert.ok(!/onclick|script|foreignObject/.test(out), out);
    assert.ok(out.includes('a &lt; b'));
  });

  it('writes registered inner content in place of children, still checking the element', () => {
    const c = newCanvas();
    const g = c.group().attr({ onload: 'x', opacity: 0.5 });
    g.rect(1, 1);
    const inner = new WeakMap<object, string>([[g.node, '<title>t</title>']]);
    const out = serialize(c.node as never, { inner });
    assert.ok(out.includes('<g opacity="0.5"><title>t</title></g>'), out);
  });

  it('is a fixed point: sanitizing sanitized markup changes nothing', () => {
    const once = sanitizeFragment('<g onclick="x"><rect fill="url(#a)" stroke="url(http://e)"/><text>&amp;&lt;</text></g>');
    assert.equal(sanitizeFragment(once), once);
    assert.equal(once, '<g><rect fill="url(#a)"/><text>&amp;&lt;</text></g>');
  });

  it('refuses entity declarations and reports the first parser error', () => {
    assert.throws(() => parseFragment('<!DOCTYPE a [<!ENTITY b "c">]><g>&b;</g>'), /DOCTYPE/);
    assert.throws(() => parseFragment('<g><h></g>'), /not well-formed XML: .+/);
    assert.equal(sanitizeFragment('<g>'), '');
  });
});

describe('bfsLevels (logical layout orientation)', () => {
  it('levels each component from a peripheral node, the earlier of two far-apart ones', () => {
    // component 1: path 0-1-2-3 with a spur 1-4; component 2: 5-6
    assert.deepEqual(bfsLevels(7, [[1, 2], [0, 1], [2, 3], [1, 4], [6, 5]]), [0, 1, 2, 3, 2, 0, 1]);
  });
});
