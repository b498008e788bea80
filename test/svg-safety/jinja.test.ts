// The safe Jinja subset (svg-safety/jinja.ts) through compileTemplate: every
// construct with the output it must give, and every way out of the subset
// with the problem it must report.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkTemplate, compileTemplate, type TemplateContext } from '../../svg-safety/template.ts';
import { parseExpression } from '../../svg-safety/jinja-expression.ts';
import { JinjaError, MAX_VALUE_CHARS } from '../../svg-safety/jinja-values.ts';
import { cpuMs } from '../helpers/cpu-time.ts';

const NODE: TemplateContext = {
  name: 'chic-cr6',
  endpoint_name: 'CHIC-CR6',
  meta: {
    site: 'Chicago', tier: '2', capacity: 100, zero: 0, empty: '', nothing: null, up: true,
    'odd key': 'spaced', 'dotted.key': 'D', 'a-b': 'hyphen', 'x|y': 'pipe-key',
    tags: ['core', 'edge'], nested: { inner: { deep: 'N' } }, descr: 'A & B <c>',
    load: '3.14159', long: 'the quick brown fox jumps over the lazy dog',
  },
};

/** The text a template `<text>…</text>` renders to for NODE, unescaped. */
function textOf(inner: string, ctx: TemplateContext = NODE): string {
  const t = compileTemplate(`<text>${inner}</text>`);
  assert.deepEqual(t.problems, [], `no problems for ${inner}`);
  const svg = t.render(ctx).svg;
  const m = /^<text>([\s\S]*)<\/text>$|^<text\/>$/.exec(svg);
  assert.ok(m, svg);
  return (m[1] ?? '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

describe('Jinja subset: expressions', () => {
  const cases: [string, string][] = [
    // names
    ['{{ name }}', 'chic-cr6'],
    ['{{ endpoint_name }}', 'CHIC-CR6'],
    ['{{name}}', 'chic-cr6'],
    ['{{ unknown_name }}', ''],
    // meta lookups
    ['{{ meta.site }}', 'Chicago'],
    ['{{ meta["site"] }}', 'Chicago'],
    ["{{ meta['site'] }}", 'Chicago'],
    ["{{ meta['odd key'] }}", 'spaced'],
    ['{{ meta["dotted.key"] }}', 'D'],
    ['{{ meta.nested.inner.deep }}', 'N'],
    ['{{ meta["nested"]["inner"].deep }}', 'N'],
    ['{{ meta.tags[0] }}/{{ meta.tags[-1] }}/{{ meta.tags[5] }}', 'core/edge/'],
    ['{{ meta.missing }}', ''],
    ['{{ meta.missing.deeper }}', ''],
    ['{{ meta.nothing }}', ''],
    ['{{ meta.tags }}', 'core, edge'],
    ['{{ meta.nested }}', ''],
    ['{{ meta[meta.site|lower|replace("chicago", "site")] }}', 'Chicago'],
    // literals
    ['{{ "double" }}{{ \'single\' }}', 'doublesingle'],
    ['{{ "a\\"b" }}', 'a"b'],
    ['{{ 42 }} {{ 2.5 }} {{ -3 }}', '42 2.5 -3'],
    ['{{ true }} {{ none }}', 'true '],
    // filters
    ['{{ name|upper }}', 'CHIC-CR6'],
    ['{{ endpoint_name|lower }}', 'chic-cr6'],
    ['{{ meta.site | upper }}', 'CHICAGO'],
    ['{{ "hello big-world (x)"|title }}', 'Hello Big-World (X)'],
    ['{{ "hELLO wORLD"|capitalize }}', 'Hello world'],
    ['{{ "  padded  "|trim }}|', 'padded|'],
    ['{{ "xxhixx"|trim("x") }}', 'hi'],
    ['{{ meta.missing|default("n/a") }}', 'n/a'],
    ['{{ meta.missing|d("n/a") }}', 'n/a'],
    ['{{ meta.nothing|default("n/a") }}', 'n/a'],
    ['{{ meta.empty|default("n/a") }}|', '|'],
    ['{{ meta.empty|default("n/a", true) }}', 'n/a'],
    ['{{ meta.site|default("n/a") }}', 'Chicago'],
    ['{{ meta.missing|default }}|', '|'],
    ['{{ meta.long|truncate(20) }}', 'the quick brown...'],
    ['{{ meta.long|truncate(20, true) }}', 'the quick brown f...'],
    ['{{ meta.long|truncate(20, end="…") }}', 'the quick brown…'],
    ['{{ "short"|truncate(3) }}', 'short'],
    ['{{ name|replace("-", "_") }}', 'chic_cr6'],
    ['{{ "aaa"|replace("a", "b", 2) }}', 'bba'],
    ['{{ "ab"|replace("", "-") }}', '-a-b-'],
    ['{{ meta.load|round(2) }}', '3.14'],
    ['{{ 2.5|round }} {{ 2.4|round }} {{ 2.41|round(1, "ceil") }} {{ 2.49|round(1, "floor") }}', '3 2 2.5 2.4'],
    ['{{ meta.load|int }} {{ "x"|int }} {{ "x"|int(7) }} {{ meta.load|float }}', '3 0 7 3.14159'],
    ['{{ -4|abs }}', '4'],
    ['{{ meta.capacity|string }}', '100'],
    ['{{ meta.descr|e }}|{{ meta.descr|escape }}|{{ meta.descr }}', 'A & B <c>|A & B <c>|A & B <c>'],
    ['{{ meta.tags|length }} {{ meta.site|count }} {{ meta.nested|length }}', '2 7 1'],
    ['{{ meta.tags|first }} {{ meta.tags|last }} {{ name|first }}', 'core edge c'],
    ['{{ meta.tags|join(" + ") }}', 'core + edge'],
    ['{{ meta.site|lower|replace("o", "0")|upper|truncate(5, true, "") }}', 'CHICAG0'],
    ['{{ meta.site|lower|replace("o", "0")|upper|truncate(5, true, "", 0) }}', 'CHICA'],
    // operators
    ['{{ name ~ " @ " ~ meta.site }}', 'chic-cr6 @ Chicago'],
    ['{{ "big" if meta.capacity > 50 else "small" }}', 'big'],
    ['{{ "big" if meta.capacity > 500 else "small" }}', 'small'],
    ['{{ "shown" if meta.missing }}|', '|'],
    ['{{ meta.missing or "fallback" }}', 'fallback'],
    ['{{ meta.site and meta.tier }}', '2'],
    ['{{ (meta.capacity > 50) and not meta.zero }}', 'true'],
    ['{{ meta.site is defined }} {{ meta.missing is defined }} {{ meta.missing is not defined }}', 'true false true'],
    ['{{ meta.nothing is none }} {{ meta.capacity is number }} {{ meta.site is string }} {{ meta.x is undefined }}', 'true true true true'],
  ];
  for (const [inner, expected] of cases) {
    it(`${inner} → ${JSON.stringify(expected)}`, () => assert.equal(textOf(inner), expected));
  }
});

describe('Jinja subset: {% if %} and comparisons', () => {
  const cases: [string, string][] = [
    ['{% if meta.up %}up{% endif %}', 'up'],
    ['{% if meta.zero %}yes{% else %}no{% endif %}', 'no'],
    ['{% if meta.empty %}yes{% else %}no{% endif %}', 'no'],
    ['{% if meta.tags %}yes{% endif %}', 'yes'],
    ['{% if meta.missing %}yes{% elif meta.site == "Chicago" %}chi{% else %}no{% endif %}', 'chi'],
    ['{% if meta.tier == 1 %}1{% elif meta.tier == 2 %}2{% elif meta.tier == 3 %}3{% endif %}', '2'],
    ['{% if meta.tier == "2" %}text{% endif %}', 'text'],
    ['{% if meta.tier != 2 %}ne{% else %}eq{% endif %}', 'eq'],
    ['{% if meta.capacity >= 100 and meta.capacity <= 100 %}exact{% endif %}', 'exact'],
    ['{% if meta.capacity > 99 %}a{% endif %}{% if meta.capacity < 99 %}b{% endif %}', 'a'],
    ['{% if "10" < "9" %}string order{% endif %}', 'string order'],
    ['{% if 1 < meta.capacity < 1000 %}chained{% endif %}', 'chained'],
    ['{% if meta.site < 5 %}never{% else %}incomparable{% endif %}', 'incomparable'],
    ['{% if "core" in meta.tags %}in{% endif %}{% if "wan" not in meta.tags %} notin{% endif %}', 'in notin'],
    ['{% if "hic" in meta.site %}sub{% endif %}', 'sub'],
    ['{% if "site" in meta %}key{% endif %}{% if "constructor" in meta %}proto{% endif %}', 'key'],
    ['{% if not meta.missing %}not{% endif %}', 'not'],
    ['{% if meta.up or meta.missing %}or{% endif %}', 'or'],
    ['{% if meta.up and meta.missing %}and{% else %}nand{% endif %}', 'nand'],
    ['{% if meta.up %}{% if meta.zero %}inner{% else %}outer{% endif %}{% endif %}', 'outer'],
    ['a{# a comment, {{ not rendered }} #}b', 'ab'],
    ['a {%- if true -%} b {%- endif %} c', 'ab c'],
    ['{{- " x " -}}', ' x '],
  ];
  for (const [inner, expected] of cases) {
    it(`${inner} → ${JSON.stringify(expected)}`, () => assert.equal(textOf(inner), expected));
  }

  it('chooses among elements, not only text', () => {
    const t = compileTemplate('<g>{% if meta.up %}<circle r="5"/>{% else %}<rect width="4" height="4"/>{% endif %}<text>{{ name }}</text></g>');
    assert.equal(t.render(NODE).svg, '<g><circle r="5"/><text>chic-cr6</text></g>');
    assert.equal(t.render({ ...NODE, meta: { up: false } }).svg, '<g><rect width="4" height="4"/><text>chic-cr6</text></g>');
  });

  it('works inside attribute values, whose result is checked like any value', () => {
    const t = compileTemplate(`<circle r="{{ 8 if meta.capacity > 50 else 4 }}" fill="{% if meta.tier == 2 %}#ff0000{% else %}{{ meta.colour|default('#00ff00') }}{% endif %}"/>`);
    assert.equal(t.render(NODE).svg, '<circle r="8" fill="#ff0000"/>');
    assert.equal(t.render({ name: 'n', meta: { capacity: 1 } }).svg, '<circle r="4" fill="#00ff00"/>');
    assert.equal(t.render({ name: 'n', meta: { colour: 'url(https://evil.example/#x)' } }).svg, '<circle r="4"/>');
  });

  it('reads comparisons written as Terranova renders them (< and & unescaped inside Jinja)', () => {
    const t = compileTemplate('<g><text>{% if meta.capacity < 200 && true %}{% endif %}</text></g>');
    assert.match(t.problems.join(), /operator `&`/, 'the fix-up only makes it parse; Jinja has no &&');
    assert.equal(textOf('{% if meta.capacity < 200 %}small{% endif %}{{ " R&D" }}'), 'small R&D');
    assert.equal(textOf('{{ "R&amp;D" }}'), 'R&D', 'a reference the author escaped stays one character');
    assert.match(String(checkTemplate('<g><text>a < b</text></g>')), /not well-formed/, 'outside Jinja, XML rules stay');
  });
});

describe('Jinja subset: output is escaped exactly once', () => {
  it('escapes values and literals once, whatever escaping filters say', () => {
    const t = compileTemplate('<g><text>{{ meta.v }}|{{ meta.v|e }}|{{ meta.v|escape|e }}|{{ "&lt;b&gt;" }}</text><rect class="{{ meta.v|e }}"/></g>');
    const svg = t.render({ name: 'n', meta: { v: 'A&B <i>' } }).svg;
    assert.equal(svg, '<g><text>A&amp;B &lt;i&gt;|A&amp;B &lt;i&gt;|A&amp;B &lt;i&gt;|&lt;b&gt;</text><rect class="A&amp;B &lt;i&gt;"/></g>');
    assert.ok(!svg.includes('&amp;amp;') && !svg.includes('&amp;lt;'));
  });
});

describe('Jinja subset: the original placeholders keep their meaning', () => {
  it('meta keys with hyphens, dots and other characters the old placeholder read', () => {
    assert.equal(textOf('{{ meta.a-b }}'), 'hyphen');
    assert.equal(textOf('{{ meta.dotted.key }}'), 'D', 'a key holding a dot wins over nesting, as before');
    assert.equal(textOf('{{ meta.site|upper }}'), 'CHICAGO', '| is now a filter');
    assert.match(String(checkTemplate('<text>{{ meta.x|y }}</text>')), /the filter `y` is not supported/, 'not a key holding |');
    assert.equal(compileTemplate('<text>{{ meta.__proto__ }}{{ meta.constructor }}</text>').render(NODE).svg, '<text/>'.replace('/>', '></text>'));
    assert.equal(textOf('{{ label_width }} {{ label_x }}', { name: 'A', meta: {} }), '23 -12');
  });
});

describe('Jinja subset: what is not in it is named, at save and in expressions', () => {
  const refused: [string, RegExp][] = [
    ['{% for x in range(1000000) %}x{% endfor %}', /`\{% for %\}` is not supported/],
    ['{% set x = 1 %}', /`\{% set %\}` is not supported/],
    ['{% macro m() %}{% endmacro %}', /`\{% macro %\}` is not supported/],
    ['{% include "other" %}', /`\{% include %\}` is not supported/],
    ['{% import "x" as y %}', /`\{% import %\}` is not supported/],
    ['{% raw %}x{% endraw %}', /`\{% raw %\}` is not supported/],
    ['{{ name|wordwrap }}', /the filter `wordwrap` is not supported/],
    ['{{ name|safe }}', /filter `safe` is not supported: node values are always written as escaped text/],
    ['{{ name|attr("x") }}', /the filter `attr` is not supported/],
    ['{{ name|truncate(1, 2, 3, 4, 5) }}', /takes at most 4 arguments/],
    ['{{ name|truncate(size=3) }}', /has no argument `size`/],
    ["{{ ''.__class__ }}", /`__class__` is not a field that can be read/],
    ['{{ meta.__proto__ }}', /`__proto__` is not a field that can be read/],
    ['{{ meta.constructor }}', /`constructor` is not a field that can be read/],
    ["{{ ''.__class__.__mro__[1].__subclasses__() }}", /not supported|cannot be read|not a field/],
    ['{{ meta["__proto__"] }}', /`__proto__` is not a field/],
    ['{{ meta.constructor.constructor("return 1")() }}', /calls such as `meta\.constructor\.constructor\(…\)` are not supported/],
    ['{{ range(10) }}', /calls such as `range\(…\)` are not supported/],
    ['{{ cycler.__init__.__globals__ }}', /`__init__` is not a field/],
    ['{{ 7 * 7 }}', /the operator `\*` is not supported/],
    ['{{ [1, 2] }}', /list literals are not supported/],
    ['{{ {"a": 1} }}', /not supported|unexpected/],
    ['{{ name', /`\{\{` has no closing `\}\}`/],
    ['{% if name %}', /is not closed by \{% endif %\}/],
    ['{% endif %}', /has no \{% if %\} before it/],
    ['{% if a %}{% else %}{% elif b %}{% endif %}', /comes after \{% else %\}/],
    ['{# never closed', /`\{#` has no closing `#\}`/],
    ['{{ }}', /the expression is empty/],
    [`{{ ${'('.repeat(40)}name${')'.repeat(40)} }}`, /nested more than 32 levels deep/],
    ['{% if 1 %}'.repeat(17) + '{% endif %}'.repeat(17), /nest more than 16 deep/],
    ['{% else if x %}', /\{% else %\} takes nothing after it|has no \{% if %\}/],
  ];
  for (const [inner, message] of refused) {
    it(`refuses ${JSON.stringify(inner).slice(0, 70)}`, () => {
      const problem = checkTemplate(`<g><text>${inner.replace(/</g, '&lt;')}</text></g>`);
      assert.match(String(problem), message);
      assert.match(String(problem), /^template: /);
    });
  }

  it('refuses a block that opens in one element and closes in another', () => {
    assert.match(String(checkTemplate('<g><text>{% if meta.up %}</text><text>{% endif %}</text></g>')), /not closed by \{% endif %\} within the same element/);
    assert.match(String(checkTemplate('<g>{% if meta.up %}<text>{% else %}</text>{% endif %}</g>')), /within the same element|has no \{% if %\}/);
  });

  it('parseExpression throws JinjaError, never anything else, on odd input', () => {
    for (const src of ['', ')', '(', '|', 'a |', 'a.', 'a[', 'a[]', '"open', 'a if', 'not', 'a is', 'a is odd', '-', 'a ~', '1 2', 'x = 1', 'a[1:2]', '(a, b)']) {
      assert.throws(() => parseExpression(src), JinjaError, src);
    }
  });
});

describe('Jinja subset: bounded', () => {
  it('cuts a filter result at MAX_VALUE_CHARS and gives up on a chain of growing replaces', () => {
    const grow = "|replace('a', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')".repeat(40);
    const t = compileTemplate(`<text>{{ name${grow} }}</text>`);
    assert.deepEqual(t.problems, []);
    const { ms, result: r } = cpuMs(() => {
      for (let i = 0; i < 200; i++) t.render({ name: 'aaaa', meta: {} });
      return t.render({ name: 'aaaa', meta: {} });
    });
    assert.ok(r.svg.length < MAX_VALUE_CHARS + 20, `length ${r.svg.length}`);
    assert.ok(ms < 3000, `each render stops early: ${Math.round(ms)} ms of CPU for 201`);
    assert.equal(compileTemplate("<text>{{ name|replace('a', 'aaaaaaaaaa')|replace('a', 'aaaaaaaaaa')|replace('a', 'aaaaaaaaaa') }}</text>").render({ name: 'aaaa', meta: {} }).svg.length,
      '<text></text>'.length + 4000, 'within the limits, the whole value');
    const one = compileTemplate(`<text>{{ meta.v|replace('a', 'aaaaaaaaaa') }}</text>`).render({ name: 'n', meta: { v: 'a'.repeat(5000) } });
    assert.equal(one.svg.length, '<text></text>'.length + MAX_VALUE_CHARS);
  });

  it('a save answer warns when the sample node already hits the limits', () => {
    const t = compileTemplate(`<text>{{ "example"${"|replace('e', 'eeeeeeeeee')".repeat(12)} }}</text>`);
    assert.ok(t.warnings.some((w) => /values are cut/.test(w)), t.warnings.join('\n'));
  });

  it('reads many unclosed delimiters and long whitespace runs in linear time', () => {
    const slow: string[] = [];
    for (const markup of [
      `<g><text>${'{{'.repeat(30000)}</text></g>`,
      `<g><text>${'{%'.repeat(30000)}</text></g>`,
      `<g><text>${'{{ "'.repeat(15000)}</text></g>`,
      `<g>${'{{'.repeat(30000)}<</g>`, // not well-formed: the Jinja fix-up reads it too
      `<g><text>${' '.repeat(60000)}x{{- name }}</text></g>`,
    ]) {
      if (cpuMs(() => checkTemplate(markup)).ms > 1500) slow.push(markup.slice(0, 20));
    }
    assert.deepEqual(slow, []);
  });

  it('a long chain of cheap filters stops at the work budget', () => {
    const t = compileTemplate(`<text>{{ name${'|upper'.repeat(8000)} }}</text>`);
    const { ms } = cpuMs(() => {
      for (let i = 0; i < 100; i++) t.render(NODE);
    });
    assert.ok(ms < 2000, `${Math.round(ms)} ms of CPU for 100 renders`);
    assert.equal(t.render(NODE).svg, '<text></text>');
  });
});
