// A site's routers rearranged where their circuits cross (render/site-arrangement.ts):
// a permutation or a turn of their places about the site's centre, never a
// move of another node, and only among routers of one place.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { arrangeSites } from '../../render/site-arrangement.ts';
import type { Pt } from '../../render/paths.ts';
import { straightCrossings } from '../../render/stress-drawing.ts';

// Routers A and B of one site (a bar between them), X linked to B on A's side, Y linked to A on B's side: X-B and Y-A cross.
const at = (): Pt[] => [[0, 0], [70, 0], [-100, 50], [170, 50]];
const ends: [number, number][] = [[0, 1], [2, 1], [3, 0]];
const site = [0, 0, -1, -1];
const sorted = (ps: Pt[]) => ps.map((p) => p.map((v) => Math.round(v * 1e6) / 1e6)).sort((a, b) => a[0] - b[0] || a[1] - b[1]);

describe('arrangeSites', () => {
  it('swaps two routers whose circuits cross, keeping the site\'s places and every other node', () => {
    const c = at();
    assert.equal(straightCrossings(c, ends), 1);
    arrangeSites(c, ends, site);
    assert.equal(straightCrossings(c, ends), 0);
    assert.deepEqual(sorted(c.slice(0, 2)), sorted(at().slice(0, 2)));
    assert.deepEqual(c.slice(2), at().slice(2));
  });

  const geo = (b: Pt): Pt[] => [[40, -100], b, [41, -110], [41, -90]];
  const cases: [string, Pt, number][] = [
    ['routers of one place (one coordinate) are rearranged in a schematic', [40, -100], 0],
    ['routers of one site at different places keep their places', [40, -99], 1],
  ];
  for (const [what, b, crossings] of cases) {
    it(what, () => {
      const c = at();
      arrangeSites(c, ends, site, geo(b));
      assert.equal(straightCrossings(c, ends), crossings);
    });
  }

  it('leaves a drawing without crossings as it is', () => {
    const c: Pt[] = [[70, 0], [0, 0], [-100, 50], [170, 50]];
    arrangeSites(c, ends, site);
    assert.deepEqual(c, [[70, 0], [0, 0], [-100, 50], [170, 50]]);
  });
});
