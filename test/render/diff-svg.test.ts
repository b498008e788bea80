import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology } from '../../render/topology.ts';
import { DIFF_COLORS, REMOVED_DASH, renderDiffSvg, type DiffStatus } from '../../render/diff-svg.ts';
import type { Topology } from '../../render/types.ts';
import { ep, rec } from './fixtures.ts';
import { activeContent, parseSvg } from './svg-check.ts';

const XSS = '<script>alert(1)</script>';
const sea = (lat = 47.6) => ep('SEA', lat, -122.3);
const den = () => ep('DEN', 39.7, -105);
const chi = () => ep('CHI', 41.9, -87.6);
const nyc = () => ep('NYC', 40.7, -74);
const bos = () => ep('BOS', 42.4, -71.1);
const atl = () => ep('ATL', 33.7, -84.4);

async function versions(template?: string): Promise<[Topology, Topology]> {
  const before = [
    rec('1', 'sea-den', sea(), den(), { capacity: 100 }),
    rec('2', 'chi-nyc', chi(), nyc(), { capacity: 100 }),
    rec('3', 'nyc-bos', nyc(), bos(), { capacity: 100 }),
  ];
  const after = [
    rec('1', 'sea-den', sea(47.0), den(), { capacity: 400 }), // SEA moved, the circuit upgraded
    rec('2', 'chi-nyc', chi(), nyc(), { capacity: 100 }),
    rec('4', 'chi-atl', chi(), atl(), { capacity: 10 }),
    rec('5', XSS, ep(XSS, 35, -80), atl(), { capacity: 10 }),
  ];
  return [
    await buildTopology(before, { name: 'Backbone', layout: 'geographic', template }),
    await buildTopology(after, { name: 'Backbone', layout: 'geographic', template }),
  ];
}

type El = ReturnType<typeof parseSvg>['documentElement'] & {};

/**
 * The element whose <title> is `title`, the group that paints it (its parent,
 * which sets stroke or fill) and the status group it is drawn in (the nearest
 * ancestor with data-diff).
 */
function drawn(doc: ReturnType<typeof parseSvg>, title: string): { el: El; paint: El; group: El } {
  const t = Array.from(doc.getElementsByTagName('title')).find((x) => x.textContent === title);
  assert.ok(t, `an element titled ${title}`);
  const el = t.parentNode as El;
  const paint = el.parentNode as El;
  let group = paint;
  while (group && !group.getAttribute('data-diff')) group = group.parentNode as El;
  assert.ok(group, `${title} is in a status group`);
  return { el, paint, group };
}

