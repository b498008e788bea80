// Capacity visible (docs/render.md: Capacity): parsed with its unit, written
// back with one, and drawn wider as it grows, in the picture, its tooltips
// and its legend.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capacityWidth, formatCapacity, parseCapacity } from '../../render/capacity.ts';
import { renderMapSvg, renderTopologySvg } from '../../render/svg.ts';
import { buildTopology } from '../../render/topology.ts';
import type { MapConfiguration } from '../../schema/map.ts';
import { ep, rec } from './fixtures.ts';
import { parseSvg } from './svg-check.ts';

describe('parseCapacity', () => {
  const cases: [unknown, number | null][] = [
    ['400', 400], [400, 400], ['400G', 400], ['400 Gbps', 400], ['400 Gbit/s', 400], ['10 Gb/s', 10], ['10GE', 10], ['400GbE', 400],
    ['100M', 0.1], ['100 Mbps', 0.1], ['1.6T', 1600], ['1,6 Tbps', 1600], ['1,000', 1000], ['10 000 M', 10],
    ['', null], ['fast', null], ['0', null], ['-10G', null], ['2x100G', null], ['400 GHz', null], [null, null], [Number.NaN, null], ['9'.repeat(50), null],
  ];
  for (const [value, gbps] of cases) {
    it(`reads ${JSON.stringify(value)} as ${gbps === null ? 'no capacity' : `${gbps} Gbps`}`, () => assert.equal(parseCapacity(value), gbps));
  }
});

describe('formatCapacity', () => {
  const cases: [number, string][] = [[400, '400 Gbps'], [10, '10 Gbps'], [1600, '1.6 Tbps'], [0.1, '100 Mbps'], [0.0005, '500 kbps'], [2.5, '2.5 Gbps']];
  for (const [gbps, text] of cases) it(`writes ${gbps} Gbps as ${text}`, () => assert.equal(formatCapacity(gbps), text));
});

describe('capacityWidth', () => {
  it('follows the documented scale: 10 Gbps at the layer\'s width, 0.5x to 3x', () => {
    const cases: [number | null, number][] = [[null, 2], [1, 1], [10, 2], [100, 3.5], [400, 4.4], [1000, 5], [1e5, 6]];
    for (const [gbps, w] of cases) assert.ok(Math.abs(capacityWidth(gbps, 2) - w) < 0.01, `${gbps}: ${capacityWidth(gbps, 2)}`);
  });

  it('never narrows as capacity grows', () => {
    let last = 0;
    for (let g = 0.01; g < 1e5; g *= 1.3) {
      const w = capacityWidth(g, 2);
      assert.ok(w >= last, `${g} Gbps`);
      last = w;
    }
  });
});

/** One circuit of each capacity between two rows of routers. */
async function ladder(capacities: unknown[]) {
  const records = capacities.map((c, i) => rec(String(i), `c${i}`, ep(`W${i}`, 50 - i, 5), ep(`E${i}`, 50 - i, 12), { capacity: c }));
  return buildTopology(records, { name: 'Ladder', layout: 'geographic' });
}
const paths = (svg: string) => Array.from(parseSvg(svg).getElementsByTagName('path')).flatMap((p) => {
  const title = p.getElementsByTagName('title')[0]?.textContent;
  return title ? [{ title, width: Number(p.getAttribute('stroke-width') ?? (p.parentNode as unknown as Element).getAttribute('stroke-width')) }] : [];
});

describe('capacity in the picture', () => {
  it('draws circuits wider with more capacity, whatever the unit written', async () => {
    const drawn = paths(renderTopologySvg(await ladder(['1G', '10GE', '100', '400 Gbps', '1.6T', 'unknown'])));
    const order = ['c0 (1 Gbps)', 'c1 (10 Gbps)', 'c2 (100 Gbps)', 'c3 (400 Gbps)', 'c4 (1.6 Tbps)'];
    const widths = order.map((title) => drawn.find((p) => p.title === title)!.width);
    for (let i = 1; i < widths.length; i++) assert.ok(widths[i] > widths[i - 1], `${order[i]} wider than ${order[i - 1]}: ${widths}`);
    assert.equal(drawn.find((p) => p.title === 'c5 (unknown)')!.width, 2, 'no capacity read: the layer\'s width, the text kept in the tooltip');
  });

  it('names capacities with their unit in the tooltip and the legend', async () => {
    const t = await ladder(['10', '400G', '400 Gbps']);
    const configuration = { showLegend: true, layers: [{ name: 'core' }] } as unknown as MapConfiguration;
    const doc = parseSvg(renderMapSvg({ name: 'm', configuration }, [t]));
    const titles = Array.from(doc.getElementsByTagName('title')).map((x) => x.textContent);
    assert.ok(titles.includes('c1 (400 Gbps)') && titles.includes('c0 (10 Gbps)'), titles.join('|'));
    const legend = Array.from(doc.getElementsByTagName('g')).find((g) => g.getAttribute('class') === 'legend')!;
    const rows = Array.from(legend.getElementsByTagName('text')).map((x) => x.textContent);
    assert.deepEqual(rows, ['core', '10 Gbps', '400 Gbps']);
    const samples = Array.from(legend.getElementsByTagName('line')).map((l) => Number(l.getAttribute('stroke-width')));
    assert.ok(samples[2] > samples[1], `the 400 Gbps sample is wider: ${samples}`);
  });
});
