// Crossings small moves cannot undo (render/relocate.ts): a ring round the
// world drawn from its geography crosses where its circuit from Singapore
// to Amsterdam spans the picture; one end of it moved across the drawing
// crosses nothing, and the drawing keeps 92 % of its pairs in compass order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compassKeptBy, compassPlaces } from '../../render/compass-order.ts';
import type { Pt } from '../../render/paths.ts';
import { relocate } from '../../render/relocate.ts';
import { schematicLayout } from '../../render/schematic-layout.ts';
import { straightCrossings } from '../../render/stress-drawing.ts';

const PLACES: [string, number, number][] = [
  ['Singapore', 1.3, 103.8], ['Tokyo', 35.7, 139.7], ['Honolulu', 21.3, -157.9], ['Los Angeles', 34.0, -118.3], ['Seattle', 47.6, -122.3],
  ['Chicago', 41.9, -87.6], ['New York', 40.7, -74.0], ['Washington', 38.9, -77.2], ['Miami', 25.8, -80.2], ['Sao Paulo', -23.6, -46.7],
  ['London', 51.5, 0], ['Amsterdam', 52.4, 4.95],
];
const LINKS = [
  'Singapore-Tokyo', 'Tokyo-Seattle', 'Seattle-Chicago', 'Chicago-New York', 'New York-Amsterdam', 'Amsterdam-Singapore',
  'Seattle-Los Angeles', 'Los Angeles-Honolulu', 'Honolulu-Tokyo', 'New York-Washington', 'Washington-Miami', 'Miami-Sao Paulo',
  'Washington-London', 'London-Amsterdam',
];
const names = PLACES.map(([n]) => n);
const ends = LINKS.map((l) => l.split('-').map((n) => names.indexOf(n)) as [number, number]);
const geo = compassPlaces(PLACES.map(([, lat, lng]): Pt => [lat, lng]));
const site = names.map(() => -1);
const kept = (at: Pt[]) => {
  let k = 0, pairs = 0;
  at.forEach((p, v) => { const c = compassKeptBy(v, p, at, geo); k += c.kept; pairs += c.pairs; });
  return k / pairs;
};

describe('relocate', () => {
  it('moves an end of the circuit across a ring round the world until nothing crosses, keeping 92 % of pairs in order', () => {
    const at = schematicLayout(geo, ends, 70, { order: 1, octilinear: 0, site, rounds: 0 });
    const before = at.map((p): Pt => [p[0], p[1]]);
    assert.ok(straightCrossings(at, ends) >= 1, 'the geography crosses');
    assert.equal(relocate(at, ends, 70, site, geo), true);
    assert.equal(straightCrossings(at, ends), 0);
    assert.ok(kept(at) >= 0.92, `compass order kept ${kept(at)}`);
    const moved = names.filter((_, i) => at[i][0] !== before[i][0] || at[i][1] !== before[i][1]);
    // One end of the circuit that spans the picture, moved clear of everything else.
    assert.equal(moved.length, 1, `moved: ${moved}`);
    assert.ok(['Singapore', 'Amsterdam'].includes(moved[0]), `moved: ${moved}`);
  });

  it('leaves a drawing without crossings as it is', () => {
    const at: Pt[] = [[0, 0], [70, 0], [70, 70]];
    assert.equal(relocate(at, [[0, 1], [1, 2]], 70, [-1, -1, -1], [[0, 0], [0, 1], [-1, 1]]), false);
    assert.deepEqual(at, [[0, 0], [70, 0], [70, 70]]);
  });
});