describe('renderDiffSvg', () => {
  it('colours each edge by what happened to it; removed ones dashed', async () => {
    const [before, after] = await versions();
    const doc = parseSvg(renderDiffSvg(before, after, { layout: 'geographic' }));
    const cases: [string, DiffStatus][] = [
      ['sea-den (400 Gbps)', 'changed'], ['nyc-bos (100 Gbps)', 'removed'], ['chi-atl (10 Gbps)', 'added'], ['chi-nyc (100 Gbps)', 'unchanged'],
    ];
    for (const [title, status] of cases) {
      const { el, paint, group } = drawn(doc, title);
      assert.equal(el.localName, 'path', title);
      assert.equal(group.getAttribute('data-diff'), status, title);
      assert.equal(paint.getAttribute('stroke'), DIFF_COLORS[status], title);
      assert.equal(group.getAttribute('stroke-dasharray'), status === 'removed' ? REMOVED_DASH : null, title);
    }
  });

  it('colours each node by what happened to it: moved is changed', async () => {
    const [before, after] = await versions();
    const doc = parseSvg(renderDiffSvg(before, after, { layout: 'geographic' }));
    const cases: [string, DiffStatus][] = [['SEA', 'changed'], ['BOS', 'removed'], ['ATL', 'added'], [XSS, 'added'], ['DEN', 'unchanged'], ['NYC', 'unchanged']];
    for (const [name, status] of cases) {
      const { el, paint, group } = drawn(doc, name);
      assert.equal(el.localName, 'g', name);
      assert.equal(group.getAttribute('data-diff'), status, name);
      assert.equal(paint.getAttribute('fill'), DIFF_COLORS[status], name);
    }
  });

  it('escapes names from data, passes the SVG checks and has a viewBox', async () => {
    const [before, after] = await versions();
    const svg = renderDiffSvg(before, after, { layout: 'geographic' });
    assert.ok(!svg.includes('<script'), 'the name never appears raw');
    assert.ok(svg.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.deepEqual(activeContent(svg), []);
    const root = parseSvg(svg).documentElement!;
    assert.equal(root.getAttribute('xmlns'), 'http://www.w3.org/2000/svg');
    assert.match(String(root.getAttribute('viewBox')), /^-?[\d.]+ -?[\d.]+ [\d.]+ [\d.]+$/);
    assert.ok(parseSvg(svg).getElementsByTagName('path').length > 5, 'edges and the country outlines');
  });

  it('has a legend of the four colours with counts, the removed sample dashed', async () => {
    const [before, after] = await versions();
    const doc = parseSvg(renderDiffSvg(before, after, { layout: 'geographic' }));
    const texts = Array.from(doc.getElementsByTagName('text')).map((t) => t.textContent);
    for (const line of ['added: 2 nodes, 2 edges', 'removed: 1 node, 1 edge', 'changed: 1 node, 1 edge', 'unchanged: 3 nodes, 1 edge']) {
      assert.ok(texts.includes(line), `${line} in ${texts.join(' | ')}`);
    }
    const samples = Array.from(doc.getElementsByTagName('line'));
    assert.deepEqual(samples.map((l) => l.getAttribute('stroke')), [DIFF_COLORS.added, DIFF_COLORS.removed, DIFF_COLORS.changed, DIFF_COLORS.unchanged]);
    assert.deepEqual(samples.map((l) => l.getAttribute('stroke-dasharray')), [null, REMOVED_DASH, null, null]);
  });

  it('draws every node with the default marker, so a template\'s own colours cannot hide the status', async () => {
    const [before, after] = await versions('<g data-width="10" data-height="10"><circle r="5" fill="#123456"/></g>');
    const svg = renderDiffSvg(before, after, { layout: 'geographic' });
    assert.ok(!svg.includes('#123456'));
  });

  it('takes the size asked for, keeps the viewBox, and leaves out countries for a logical picture', async () => {
    const [before, after] = await versions();
    const geo = parseSvg(renderDiffSvg(before, after, { layout: 'geographic' })).documentElement!;
    const doc = parseSvg(renderDiffSvg(before, after, { layout: 'logical', width: 800, height: 500 }));
    const root = doc.documentElement!;
    assert.equal(root.getAttribute('width'), '800');
    assert.equal(root.getAttribute('height'), '500');
    assert.ok(root.getAttribute('viewBox'));
    assert.equal(doc.getElementsByTagName('path').length, 5, 'the five edges, no land');
    assert.ok(doc.getElementsByTagName('rect').length > 1, 'logical pills, not only the background and legend');
    assert.notEqual(geo.getAttribute('width'), '800');
  });

  it('draws everything grey when nothing changed', async () => {
    const [before] = await versions();
    const doc = parseSvg(renderDiffSvg(before, before, { layout: 'geographic' }));
    for (const status of ['added', 'removed', 'changed'] as const) {
      for (const g of Array.from(doc.getElementsByTagName('g')).filter((x) => x.getAttribute('data-diff') === status)) {
        assert.equal(g.getElementsByTagName('title').length, 0, `nothing ${status}`);
      }
    }
    assert.equal(drawn(doc, 'chi-nyc (100 Gbps)').group.getAttribute('data-diff'), 'unchanged');
  });
});
