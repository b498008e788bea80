// Jinja templates as drawn: Terranova's own default templates, the default
// marker standing in where the sanitizer leaves a node empty (with a warning),
// and hostile templates and values, which render as text or as nothing and
// never run, never crash the topology or the picture.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology } from '../../render/topology.ts';
import { renderTopologySvg } from '../../render/svg.ts';
import { checkTemplate, compileTemplate, DEFAULT_TEMPLATES, templateWarnings } from '../../svg-safety/template.ts';
import { drawsSomething } from '../../svg-safety/template-draws.ts';
import { ep, rec } from '../render/fixtures.ts';
import { activeContent, parseSvg } from '../render/svg-check.ts';

// Terranova's DEFAULT_NODE_TEMPLATES (terranova/settings.py), as data.
const TERRANOVA_GEOGRAPHIC = "<g><rect x='-4' y='-4' width='8' height='8' /></g>";
const TERRANOVA_LOGICAL = '<g><foreignObject width="30" height="15" overflow="visible"><div xmlns="http://www.w3.org/1999/xhtml" style="border: 1px solid rgba(0,0,0,0.2); padding: 2px 5px; border-radius:15px; font-size:10px; background: white; text-align:center; margin-left:-30px; margin-top:-15px;">{{endpoint_name}}</div></foreignObject></g>';
// The same label as Terranova's docs show it (docs/concepts/templates.md): spread over lines.
const TERRANOVA_LOGICAL_DOCS = `<g>
  <foreignObject width="30" height="15" overflow="visible">
    <div xmlns="http://www.w3.org/1999/xhtml"
         style="border: 1px solid rgba(0,0,0,0.2); padding: 2px 5px;
                border-radius: 15px; font-size: 10px; background: white;
                text-align: center;">
      {{ endpoint_name }}
    </div>
  </foreignObject>
</g>`;

const records = () => [
  rec('1', 'chi-ny', ep('CHIC', 41.88, -87.63, { site: 'Chicago', tier: '1' }), ep('NEWY', 40.71, -74.01, { site: 'New York', tier: '2' })),
  rec('2', 'ny-atl', ep('NEWY', 40.71, -74.01), ep('ATLA', 33.75, -84.39, { site: 'Atlanta' })),
];

describe("Terranova's default templates", () => {
  it('the geographic one draws its square, with nothing to warn about', async () => {
    assert.equal(checkTemplate(TERRANOVA_GEOGRAPHIC), null);
    assert.deepEqual(templateWarnings(TERRANOVA_GEOGRAPHIC), []);
    const topo = await buildTopology(records(), { name: 'd', layout: 'geographic', template: TERRANOVA_GEOGRAPHIC });
    for (const n of topo.nodes) assert.equal(n.meta.svg, '<g><rect x="-4" y="-4" width="8" height="8"/></g>');
    const svg = renderTopologySvg(topo, { layout: 'geographic' });
    assert.equal(svg.match(/<rect x="-4" y="-4" width="8" height="8"\/>/g)?.length, 3);
  });

  for (const [what, markup] of [['settings.py', TERRANOVA_LOGICAL], ['docs', TERRANOVA_LOGICAL_DOCS]] as const) {
    it(`the logical one (${what}: HTML in foreignObject) is accepted, warned about and drawn with the default label`, async () => {
      assert.equal(checkTemplate(markup), null);
      const warnings = templateWarnings(markup);
      assert.equal(warnings.length, 2, warnings.join('\n'));
      assert.match(warnings[0], /<foreignObject> is removed when the template is drawn/);
      assert.match(warnings[1], /draws nothing once <foreignObject> is removed, so nodes are drawn with the default label instead/);

      const t = compileTemplate(markup);
      const node = t.render({ name: 'CHIC', endpoint_name: 'CHIC', meta: {} });
      assert.equal(node.fallback, true);
      assert.deepEqual(node, { ...compileTemplate(DEFAULT_TEMPLATES.logical.template).render({ name: 'CHIC', endpoint_name: 'CHIC', meta: {} }), fallback: true });
      assert.ok(node.width! > 20 && node.height === 18);

      for (const layout of ['logical', 'geographic'] as const) {
        const topo = await buildTopology(records(), { name: 'd', layout, template: markup });
        for (const n of topo.nodes) {
          assert.ok(String(n.meta.svg).includes(`>${n.name}</text>`), String(n.meta.svg));
          assert.ok(drawsSomething(String(n.meta.svg)));
          assert.equal(n.meta.computed_height, 18);
        }
        const svg = renderTopologySvg(topo, { layout });
        assert.deepEqual(activeContent(svg), []);
        for (const name of ['CHIC', 'NEWY', 'ATLA']) assert.ok(svg.includes(`>${name}</text>`), `${layout}: ${name} is visible`);
        assert.ok(!/foreignObject|<div/i.test(svg));
      }
    });
  }
});

