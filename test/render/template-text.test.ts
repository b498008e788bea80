// Template text is an obstacle for circuits (docs/render.md: Template text):
// text a node's template writes beside its marker (a site's name under its
// badge) is not drawn across a circuit: it moves to the other side of the
// marker, or where a circuit runs there too, the node says it by a placed
// label, which keeps clear of circuits; text no circuit crosses stays where
// the template puts it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { segmentCrosses } from '../../render/box-index.ts';
import { renderTopologySvg } from '../../render/svg.ts';
import { buildTopology } from '../../render/topology.ts';
import { ep, rec } from './fixtures.ts';
import { pictureBoxes } from './picture-geometry.ts';

const BADGE = '<g data-width="10" data-height="10"><circle r="5"/><text y="17" text-anchor="middle" font-size="11">{{ meta.city }}</text></g>';
const ham = () => ep('HAM1', 53.55, 10.0, { city: 'Hamburg' }), ber = () => ep('BER1', 52.52, 13.4, { city: 'Berlin' });
const muc = () => ep('MUC1', 48.14, 10.0, { city: 'Munich' }), kie = () => ep('KIE1', 55.5, 10.0, { city: 'Kiel' });

/** The circuits as straight segments between the points of their paths (these are straight: two points each). */
function circuitSegments(p: ReturnType<typeof pictureBoxes>): [number, number, number, number][] {
  return Array.from(p.doc.getElementsByTagName('path')).flatMap((path) => {
    if (!path.getElementsByTagName('title')[0]) return [];
    const nums = (path.getAttribute('d')?.match(/-?[\d.]+(?:e-?\d+)?/g) ?? []).map(Number);
    const out: [number, number, number, number][] = [];
    for (let i = 2; i + 1 < nums.length; i += 2) out.push([nums[i - 2], nums[i - 1], nums[i], nums[i + 1]]);
    return out;
  });
}

describe('template text and circuits', () => {
  // Hamburg's circuit to Munich runs due south, under the name Hamburg's badge writes below it; with Kiel, one runs due north too.
  const picture = async (north: boolean, width?: number) => {
    const records = [rec('1', 'ham-muc', ham(), muc()), rec('2', 'ham-ber', ham(), ber()), ...(north ? [rec('3', 'ham-kie', ham(), kie())] : [])];
    const t = await buildTopology(records, { name: 'DE', layout: 'geographic', template: BADGE });
    return pictureBoxes(renderTopologySvg(t, { width }));
  };

  for (const north of [false, true]) {
    for (const width of [undefined, 600]) {
      it(`draws no template text or label across a circuit, ${north ? 'circuits north and south' : 'a circuit south'}${width ? `, ${width} px` : ''}`, async () => {
        const p = await picture(north, width);
        const segments = circuitSegments(p);
        assert.equal(segments.length, north ? 3 : 2);
        for (const x of [...p.texts, ...p.labels]) for (const s of segments) assert.ok(!segmentCrosses(s, x.box), `${x.name} crosses a circuit`);
      });
    }
  }

  it('moves a crossed caption to the other side of its marker', async () => {
    const p = await picture(false);
    const hamburg = p.texts.find((x) => x.name === 'HAM1: "Hamburg"');
    assert.ok(hamburg, `still Hamburg's own caption: ${p.texts.map((x) => x.name)}`);
    // Hamburg is the northern end of its circuit to Munich.
    const [, ay, , by] = circuitSegments(p).find(([ax, , bx]) => Math.abs(ax - bx) < 0.5)!;
    assert.ok(hamburg.box.y1 <= Math.min(ay, by), 'over the badge');
    assert.deepEqual(p.labels.map((l) => l.name), []);
    assert.deepEqual(p.texts.map((t) => t.name).sort(), ['BER1: "Berlin"', 'HAM1: "Hamburg"', 'MUC1: "Munich"'], 'the others where they were');
  });

  it('says the caption by a label where circuits run on both sides', async () => {
    const p = await picture(true);
    assert.deepEqual(p.labels.map((l) => l.name), ['Hamburg']);
    assert.ok(!p.texts.some((x) => x.name.startsWith('HAM1')));
  });

  it('keeps a name on its own pill, where its circuits end under it', async () => {
    // The default template sizes a pill to its name; the estimate of that name's width runs a little past it.
    const cph = () => ep('NORDUnet Copenhagen', 55.68, 12.57), ams = () => ep('NetherLight', 52.36, 4.95), cern = () => ep('CERNLight', 46.23, 6.05);
    const records = [rec('1', 'a', ams(), cph()), rec('2', 'b', ams(), cern())];
    const p = pictureBoxes(renderTopologySvg(await buildTopology(records, { name: 'EU', layout: 'logical' })));
    assert.ok(p.texts.some((x) => x.name.includes('NORDUnet Copenhagen')), `texts: ${p.texts.map((x) => x.name)}`);
    assert.deepEqual(p.labels.map((l) => l.name), []);
  });
});
