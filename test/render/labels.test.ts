// Readable pictures (docs/render.md: Labels, Co-located sites): labels never
// overlap one another, a node marker or the legend; co-located sites are
// spread so every marker shows, with a line back to the true position; the
// parallel circuits between them stay apart; every node keeps its name in a
// <title>. Checked on a dense fixture of metros with sites a few km apart,
// from the boxes read back out of the SVG (picture-geometry.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology } from '../../render/topology.ts';
import { renderMapSvg, renderTopologySvg } from '../../render/svg.ts';
import { renderDiffSvg } from '../../render/diff-svg.ts';
import type { Topology } from '../../render/types.ts';
import type { EdgeRecord } from '../../datasources/types.ts';
import { ep, rec } from './fixtures.ts';
import { overlapsBetween, pictureBoxes, templateTextProblems } from './picture-geometry.ts';
import { activeContent } from './svg-check.ts';

/** Metros with 2-4 sites a few km apart, parallel circuits inside metros and between them. */
const SITES: Record<string, [number, number]> = {
  FRA1: [50.110, 8.682], FRA2: [50.098, 8.720], FRA3: [50.125, 8.700],
  AMS1: [52.370, 4.895], AMS2: [52.355, 4.950],
  LON1: [51.507, -0.128], LON2: [51.515, -0.090], LON3: [51.500, -0.020], LON4: [51.520, -0.150],
  PAR1: [48.857, 2.352], PAR2: [48.870, 2.296],
  ZRH1: [47.370, 8.540], ZRH2: [47.390, 8.510],
  MIL1: [45.464, 9.190], MIL2: [45.480, 9.150], MIL3: [45.470, 9.220],
};
const CIRCUITS: [string, string, string, number][] = [
  ['fra1-fra2-a', 'FRA1', 'FRA2', 400], ['fra1-fra2-b', 'FRA1', 'FRA2', 400], ['fra2-fra3', 'FRA2', 'FRA3', 100],
  ['fra1-ams1', 'FRA1', 'AMS1', 400], ['ams1-ams2-a', 'AMS1', 'AMS2', 100], ['ams1-ams2-b', 'AMS1', 'AMS2', 100],
  ['ams2-lon1', 'AMS2', 'LON1', 400], ['lon1-lon3-a', 'LON1', 'LON3', 100], ['lon1-lon3-b', 'LON1', 'LON3', 100],
  ['lon1-lon3-c', 'LON1', 'LON3', 100], ['lon2-lon3', 'LON2', 'LON3', 10], ['lon1-lon2', 'LON1', 'LON2', 10],
  ['lon3-lon4', 'LON3', 'LON4', 10], ['lon4-par1', 'LON4', 'PAR1', 100], ['par1-par2-a', 'PAR1', 'PAR2', 100],
  ['par1-par2-b', 'PAR1', 'PAR2', 100], ['par2-fra3', 'PAR2', 'FRA3', 100], ['zrh1-zrh2', 'ZRH1', 'ZRH2', 100],
  ['zrh1-fra1', 'ZRH1', 'FRA1', 100], ['mil1-mil2', 'MIL1', 'MIL2', 10], ['mil2-mil3', 'MIL2', 'MIL3', 10],
  ['mil1-zrh2', 'MIL1', 'ZRH2', 100], ['mil3-fra2', 'MIL3', 'FRA2', 10],
];
/** Template text below this size on screen is left out (docs/render.md: Template text). */
const MIN_SCREEN_PX = 8;
const site = (name: string) => ep(name, ...SITES[name], { metro: name.slice(0, 3) });
const denseRecords = (): EdgeRecord[] => CIRCUITS.map(([name, a, b, capacity], i) => rec(String(i + 1), name, site(a), site(b), { capacity }));
const dense = () => buildTopology(denseRecords(), { name: 'Dense metros', layout: 'geographic' });