describe('the default marker where the sanitizer leaves a node empty', () => {
  const ctx = { name: 'N1', endpoint_name: 'N1', meta: { up: true } };

  it('only where something was removed: a template that draws nothing on purpose stays empty', () => {
    const t = compileTemplate('<g data-width="4" data-height="4"/>');
    assert.deepEqual(t.render(ctx), { svg: '<g data-width="4" data-height="4"/>', width: 4, height: 4 });
    assert.deepEqual(t.warnings, []);
  });

  it('markup that stays visible keeps the template; the removal is still a warning', () => {
    const t = compileTemplate('<g><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">{{ name }}</div></foreignObject><circle r="3"/></g>');
    assert.equal(t.render(ctx).svg, '<g><circle r="3"/></g>');
    assert.equal(t.render(ctx).fallback, undefined);
    assert.deepEqual(t.warnings.length, 1);
    assert.match(t.warnings[0], /<foreignObject> is removed/);
  });

  it('removed markup without text falls back to the geographic marker; an option picks the kind', () => {
    const t = compileTemplate('<g><image href="https://example.org/icon.png" width="8" height="8"/></g>');
    const marker = compileTemplate(DEFAULT_TEMPLATES.geographic.template).render(ctx);
    assert.deepEqual(t.render(ctx), { ...marker, fallback: true });
    assert.match(t.warnings.join('\n'), /<image> is removed.*\n.*default marker instead/);
    const label = compileTemplate('<g><image href="x.png"/></g>', { fallback: 'logical' }).render(ctx);
    assert.ok(label.svg.includes('>N1</text>'));
  });

  it('per node: a branch that draws only removed markup falls back for that node alone', () => {
    const t = compileTemplate('<g>{% if meta.up %}<circle r="3"/>{% else %}<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">down</div></foreignObject>{% endif %}</g>');
    assert.equal(t.render(ctx).svg, '<g><circle r="3"/></g>');
    assert.equal(t.render({ ...ctx, meta: { up: false } }).fallback, true);
    assert.equal(t.warnings.length, 1, 'the template can draw, so no "draws nothing" warning');
  });

  it('drawsSomething tells shapes and text from definitions, metadata and empty text', () => {
    const yes = ['<circle r="1"/>', '<g><text>a</text></g>', '<text><tspan>x</tspan></text>', '<use href="#a"/>', '<g><path d="M0 0"/></g>'];
    const no = ['', '<g/>', '<g></g>', '<g><title>a node</title></g>', '<g><defs><circle r="1"/></defs></g>', '<text>  </text>', '<g>loose text</g>', '<clipPath id="c"><rect/></clipPath>'];
    for (const s of yes) assert.equal(drawsSomething(s), true, s);
    for (const s of no) assert.equal(drawsSomething(s), false, s);
  });
});

