// The polish of a schematic drawing (render/schematic-polish.ts) on small
// drawings whose answer is known, measured by the quality module as the
// logical layout measures its candidates: a crossing undone where the
// compass order allows it and kept where it does not, uneven circuits
// evened out in order, and nodes kept clear of each other and of circuits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pt } from '../../render/paths.ts';
import { quality } from '../../render/layout-quality.ts';
import { polishSchematic } from '../../render/schematic-polish.ts';
import { layoutDrawing, result } from '../../render/stress-drawing.ts';
import { apart, routerBox, siteBoxes } from '../../render/stress-clusters.ts';

type Ends = [number, number][];
const box = { w: 30, h: 15 };

/** The quality of positions `at` (px, y south) with coordinates `geo` ([lat, lng]). */
function measured(at: Pt[], ends: Ends, geo: Pt[]) {
  const input = { boxes: at.map(() => box), ends, geo };
  const places = new Map(geo.map((g, i) => [`n${i}`, g as [number, number]]));
  return quality(layoutDrawing(result(at, input), ends), places);
}
const polish = (at: Pt[], ends: Ends, geo: Pt[], minCompass: number) => polishSchematic(at, { boxes: at.map(() => box), ends, geo }, minCompass);
/** Geography that puts every node where it is drawn (x east, y south), so the drawing starts in compass order. */
const asDrawn = (at: Pt[]): Pt[] => at.map(([x, y]) => [-y / 100, x / 100]);

describe('polishSchematic: a crossing', () => {
  // A triangle, and a fourth router linked to its apex drawn beyond its base: its circuit crosses the base.
  const at: Pt[] = [[0, 0], [300, 0], [150, 220], [150, -200]];
  const ends: Ends = [[0, 1], [1, 2], [2, 0], [3, 2]];
  const cases: [string, Pt[], number, number][] = [
    // Its coordinates put it inside the triangle: moving there undoes the crossing and restores the order.
    ['is undone where the coordinates allow it', [...asDrawn(at).slice(0, 3), [-1.1, 1.5]], 0.9, 0],
    // Its coordinates put it north of the base, the apex south of it, the base's ends west and east of both: in full
    // compass order the circuit from it to the apex must cross the base.
    ['is kept where undoing it would give up the compass order asked for', asDrawn(at), 1, 1],
    ['is undone where no compass order is asked for', asDrawn(at), 0, 0],
  ];
  for (const [name, geo, minCompass, crossings] of cases) {
    it(name, () => {
      const out = polish(at, ends, geo, minCompass);
      const q = measured(out, ends, geo);
      assert.equal(q.crossings, crossings);
      assert.equal(q.through, 0);
      assert.ok(q.compassKept! >= Math.min(minCompass, measured(at, ends, geo).compassKept!), `compass order ${q.compassKept}`);
    });
  }
});

describe('polishSchematic: uneven circuits', () => {
  // A chain west to east with circuits of 60 to 340 px, and a spur.
  const at: Pt[] = [[0, 0], [60, 0], [400, 0], [460, 0], [800, 0], [430, 200]];
  const ends: Ends = [[0, 1], [1, 2], [2, 3], [3, 4], [3, 5]];
  const geo = asDrawn(at);
  const before = measured(at, ends, geo);
  const out = polish(at, ends, geo, 0.9);
  const after = measured(out, ends, geo);

  it('comes out more even and no longer, in node spacings', () => {
    assert.ok(after.lengthCv < before.lengthCv / 2, `CV ${before.lengthCv.toFixed(2)} -> ${after.lengthCv.toFixed(2)}`);
    assert.ok(after.totalLength <= before.totalLength, `total ${before.totalLength.toFixed(1)} -> ${after.totalLength.toFixed(1)}`);
  });
  it('keeps the compass order asked for, no crossing and no circuit through a node', () => {
    assert.ok(after.compassKept! >= 0.9, `compass order ${after.compassKept}`);
    assert.equal(after.crossings, 0);
    assert.equal(after.through, 0);
  });
  it('keeps every two node boxes at least 20 px apart', () => {
    for (let i = 0; i < out.length; i++) {
      for (let j = i + 1; j < out.length; j++) {
        const dx = Math.abs(out[i][0] - out[j][0]), dy = Math.abs(out[i][1] - out[j][1]);
        assert.ok(dx >= box.w + 20 - 1e-9 || dy >= box.h + 20 - 1e-9, `nodes ${i} and ${j}: ${dx.toFixed(1)} x ${dy.toFixed(1)} px apart`);
      }
    }
  });
  it('gives the same drawing every time (no clock, no randomness)', () => assert.deepEqual(polish(at, ends, geo, 0.9), out));
});

describe('polishSchematic: sites', () => {
  // The chain again, routers 2 and 3 one site with a short circuit between them, and a router of no circuit just north
  // of where 3 would go to even the circuits out: there, the site's box (its title above its routers) would cover it.
  const at: Pt[] = [[0, 0], [60, 0], [400, 0], [460, 0], [800, 0], [560, -36]];
  const ends: Ends = [[0, 1], [1, 2], [2, 3], [3, 4]];
  const boxes = at.map(() => box), geo = asDrawn(at), sites = [{ members: [2, 3], titleWidth: 30 }];
  const covered = (out: Pt[]) => {
    const [site] = siteBoxes(out, boxes, sites);
    return [0, 1, 4, 5].filter((i) => !apart(site, routerBox(out[i], box)));
  };
  it('keeps a site\'s box clear of routers not its own while it evens the circuits out', () => {
    assert.deepEqual(covered(at), [], 'clear at the start');
    const out = polishSchematic(at, { boxes, ends, geo, sites }, 0.9);
    assert.deepEqual(covered(out), []);
    assert.ok(measured(out, ends, geo).lengthCv < measured(at, ends, geo).lengthCv / 2, 'more even');
  });
  it('would cover one, told of no sites', () => assert.deepEqual(covered(polishSchematic(at, { boxes, ends, geo }, 0.9)), [5]));
});
