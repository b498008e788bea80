import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology } from '../../render/topology.ts';
import { renderMapSvg, renderTopologySvg, SVG_RESPONSE_HEADERS } from '../../render/svg.ts';
import { resolveMapLayers } from '../../output/layers.ts';
import { backbone, ep, rec } from './fixtures.ts';
import { parseSvg, activeContent } from './svg-check.ts';

const count = (doc: ReturnType<typeof parseSvg>, tag: string) => doc.getElementsByTagName(tag).length;

describe('SVG response headers', () => {
  it('carry the content type, the sandboxing CSP and nosniff', () => {
    assert.match(SVG_RESPONSE_HEADERS['Content-Type'], /^image\/svg\+xml/);
    assert.equal(SVG_RESPONSE_HEADERS['Content-Security-Policy'], "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    assert.equal(SVG_RESPONSE_HEADERS['X-Content-Type-Options'], 'nosniff');
  });
});

describe('renderTopologySvg', () => {
  it('draws one path per edge, one node per located node, labels, countries, a sized viewBox', async () => {
    const t = await buildTopology(backbone(), { name: 'Backbone', layout: 'geographic' });
    const svg = renderTopologySvg(t);
    const doc = parseSvg(svg);
    const root = doc.documentElement!;
    assert.equal(root.localName, 'svg');
    assert.equal(root.getAttribute('xmlns'), 'http://www.w3.org/2000/svg');
    assert.match(String(root.getAttribute('viewBox')), /^-?[\d.]+ -?[\d.]+ [\d.]+ [\d.]+$/);
    assert.ok(Number(String(root.getAttribute('viewBox')).split(' ')[2]) > 200);
    assert.equal(root.getAttribute('width'), null, 'no fixed size: it scales to its container');
    // 4 edges + 1 land path
    assert.equal(count(doc, 'path'), 5);
    const nodes = Array.from(doc.getElementsByTagName('g')).find((g) => g.getAttribute('class') === 'nodes')!;
    assert.equal(nodes.getElementsByTagName('circle').length, 4);
    const labels = [...Array.from(doc.getElementsByTagName('text'))].map((x) => x.textContent);
    assert.deepEqual(labels.sort(), ['CHI1', 'DEN1', 'SEA1', 'SEA2']);
    const titles = Array.from(doc.getElementsByTagName('title')).map((x) => x.textContent);
    assert.ok(titles.includes('den-chi (400)'), titles.join('|'));
    assert.deepEqual(activeContent(svg), []);
  });

  it('fits the viewBox around labels so the longest one is not clipped', async () => {
    const long = 'A-very-long-router-name-at-the-east-edge';
    const t = await buildTopology([rec('1', 'x', ep('W', 40, -100), ep(long, 40, -80))], { name: 'd', layout: 'geographic' });
    const doc = parseSvg(renderTopologySvg(t));
    const [x, , w] = String(doc.documentElement!.getAttribute('viewBox')).split(' ').map(Number);
    const label = Array.from(doc.getElementsByTagName('text')).find((e) => e.textContent === long)!;
    assert.ok(Number(label.getAttribute('x')) + long.length * 5.5 < x + w, 'label ends inside the picture');
  });

  it('cuts a long name\'s label to 48 characters with an ellipsis, and keeps the whole name in the node\'s title', async () => {
    for (const long of ['router-'.repeat(300), '\u{1F600}'.repeat(60)]) {
      const t = await buildTopology([rec('1', 'x', ep('W', 40, -100), ep(long, 40, -80))], { name: 'd', layout: 'geographic' });
      const doc = parseSvg(renderTopologySvg(t));
      const label = Array.from(doc.getElementsByTagName('text')).map((e) => e.textContent!).find((x) => x !== 'W')!;
      assert.equal(Array.from(label).length, 48);
      assert.ok(label.endsWith('\u2026') && long.startsWith(label.slice(0, -1)), label);
      assert.ok(Number(String(doc.documentElement!.getAttribute('viewBox')).split(' ')[2]) < 1500, 'the picture stays its usual size');
      assert.ok(Array.from(doc.getElementsByTagName('title')).some((e) => e.textContent === long));
    }
  });

  it('leaves out country outlines for a logical picture', async () => {
    const t = await buildTopology(backbone(), { name: 'd', layout: 'logical' });
    const doc = parseSvg(renderTopologySvg(t));
    assert.equal(count(doc, 'path'), 4);
    assert.equal(count(doc, 'rect') >= 4, true, 'pills of the logical template');
  });

  it('draws an empty topology as a valid small picture', () => {
    const doc = parseSvg(renderTopologySvg({ name: 'empty', layer: 'tail', pathLayout: { type: 'curveCardinal' }, nodes: [], edges: [] }));
    assert.equal(doc.documentElement!.getAttribute('viewBox'), '0 0 400 300');
  });

  it('draws a circuit from a node to itself as a loop', async () => {
    const t = await buildTopology([rec('1', 'loop', ep('A', 1, 1), ep('A', 1, 1))], { name: 'd', layout: 'geographic' });
    const d = Array.from(parseSvg(renderTopologySvg(t)).getElementsByTagName('path')).map((p) => p.getAttribute('d')!).find((x) => x.includes('C'));
    assert.ok(d, 'a curve');
  });
});

describe('renderMapSvg', () => {
  const map = async (extra: Record<string, unknown> = {}) => {
    const revision = {
      name: 'Demo <map>',
      configuration: {
        background: '#102030', showLegend: true, ...extra,
        layers: [
          { name: 'Backbone', datasetId: 'AbC1234', color: '#ff7f0e', edgeWidth: 4 },
          { name: 'Hidden', datasetId: 'AbC1234', visible: false },
          { name: 'Logical', datasetId: 'AbC1234', layout: 'logical' as const, color: 'rgb(10, 200, 30)' },
        ],
      },
      overrides: {},
    };
    return resolveMapLayers(revision, {
      dataset: async () => ({ name: 'DS', query: { endpoint: 'x', filters: [], node_deduplication_field: null, node_group_criteria: null, node_group_layout: null }, records: backbone() }),
      template: async () => '<g/>',
    });
  };

  it('draws visible layers in their colour and width, a legend and the background', async () => {
    const { output } = await map();
    const svg = renderMapSvg(output);
    const doc = parseSvg(svg);
    const strokes = Array.from(doc.getElementsByTagName('g')).filter((g) => !g.getAttribute('class')).map((g) => [g.getAttribute('stroke'), g.getAttribute('stroke-width')]).filter(([s]) => s && s !== '#1a1a1a');
    assert.deepEqual(strokes, [['#ff7f0e', '4'], ['rgb(10, 200, 30)', '2']]);
    const texts = Array.from(doc.getElementsByTagName('text')).map((t) => t.textContent);
    assert.ok(texts.includes('Backbone') && texts.includes('Logical') && !texts.includes('Hidden'), texts.join('|'));
    assert.equal(doc.getElementsByTagName('rect')[0].getAttribute('fill'), '#102030');
    assert.equal(doc.getElementsByTagName('title')[0].textContent, 'Demo <map>');
    assert.deepEqual(activeContent(svg), []);
  });

  it('uses the same picture from parsed topologies or from mapjson strings', async () => {
    const { output, topologies } = await map();
    assert.equal(renderMapSvg(output, topologies), renderMapSvg(output));
  });

  it('uses the viewport when center and zoom are set: a fixed 1200x700 frame, the logical layer beside it', async () => {
    const { output } = await map({ viewport: { center: { lat: 40, lng: -100 }, zoom: 3 } });
    const root = parseSvg(renderMapSvg(output)).documentElement!;
    const [x, y, w, h] = root.getAttribute('viewBox')!.split(' ').map(Number);
    assert.deepEqual([x, y, h], [0, 0, 700]);
    assert.ok(w > 1200, `the logical layer's panel widens the picture (${w})`);
    output.configuration.layers.pop();
    assert.equal(parseSvg(renderMapSvg(output)).documentElement!.getAttribute('viewBox'), '0 0 1200 700');
  });

  it('ignores a colour that is not a plain CSS colour', async () => {
    const { output } = await map();
    output.configuration.layers[0].color = 'url(https://evil.example/#x)';
    output.configuration.background = 'red;fill:url(x)';
    const svg = renderMapSvg(output);
    assert.ok(!svg.includes('evil.example') && !svg.includes('url(x)'));
  });
});
