// Country outlines: the projected paths are memoized per frame (projection
// parameters and box), so a repeated frame reuses them and another frame does not.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { geoMercator } from 'd3-geo';
import { countryPaths } from '../../render/countries.ts';

const box = { x: 0, y: 0, w: 1200, h: 700 };
/** A Leaflet-style Mercator frame centered on lng/lat at a zoom. */
const frame = (lng: number, lat: number, zoom: number) => {
  const p = geoMercator().scale((256 * 2 ** zoom) / (2 * Math.PI)).translate([0, 0]);
  const [x, y] = p([lng, lat])!;
  return p.translate([600 - x, 350 - y]);
};

describe('countryPaths', () => {
  it('answers a repeated frame with the same paths, even from another projection object', () => {
    const a = countryPaths(frame(-40, 46, 3), box);
    assert.ok(a.length > 20, 'both shores of the Atlantic are drawn');
    assert.equal(countryPaths(frame(-40, 46, 3), box), a);
    assert.ok(Object.isFrozen(a));
  });

  it('projects anew for another center, zoom or box', () => {
    const a = countryPaths(frame(-40, 46, 3), box);
    for (const other of [countryPaths(frame(-30, 46, 3), box), countryPaths(frame(-40, 46, 4), box),
      countryPaths(frame(-40, 46, 3), { ...box, w: 600 })]) {
      assert.notEqual(other, a);
      assert.notDeepEqual(other, a);
    }
  });

  it('keeps only recent frames, and a recomputed frame gives the same paths', () => {
    const a = countryPaths(frame(10, 50, 5), box);
    for (let i = 0; i < 20; i++) countryPaths(frame(-100 + i, 40, 4), box);
    const again = countryPaths(frame(10, 50, 5), box);
    assert.notEqual(again, a);
    assert.deepEqual(again, a);
  });

  for (const lng of [-30, 0, 25]) {
    it(`draws every country in a view that holds the whole world, centred at longitude ${lng}`, () => {
      // The box runs past the world's edges, where inverting a corner would wrap round and hide most countries.
      assert.equal(countryPaths(frame(lng, 20, 2), box).length, 177);
    });
  }
});
