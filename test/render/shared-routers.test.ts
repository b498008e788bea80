// A map whose layers share routers (docs/render.md: Map layers share routers):
// each router is one marker, every layer's circuits end on it, and a circuit
// between two routers of one site is a short straight bar between them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTopology } from '../../render/topology.ts';
import { renderMapSvg } from '../../render/svg.ts';
import type { MapConfiguration } from '../../schema/map.ts';
import { ep, rec } from './fixtures.ts';
import { pictureBoxes } from './picture-geometry.ts';

const ham1 = () => ep('HAM1', 53.55, 10.0, { site: 'HAM' }), ham2 = () => ep('HAM2', 53.55, 10.0, { site: 'HAM' });
const ber = () => ep('BER1', 52.52, 13.4, { site: 'BER' }), fra = () => ep('FRA1', 50.11, 8.68, { site: 'FRA' });
const muc = () => ep('MUC1', 48.14, 11.58, { site: 'MUC' });

/** Core and access layers of one backbone: HAM1, BER1 and MUC1 in both; HAM1-HAM2 inside Hamburg. */
async function backboneMap(draw = true) {
  const core = await buildTopology([rec('1', 'ham-ber', ham1(), ber()), rec('2', 'ham-fra', ham2(), fra()), rec('3', 'fra-muc', fra(), muc())],
    { name: 'core', layout: 'geographic' });
  const access = await buildTopology([rec('4', 'ham-ham', ham1(), ham2()), rec('5', 'ber-muc', ber(), muc())], { name: 'access', layout: 'geographic' });
  const configuration = { layers: [{ name: 'core' }, { name: 'access' }], showLegend: true } as unknown as MapConfiguration;
  return { core, access, configuration, svg: draw ? renderMapSvg({ name: 'DE', configuration }, [core, access]) : '' };
}

type Pt = [number, number];
/** Every circuit drawn: its title and the first and last points of its path. */
function circuits(svg: string) {
  const p = pictureBoxes(svg);
  return Array.from(p.doc.getElementsByTagName('path')).flatMap((path) => {
    const title = path.getElementsByTagName('title')[0]?.textContent;
    if (!title) return [];
    const d = path.getAttribute('d') ?? '';
    const nums = (d.match(/-?[\d.]+/g) ?? []).map(Number);
    return [{ title, d, first: [nums[0], nums[1]] as Pt, last: [nums[nums.length - 2], nums[nums.length - 1]] as Pt }];
  });
}
const centre = (b: { x0: number; y0: number; x1: number; y1: number }): Pt => [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2];
const near = (a: Pt, b: Pt) => Math.hypot(a[0] - b[0], a[1] - b[1]) < 0.6;

describe('routers shared by the layers of a map', () => {
  it('draws each router once, however many layers hold it', async () => {
    const { svg } = await backboneMap();
    const names = pictureBoxes(svg).nodes.map((n) => n.name).sort();
    assert.deepEqual(names, ['BER1', 'FRA1', 'HAM1', 'HAM2', 'MUC1']);
  });

  it('ends every layer\'s circuits on the one marker of each of their routers', async () => {
    const { svg } = await backboneMap();
    const at = new Map(pictureBoxes(svg).nodes.map((n) => [n.name, centre(n.box)]));
    const ends: Record<string, [string, string]> = {
      'ham-ber': ['HAM1', 'BER1'], 'ham-fra': ['HAM2', 'FRA1'], 'fra-muc': ['FRA1', 'MUC1'], 'ham-ham': ['HAM1', 'HAM2'], 'ber-muc': ['BER1', 'MUC1'],
    };
    const drawn = circuits(svg);
    assert.equal(drawn.length, 5);
    for (const c of drawn) {
      const [a, b] = ends[c.title].map((n) => at.get(n)!);
      assert.ok((near(c.first, a) && near(c.last, b)) || (near(c.first, b) && near(c.last, a)), `${c.title}: ${c.d} between ${a} and ${b}`);
    }
  });

  it('draws a circuit between two routers of one site as a short straight bar, not a loop', async () => {
    const { svg } = await backboneMap();
    const bar = circuits(svg).find((c) => c.title === 'ham-ham')!;
    assert.doesNotMatch(bar.d, /C/, 'no curve');
    const len = Math.hypot(bar.last[0] - bar.first[0], bar.last[1] - bar.first[1]);
    assert.ok(len > 5 && len < 40, `a short bar between the two markers: ${len.toFixed(1)} px`);
  });

  it('leaves each layer\'s topology JSON as it was built', async () => {
    const { core, access, configuration } = await backboneMap(false);
    const before = JSON.stringify([core, access]);
    renderMapSvg({ name: 'DE', configuration }, [core, access]);
    assert.equal(JSON.stringify([core, access]), before);
    assert.deepEqual(access.nodes.filter((n) => !n.children).map((n) => n.name).sort(), ['BER1', 'HAM1', 'HAM2', 'MUC1']);
  });
});