function assertReadable(svg: string, names: readonly string[], what: string) {
  const p = pictureBoxes(svg);
  assert.deepEqual(overlapsBetween(p.labels), [], `${what}: label-label`);
  assert.deepEqual(overlapsBetween(p.labels, p.nodes), [], `${what}: label-node`);
  assert.deepEqual(overlapsBetween(p.nodes), [], `${what}: node-node`);
  assert.deepEqual([...overlapsBetween(p.groups, [...p.nodes, ...p.labels]), ...overlapsBetween(p.groups)], [], `${what}: faint group markers`);
  if (p.legend) assert.deepEqual(overlapsBetween([...p.labels, ...p.nodes, ...p.groups], [{ name: 'legend', box: p.legend }]), [], `${what}: label-legend, node-legend`);
  assert.deepEqual(templateTextProblems(p, MIN_SCREEN_PX), [], `${what}: template text`);
  assert.deepEqual([...p.titles].sort(), [...names].sort(), `${what}: every node has its full name in a <title>`);
  assert.deepEqual(activeContent(svg), [], what);
  return p;
}

/** The point where the first cubic segment of a drawn circuit ends: its bend (offset midpoint). */
function bendOf(svg: string, title: string): [number, number] {
  const m = new RegExp(`<path d="M[^"]*?C[-\\d.]+ [-\\d.]+ [-\\d.]+ [-\\d.]+ ([-\\d.]+) ([-\\d.]+)[^"]*"[^>]*><title>${title} `).exec(svg);
  assert.ok(m, `circuit ${title} drawn as a curve`);
  return [Number(m[1]), Number(m[2])];
}

describe('Pictures of dense metros', () => {
  it('have no label-label, label-node or node-node overlap, at full size and small, and every node titled', async () => {
    const t = await dense();
    const names = t.nodes.map((n) => n.name);
    const full = assertReadable(renderTopologySvg(t), names, 'full size');
    assert.ok(full.labels.length >= 10, `most labels fit: ${full.labels.map((l) => l.name)}`);
    const small = assertReadable(renderTopologySvg(t, { width: 200 }), names, 'width 200');
    assert.ok(small.labels.length < full.labels.length, 'a small picture shows fewer labels');
    const font = Number(small.doc.getElementsByTagName('g')[0] && Array.from(small.doc.getElementsByTagName('g')).find((g) => g.getAttribute('class') === 'labels')!.getAttribute('font-size'));
    assert.ok(font * (200 / small.viewBox[2]) >= 10.99, `labels stay 11 px when drawn 200 px wide: ${font} in a ${small.viewBox[2]} wide view`);
  });

  it('spread co-located sites apart with a line to their true position; the topology keeps its coordinates', async () => {
    const t = await dense();
    const before = JSON.stringify(t);
    const svg = renderTopologySvg(t);
    assert.equal(JSON.stringify(t), before, 'rendering moves nothing in the topology');
    const p = pictureBoxes(svg);
    const at = (name: string) => p.nodes.find((n) => n.name === name)!.box;
    const [a, b] = [at('FRA1'), at('FRA2')];
    assert.ok(a.x1 <= b.x0 || b.x1 <= a.x0 || a.y1 <= b.y0 || b.y1 <= a.y0, 'FRA1 and FRA2 markers apart');
    assert.match(svg, /<g class="anchors"[^>]*><line /, 'lines to the true positions');
  });

  it('keep spread markers 3 px apart on screen, however small the picture is drawn', async () => {
    const t = await dense();
    for (const size of [{}, { width: 600, height: 400 }, { width: 200 }]) {
      const p = pictureBoxes(renderTopologySvg(t, size));
      const px = size.width ? size.width / p.viewBox[2] : 1;
      let closest = Infinity, pair = '';
      p.nodes.forEach((a, i) => {
        for (const b of p.nodes.slice(i + 1)) {
          const apart = Math.max(b.box.x0 - a.box.x1, a.box.x0 - b.box.x1, b.box.y0 - a.box.y1, a.box.y0 - b.box.y1) * px;
          if (apart < closest) [closest, pair] = [apart, `${a.name} / ${b.name}`];
        }
      });
      assert.ok(closest >= 2.95, `${JSON.stringify(size)}: ${pair} ${closest.toFixed(2)} px apart on screen`);
    }
  });

  it('draw parallel circuits between sites a few km apart as distinct arcs', async () => {
    const svg = renderTopologySvg(await dense(), { edgeWidth: 2 });
    for (const [x, y] of [['fra1-fra2-a', 'fra1-fra2-b'], ['par1-par2-a', 'par1-par2-b'], ['lon1-lon3-a', 'lon1-lon3-c']]) {
      const [p, q] = [bendOf(svg, x), bendOf(svg, y)];
      assert.ok(Math.hypot(p[0] - q[0], p[1] - q[1]) >= 5, `${x} and ${y} bend ${p} and ${q}: apart by more than two widths`);
    }
  });

  it('are the same from one render to the next', async () => {
    const t = await dense();
    assert.equal(renderTopologySvg(t), renderTopologySvg(t));
  });

  it('keep labels off the legend of a viewport picture', async () => {
    const t = await dense();
    const svg = renderMapSvg({ name: 'Europe', configuration: {
      showLegend: true, viewport: { center: { lat: 50, lng: 6 }, zoom: 6 },
      layers: [{ name: 'A layer with a long name for a wide legend', mapjson: JSON.stringify(t) }],
    } });
    const p = assertReadable(svg, t.nodes.map((n) => n.name), 'viewport with legend');
    assert.ok(p.legend, 'a legend');
  });
});