describe('hostile templates render as text or nothing, never run, never crash', () => {
  // [template, what the evil node's markup must match, whether saving it is refused]
  const HOSTILE: [string, RegExp, boolean][] = [
    ["<g><circle r='3'/><text>{{ ''.__class__ }}</text></g>", /<text>\{\{ ''\.__class__ \}\}<\/text>/, true],
    ['<g><circle r="3"/><text>{{ meta.__proto__ }}|{{ meta["constructor"] }}|{{ name.__proto__ }}</text></g>', /<text>\|\{\{ meta\["constructor"\] \}\}\|<\/text>/, true],
    ['<g><circle r="3"/><text>{{ meta.constructor.constructor(\'return 1\')() }}</text></g>', /<text>\{\{ meta\.constructor\.constructor\('return 1'\)\(\) \}\}<\/text>/, true],
    ['<g><circle r="3"/>{% for x in range(1000000) %}<text>{{ x }}</text>{% endfor %}</g>', /<circle r="3"\/>\{% for x in range\(1000000\) %\}<text><\/text>\{% endfor %\}<\/g>$/, true],
    ['<g><circle r="3"/><text>{% set name = "pwned" %}{{ name }}</text></g>', /<text>\{% set name = "pwned" %\}A&lt;\/text&gt;/, true],
    ['<g><circle r="3"/><text>{% macro m() %}x{% endmacro %}{% include "/etc/passwd" %}</text></g>', /<text>\{% macro m\(\) %\}x\{% endmacro %\}\{% include "\/etc\/passwd" %\}<\/text>/, true],
    [`<g><circle r="3"/><text>${'{% if 1 %}'.repeat(500)}deep${'{% endif %}'.repeat(500)}</text></g>`, /<text>(\{% if 1 %\}){484}deep(\{% endif %\}){484}<\/text>/, true],
    [`<g><circle r="3"/><text>{{ name${"|replace('A', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')".repeat(60)} }}</text></g>`, /<text><\/text>/, false],
    ['<g><circle r="3"/><text>{{ cycler.__init__.__globals__.os.popen("id").read() }}</text></g>', /<text>\{\{ cycler\.__init__\.__globals__\.os\.popen\("id"\)\.read\(\) \}\}<\/text>/, true],
    ['<g><circle r="3"/><text>{{ self._TemplateReference__context }}|{{ lipsum }}|{{ config.items }}</text></g>', /<text>\|\|<\/text>/, false],
    ['<g><circle r="3"/><text>{{ name }}</text></g>', /<text>A&lt;\/text&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/text>/, false],
    ['<g><circle r="3"/><text>{{ name|upper|e|e }}</text></g>', /<text>A&lt;\/TEXT&gt;&lt;SCRIPT&gt;ALERT\(1\)&lt;\/SCRIPT&gt;<\/text>/, false],
    ['<g><circle r="3"/><rect class="{{ name ~ \'&quot; onload=&quot;alert(1)\' }}"/></g>', /<rect class="A&lt;\/text&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot; onload=&quot;alert\(1\)"\/>/, false],
    ['<g><circle r="3"/><use href="{% if 1 %}javas{% endif %}cript:alert(1)"/></g>', /<use\/>/, false],
    ['<g><circle r="3" fill="{{ \'url(https://evil.example/#x)\' }}"/></g>', /^<g><circle r="3"\/><\/g>$/, false],
  ];
  const evilName = 'A</text><script>alert(1)</script>';
  const recs = () => [rec('1', 'e', ep(evilName, 1, 2, { site: '<b>x</b>' }), ep('B', 3, 4))];

  for (const [markup, expected, refused] of HOSTILE) {
    it(JSON.stringify(markup).slice(0, 100), async () => {
      // Saving refuses what is outside the subset; what is inside renders.
      const problem = checkTemplate(markup);
      if (refused) assert.match(String(problem), /^template: /);
      else assert.equal(problem, null);
      // A stored template (saved by other means) still renders: what is not understood is text.
      for (const layout of ['geographic', 'logical'] as const) {
        const topo = await buildTopology(recs(), { name: 'd', layout, template: markup });
        const node = topo.nodes.find((n) => n.name === evilName)!;
        assert.match(String(node.meta.svg), expected);
        assert.deepEqual(activeContent(String(node.meta.svg), true), []);
        const svg = renderTopologySvg(topo, { layout });
        assert.deepEqual(activeContent(svg), []);
        parseSvg(svg);
      }
    });
  }

  it('a stored template outside the subset says what was not run', () => {
    const t = compileTemplate('<g><text>{% for x in y %}{{ x|wordwrap }}{% endfor %}</text></g>');
    assert.equal(t.problems.length, 3);
    assert.ok(t.warnings.every((w) => /it is not run/.test(w)));
    assert.equal(t.render({ name: 'n', meta: {} }).svg, '<g><text>{% for x in y %}{{ x|wordwrap }}{% endfor %}</text></g>');
  });

  it('nothing from the object model is reachable through data either', () => {
    const meta = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": "c", "ok": "fine"}') as Record<string, unknown>;
    const t = compileTemplate('<text>{{ meta.ok }}|{{ meta["__proto" ~ "__"].polluted }}|{{ meta[meta.ok ~ ""] }}|{{ meta["toString"] }}|{{ meta.hasOwnProperty }}|{{ "valueOf" in meta }}</text>');
    assert.deepEqual(t.problems, []);
    assert.equal(t.render({ name: 'n', meta }).svg, '<text>fine|||||false</text>');
  });
});
