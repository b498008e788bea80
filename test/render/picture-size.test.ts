// Picture size (docs/api.md: Picture size): every picture has a viewBox and,
// by default, no fixed width or height, so it scales to its container; a
// requested width and/or height sizes it, keeping or widening to the aspect
// ratio; labels stay 11 px on screen, fewer of them when the picture is small.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology } from '../../render/topology.ts';
import { renderMapSvg, renderTopologySvg } from '../../render/svg.ts';
import { renderDiffSvg } from '../../render/diff-svg.ts';
import { backbone } from './fixtures.ts';
import { pictureBoxes } from './picture-geometry.ts';

const attrs = (svg: string) => {
  const p = pictureBoxes(svg);
  const labels = Array.from(p.doc.getElementsByTagName('g')).find((g) => g.getAttribute('class') === 'labels');
  return { width: p.root.getAttribute('width'), height: p.root.getAttribute('height'), viewBox: p.viewBox, font: Number(labels?.getAttribute('font-size')), labels: p.labels.length };
};

describe('Picture size', () => {
  const render = async (size: { width?: number; height?: number }) =>
    renderTopologySvg(await buildTopology(backbone(), { name: 'B', layout: 'geographic' }), size);

  it('has a viewBox and, beside it, its natural size (the viewBox\'s, in px) by default', async () => {
    const a = attrs(await render({}));
    assert.equal(a.viewBox.length, 4);
    assert.ok(a.viewBox[2] > 0 && a.viewBox[3] > 0);
    assert.deepEqual([a.width, a.height], [String(Math.round(a.viewBox[2])), String(Math.round(a.viewBox[3]))]);
    assert.equal(a.font, 11);
  });

  const cases: [string, { width?: number; height?: number }][] = [
    ['width alone: height from the aspect ratio', { width: 600 }],
    ['height alone: width from the aspect ratio', { height: 250 }],
    ['both: the view widened to their aspect ratio', { width: 800, height: 200 }],
    ['both, tall', { width: 200, height: 800 }],
  ];
  for (const [what, size] of cases) {
    it(what, async () => {
      const a = attrs(await render(size));
      const [w, h] = [Number(a.width), Number(a.height)];
      if (size.width) assert.equal(w, size.width);
      if (size.height) assert.equal(h, size.height);
      assert.ok(Math.abs(w / h - a.viewBox[2] / a.viewBox[3]) < 0.02, `aspect ${w}x${h} vs view ${a.viewBox}`);
      const px = Math.min(w / a.viewBox[2], h / a.viewBox[3]);
      assert.ok(a.font * px >= 11 - 1e-9 || a.font === 11, `labels at least 11 px on screen: ${a.font} x ${px}`);
    });
  }

  it('keeps labels 11 px on screen when drawn small, placing fewer', async () => {
    const full = attrs(await render({}));
    const small = attrs(await render({ width: 64 }));
    assert.ok(small.font * (64 / small.viewBox[2]) >= 11 - 1e-9, `${small.font} in ${small.viewBox[2]} at 64 px`);
    assert.ok(small.labels < full.labels, `${small.labels} labels at 64 px, ${full.labels} at full size`);
  });

  it('applies to map and diff pictures alike', async () => {
    const t = await buildTopology(backbone(), { name: 'B', layout: 'geographic' });
    const map = attrs(renderMapSvg({ configuration: { layers: [{ mapjson: JSON.stringify(t) }] } }, undefined, { width: 500 }));
    assert.equal(map.width, '500');
    const viewport = attrs(renderMapSvg({ configuration: { viewport: { center: { lat: 40, lng: -100 }, zoom: 4 }, layers: [{ mapjson: JSON.stringify(t) }] } }, undefined, { height: 350 }));
    assert.deepEqual([viewport.width, viewport.height, viewport.viewBox], ['600', '350', [0, 0, 1200, 700]]);
    const diff = attrs(renderDiffSvg(t, t, { layout: 'geographic', width: 300 }));
    assert.equal(diff.width, '300');
    const natural = attrs(renderDiffSvg(t, t, { layout: 'geographic' }));
    assert.equal(natural.width, String(Math.round(natural.viewBox[2])));
  });
});
