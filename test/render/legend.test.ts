// The legend of a picture (docs/render.md: Legend): never more than a sixth
// of the picture; rows left out, least needed first, where it would be.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderMapSvg } from '../../render/svg.ts';
import { buildTopology } from '../../render/topology.ts';
import type { MapConfiguration } from '../../schema/map.ts';
import { ep, rec } from './fixtures.ts';
import { pictureBoxes } from './picture-geometry.ts';

/** Six layers of a few circuits each, with capacities and a kind to colour by. */
async function busyMap() {
  const kinds = ['dwdm', 'dark fibre', 'leased', 'microwave'];
  const layers = await Promise.all(Array.from({ length: 6 }, (_, l) => buildTopology(Array.from({ length: 4 }, (_, i) =>
    rec(`${l}-${i}`, `l${l}c${i}`, ep(`R${l}-${i}`, 40 + l, -100 + 8 * i), ep(`R${l}-${i + 1}`, 40 + l, -92 + 8 * i), { capacity: `${10 ** (i % 3 + 1)}G`, kind: kinds[i] })),
  { name: `Layer ${l}`, layout: 'geographic' })));
  const configuration = { showLegend: true, layers: layers.map((_, l) => ({ name: `Regional layer number ${l}`, edgeColorBy: l === 0 ? 'kind' : undefined })) };
  return (size: { width?: number; height?: number }) => renderMapSvg({ name: 'Busy', configuration: configuration as unknown as MapConfiguration }, layers, size);
}
const rowsOf = (p: ReturnType<typeof pictureBoxes>) => {
  const legend = Array.from(p.doc.getElementsByTagName('g')).find((g) => g.getAttribute('class') === 'legend');
  return legend ? Array.from(legend.getElementsByTagName('text')).map((x) => x.textContent) : null;
};

describe('the legend\'s share of the picture', () => {
  for (const size of [{}, { width: 800 }, { width: 600, height: 400 }, { width: 400 }, { width: 300, height: 200 }]) {
    it(`is at most a sixth of the picture at ${JSON.stringify(size)}`, async () => {
      const p = pictureBoxes((await busyMap())(size));
      if (!p.legend) return;
      const legend = (p.legend.x1 - p.legend.x0) * (p.legend.y1 - p.legend.y0);
      assert.ok(legend <= (p.viewBox[2] * p.viewBox[3]) / 6 + 1e-6, `${legend.toFixed(0)} of ${(p.viewBox[2] * p.viewBox[3]).toFixed(0)}`);
    });
  }

  it('shows every row where there is room, fewer rows (capacities, then values) where not, and none where even the layers would not fit', async () => {
    const draw = await busyMap();
    const full = rowsOf(pictureBoxes(draw({})))!;
    assert.ok(full.includes('dwdm') && full.includes('1 Tbps') && full.includes('Regional layer number 5'), full.join('|'));
    const small = rowsOf(pictureBoxes(draw({ width: 400 })));
    assert.ok(small === null || small.length < full.length, `${small}`);
    if (small) assert.ok(!small.includes('1 Tbps') || small.length === full.length, 'the capacities go first');
    assert.equal(rowsOf(pictureBoxes(draw({ width: 200, height: 150 }))), null, 'no room for even the layers');
  });
});