/** A router badge captioned with its metro under it, as the demo's template does with the site. */
const BADGE = '<g data-width="18" data-height="18"><rect x="-9" y="-9" width="18" height="18" rx="4" fill="#1d3557" stroke="#ffffff" stroke-width="2"/>'
  + '<text y="22" text-anchor="middle" font-size="9" fill="#1d3557">{{ meta.metro }}</text></g>';
const badges = (grouped: boolean) => buildTopology(denseRecords(), {
  name: 'Dense metros', layout: 'geographic', template: BADGE, ...(grouped ? { query: { node_group_criteria: ['metro'] } } : {}),
});

describe('Text drawn by node templates', () => {
  const leaves = (t: Topology) => t.nodes.filter((n) => !n.children).map((n) => n.name);
  for (const [what, size] of [['full size', {}], ['600x400', { width: 600, height: 400 }], ['200 wide', { width: 200 }]] as const) {
    it(`overlaps no label, node or other text and is at least ${MIN_SCREEN_PX} px on screen: ${what}`, async () => {
      for (const grouped of [false, true]) {
        const t = await badges(grouped);
        assertReadable(renderTopologySvg(t, size), leaves(t), `${what}${grouped ? ', metros as groups' : ''}`);
      }
    });
  }

  it('is never under 8 px on screen, at any width from 600 to 1250 px', async () => {
    const t = await badges(false);
    const shown: number[] = [], said: number[] = [];
    for (let width = 600; width <= 1250; width += 50) {
      const p = pictureBoxes(renderTopologySvg(t, { width }));
      assert.deepEqual(p.texts.filter((x) => x.px < MIN_SCREEN_PX).map((x) => `${x.name} ${x.px}`), [], `${width} px wide`);
      shown.push(p.texts.length);
      said.push(p.texts.length + p.labels.length);
    }
    // Large, every router says its metro: by its caption, or by a label where circuits run on both sides of it.
    assert.ok(shown[0] === 0 && said.at(-1) === t.nodes.length, `left out when small, all said when large: ${shown}, ${said}`);
  });

  it('shows wherever it is legible, also when a logical panel beside the geography makes the picture wider than foreseen', async () => {
    const at = (name: string, lat: number, lng: number, site: string) => ep(name, lat, lng, { site });
    const records = [
      rec('1', 'a', at('A', 40, -100, 'X'), at('B', 41, -90, 'X')), rec('2', 'b', at('B', 41, -90, 'X'), at('C', 35, -80, 'Y')),
      rec('3', 'c', at('C', 35, -80, 'Y'), at('D', 35, -80, 'Y')),
    ];
    const badge = BADGE.replace('meta.metro', 'name');
    const geo = await buildTopology(records, { name: 'G', layout: 'geographic', template: badge });
    const logical = await buildTopology(records, { name: 'L', layout: 'logical', template: badge, query: { node_group_criteria: ['site'] } });
    const map = (size: { width?: number; height?: number }) => renderMapSvg({ name: 'Mixed', configuration: { showLegend: true, layers: [
      { name: 'G', mapjson: JSON.stringify(geo) }, { name: 'L', layout: 'logical', mapjson: JSON.stringify(logical) }] } }, undefined, size);
    const wide = pictureBoxes(map({ width: 1400, height: 500 }));
    assert.equal(wide.texts.length, 8, 'every caption, geographic and logical');
    assert.ok(wide.texts.every((x) => x.px >= MIN_SCREEN_PX && x.px < 9), `drawn a little smaller than 9 px: ${wide.texts.map((x) => x.px)}`);
    assertReadable(map({ width: 1400, height: 500 }), ['A', 'B', 'C', 'D', 'A', 'B', 'C', 'D'], 'mixed 1400x500');
    assert.deepEqual(pictureBoxes(map({ width: 600 })).texts, []);
  });

  it('is left out of faint group markers: the metro sites spread around them are captioned by their own badges', async () => {
    const t = await badges(true);
    const p = pictureBoxes(renderTopologySvg(t));
    const groups = new Set(t.nodes.filter((n) => n.children).map((n) => n.name));
    assert.ok(groups.size >= 5);
    assert.deepEqual(p.texts.filter((x) => groups.has(x.owner)).map((x) => x.name), []);
    assert.equal(p.texts.length + p.labels.length, leaves(t).length, 'each router says its metro at full size');
    // A label only where circuits would cross the caption on either side of its badge.
    const captions = new Set(t.nodes.map((n) => String(n.meta.metro)));
    assert.deepEqual(p.labels.filter((l) => !captions.has(l.name)).map((l) => l.name), [], 'labels say captions');
  });

  it('is left out when too small to read, and the router is then labelled with that same text where there is room', async () => {
    const t = await badges(false);
    const p = pictureBoxes(renderTopologySvg(t, { width: 600, height: 400 }));
    assert.ok(p.viewBox[2] / 600 > 9 / MIN_SCREEN_PX, 'the 9 px caption would show under 8 px');
    assert.deepEqual(p.texts, []);
    assert.ok(p.labels.length >= 3, `labels placed instead: ${p.labels.map((l) => l.name)}`);
    // One labelling scheme at every size: the label says what the caption says at full size (the metro), not the router's name.
    const captions = new Set(pictureBoxes(renderTopologySvg(t)).texts.map((x) => x.name.replace(/^.*: "(.*)"$/, '$1')));
    assert.ok(captions.size > 0);
    assert.deepEqual(p.labels.filter((l) => !captions.has(l.name)).map((l) => l.name), [], 'labels say the captions');
  });

  it('stays where it reads: a map framed on a viewport at 1200 px keeps it, at 300 px leaves it out', async () => {
    const t = await badges(false);
    const map = (width: number) => pictureBoxes(renderMapSvg({ name: 'Europe', configuration: {
      viewport: { center: { lat: 50, lng: 6 }, zoom: 6 }, layers: [{ name: 'Metros', mapjson: JSON.stringify(t) }],
    } }, undefined, { width }));
    assert.ok(map(1200).texts.length > 0 && map(1200).texts.every((x) => x.px === 9));
    assert.deepEqual(map(300).texts, []);
  });

  it('is haloed like the labels, not outlined with the marker\'s stroke, unless the template strokes it', async () => {
    const t = await badges(false);
    // Under the badge, or over it where a circuit runs under it.
    const captions = (svg: string) => [...svg.matchAll(/<text y="-?[\d.]+"[^>]*>/g)].map((m) => m[0]);
    const light = captions(renderTopologySvg(t));
    assert.equal(light.length, pictureBoxes(renderTopologySvg(t)).texts.length);
    assert.ok(light.length > t.nodes.length / 2);
    for (const c of light) assert.match(c, /stroke="#ffffff" stroke-width="2.45" stroke-linejoin="round" paint-order="stroke"/);
    const dark = captions(renderTopologySvg(t, { background: '#101820' }));
    assert.equal(dark.length, light.length);
    for (const c of dark) assert.match(c, /stroke="#000000"/);
    const own = await buildTopology(denseRecords(), { name: 'Own stroke', layout: 'geographic', template: BADGE.replace('font-size="9"', 'font-size="9" stroke="none"') });
    const kept = captions(renderTopologySvg(own));
    assert.equal(kept.length, light.length);
    for (const c of kept) assert.doesNotMatch(c, /paint-order|#ffffff/);
  });

  it('is left out when empty, and the node is labelled instead', async () => {
    const t = await buildTopology(denseRecords().slice(0, 3), { name: 'Empty captions', layout: 'geographic', template: BADGE.replace('meta.metro', 'meta.nothing') });
    const p = pictureBoxes(renderTopologySvg(t));
    assert.deepEqual(p.texts, []);
    assert.ok(p.labels.length > 0, 'labels instead');
    assert.doesNotMatch(renderTopologySvg(t), /<text[^>]*><\/text>|<text[^>]*\/>/);
  });
});

describe('Faint group markers', () => {
  it('are drawn where no other marker is, and left out among their members', async () => {
    // "west" has two sites 10 degrees apart (its marker lies between them); "east" two routers at one point, spread around it.
    const at = (name: string, lat: number, lng: number, region: string) => ep(name, lat, lng, { region });
    const records = [
      rec('1', 'w', at('W1', 40, -110, 'west'), at('W2', 40, -100, 'west')),
      rec('2', 'x', at('W2', 40, -100, 'west'), at('E1', 40, -80, 'east')),
      rec('3', 'e', at('E1', 40, -80, 'east'), at('E2', 40, -80, 'east')),
    ];
    const t = await buildTopology(records, { name: 'Regions', layout: 'geographic', template: BADGE.replace('meta.metro', 'name'), query: { node_group_criteria: ['region'] } });
    const svg = renderTopologySvg(t);
    const p = assertReadable(svg, ['W1', 'W2', 'E1', 'E2'], 'regions');
    assert.deepEqual(p.groups.map((g) => g.name), ['west']);
    assert.match(svg, /<g class="group-nodes"[^>]*><g transform="[^"]*"><title>west<\/title><g data-width="18" data-height="18"><rect [^>]*\/><\/g><\/g><\/g>/, 'its badge without the caption');
  });
});

describe('The legend of a viewport picture', () => {
  const grid = async (lats: number[], lngs: number[]) => {
    const records = lats.flatMap((lat, i) => lngs.map((lng, j) => rec(`${i}-${j}`, `c${i}-${j}`, ep(`N${i}-${j}`, lat, lng), ep('HUB', 50, 6))));
    return buildTopology(records, { name: 'Grid', layout: 'geographic' });
  };
  const picture = (t: Topology) => renderMapSvg({ name: 'Grid', configuration: {
    showLegend: true, viewport: { center: { lat: 50, lng: 6 }, zoom: 6 }, layers: [{ name: 'Grid layer', mapjson: JSON.stringify(t) }],
  } });

  it('takes a corner no marker is in: the lower right when nodes fill the lower left', async () => {
    const t = await grid([45, 45.3, 45.6], [-6.5, -5.5, -4.5, -3.5]);
    const p = assertReadable(picture(t), t.nodes.map((n) => n.name), 'lower left taken');
    const [x, y, w, h] = p.viewBox;
    assert.deepEqual([w, h], [1200, 700], 'the view keeps its size');
    assert.ok(p.legend && p.legend.x0 > x + w / 2 && p.legend.y0 > y + h / 2, `legend at ${JSON.stringify(p.legend)}`);
  });

  it('goes under the view when every corner has markers, growing the picture', async () => {
    // The view spans about 44.8-54.7 N, 7.2 W-19.2 E: a patch of nodes at each corner, about 30 px apart.
    const steps = (from: number, n: number, by: number) => Array.from({ length: n }, (_, i) => from + i * by);
    const t = await grid([...steps(45, 5, 0.3), ...steps(53.3, 5, 0.3)], [...steps(-7, 9, 0.6), ...steps(14, 9, 0.6)]);
    const p = assertReadable(picture(t), t.nodes.map((n) => n.name), 'every corner taken');
    const [, y, w, h] = p.viewBox;
    assert.equal(w, 1200);
    assert.ok(p.legend && h > 700 && p.legend.y0 >= y + 700, `legend at ${JSON.stringify(p.legend)} in a view ${h} high`);
  });
});

describe('Labels left out', () => {
  it('by priority when they cannot all be placed: the busiest node keeps its label, none is piled', async () => {
    // Twenty sites at one point: the hub has the most circuits.
    const here = (name: string) => ep(name, 40, -100);
    const records = Array.from({ length: 20 }, (_, i) => rec(String(i), `c${i}`, here('HUB'), here(`site-with-a-long-name-${i}`)));
    records.push(rec('x', 'far', here('site-with-a-long-name-3'), ep('FAR', 40, -90)));
    const t = await buildTopology(records, { name: 'Knot', layout: 'geographic' });
    const svg = renderTopologySvg(t, { width: 400 });
    const p = assertReadable(svg, t.nodes.map((n) => n.name), 'knot');
    const shown = p.labels.map((l) => l.name);
    assert.ok(shown.includes('HUB'), `the hub is labelled: ${shown}`);
    assert.ok(shown.includes('site-with-a-long-name-3'), 'then the node with two circuits');
    assert.ok(shown.length < t.nodes.length, 'some labels left out');
  });
});

describe('Labels and circuits', () => {
  it('keep off circuits where a clear position exists', async () => {
    // A hub with circuits leaving right, left, up and down: its label goes to a diagonal.
    const hub = () => ep('HUB', 40, -100);
    const records = [ep('E', 40, -95), ep('W', 40, -105), ep('N', 43, -100), ep('S', 37, -100)].map((x, i) => rec(String(i), `c${i}`, hub(), x));
    const svg = renderTopologySvg(await buildTopology(records, { name: 'Plus', layout: 'geographic' }));
    const p = pictureBoxes(svg);
    const label = p.labels.find((l) => l.name === 'HUB')!.box;
    const node = p.nodes.find((n) => n.name === 'HUB')!.box;
    const [cx, cy] = [(node.x0 + node.x1) / 2, (node.y0 + node.y1) / 2];
    assert.ok((label.x0 >= cx || label.x1 <= cx) && (label.y0 >= cy || label.y1 <= cy), `HUB's label ${JSON.stringify(label)} is off the lines through ${cx},${cy}`);
  });
});

describe('Label text', () => {
  it('fits the box placement reserves, in any script, and is escaped', async () => {
    const names = ['<script>alert(1)</script>', 'Zürich Ünïcödé', '東京データセンター', 'WWWWMMMM', 'iiiilll'];
    const records = names.map((n, i) => rec(String(i), `c${i}`, ep(n, 40 + i * 2, -100 + i * 3), ep(`x${i}`, 41 + i * 2, -90)));
    const t: Topology = await buildTopology(records, { name: 'Scripts', layout: 'geographic' });
    const svg = renderTopologySvg(t);
    const p = assertReadable(svg, t.nodes.map((n) => n.name), 'scripts');
    assert.ok(p.labels.some((l) => l.name === '<script>alert(1)</script>'));
    assert.ok(!svg.includes('<script>'));
  });
});

describe('The diff picture', () => {
  it('places its labels by the same rules', async () => {
    const recs = denseRecords();
    const [before, after] = [
      await buildTopology(recs.slice(0, 15), { name: 'D', layout: 'geographic' }),
      await buildTopology(recs.slice(5), { name: 'D', layout: 'geographic' }),
    ];
    const svg = renderDiffSvg(before, after, { layout: 'geographic' });
    const names = new Set([...before.nodes, ...after.nodes].map((n) => n.name));
    assertReadable(svg, [...names], 'diff');
  });
});

describe('A dense metro region at a dashboard panel\'s size', () => {
  it('labels every one of 22 sites in 1119x310 (with leader lines where needed), overlapping nothing', async () => {
    const more: Record<string, [number, number]> = {
      BRU1: [50.850, 4.351], BRU2: [50.840, 4.380], DUS1: [51.227, 6.773], CGN1: [50.937, 6.960], MUC1: [48.137, 11.575], MUC2: [48.150, 11.540],
    };
    const all = { ...SITES, ...more };
    const names = Object.keys(all);
    const chain = names.slice(1).map((n, i) => rec(String(i + 1), `${names[i]}-${n}`, ep(names[i], ...all[names[i]]), ep(n, ...all[n])));
    const t = await buildTopology(chain, { name: 'Metros', layout: 'geographic' });
    const p = assertReadable(renderTopologySvg(t, { width: 1119, height: 310 }), names, '1119x310');
    assert.deepEqual(names.filter((n) => !p.labels.some((l) => l.name === n)), [], 'every site labelled');
  });
});
