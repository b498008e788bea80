// "East of" across the antimeridian (docs/render.md: Layout quality): a
// graph's longitudes are read on the piece of the circle its nodes lie in,
// by the logical layout and by the compass-order measure alike, so a
// Pacific drawing (Tokyo west of Honolulu west of Seattle) keeps the order
// and one with Tokyo at the far east does not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compassPlaces, hasCompassOrder } from '../../render/compass-order.ts';
import type { Drawing } from '../../render/drawing-geometry.ts';
import { quality } from '../../render/layout-quality.ts';
import { renderTopologySvg } from '../../render/svg.ts';
import { buildTopology } from '../../render/topology.ts';
import { svgDrawing } from '../helpers/layout-geometry.ts';
import { ep, rec } from './fixtures.ts';

const PLACES: Record<string, [number, number]> = {
  Singapore: [1.3, 103.8], Tokyo: [35.7, 139.7], Honolulu: [21.3, -157.9], Seattle: [47.6, -122.3],
  Chicago: [41.9, -87.6], 'New York': [40.7, -74.0], Amsterdam: [52.4, 4.95], London: [51.5, 0],
};
const west = (geo: [number, number][], names: string[]) => names.map((_, i) => i).sort((a, b) => geo[a][1] - geo[b][1]).map((i) => names[i]);

describe('compassPlaces', () => {
  const cases: [string, string[], string[]][] = [
    ['a ring round the world is cut at its widest gap (Europe to Asia)', ['Amsterdam', 'Tokyo', 'Seattle', 'Singapore', 'Honolulu', 'New York'],
      ['Singapore', 'Tokyo', 'Honolulu', 'Seattle', 'New York', 'Amsterdam']],
    ['the Pacific rim alone is one piece across 180°', ['Seattle', 'Tokyo', 'Honolulu'], ['Tokyo', 'Honolulu', 'Seattle']],
    ['the Atlantic alone keeps its longitudes', ['London', 'Chicago', 'New York', 'Amsterdam'], ['Chicago', 'New York', 'London', 'Amsterdam']],
  ];
  for (const [what, names, order] of cases) {
    it(what, () => {
      const raw = names.map((n) => PLACES[n]);
      const geo = compassPlaces(raw);
      assert.deepEqual(west(geo, names), order);
      geo.forEach(([lat, lng], i) => {
        assert.equal(lat, raw[i][0]);
        assert.equal(((lng - raw[i][1]) % 360 + 360) % 360, 0, `${names[i]} moved by whole turns only`);
      });
      if (what.includes('keeps')) assert.deepEqual(geo, raw);
    });
  }
});

describe('hasCompassOrder: a compass order only within half the globe', () => {
  const cases: [string, string[], boolean][] = [
    ['a ring round the world (Singapore is east of Amsterdam the short way, west of it in any cut)', ['Amsterdam', 'Tokyo', 'Seattle', 'Singapore', 'New York'], false],
    ['Asia to Europe the long way round, over the Americas', ['Tokyo', 'Seattle', 'New York', 'London'], false],
    ['the Pacific rim across 180°', ['Tokyo', 'Honolulu', 'Seattle', 'Chicago'], true],
    ['the Atlantic', ['Chicago', 'New York', 'London', 'Amsterdam'], true],
  ];
  for (const [what, names, ordered] of cases) it(what, () => assert.equal(hasCompassOrder(names.map((n) => PLACES[n])), ordered));
});

describe('the compass-order measure across the antimeridian', () => {
  /** A drawing of points (x east, y south) named as given, no lines. */
  const drawing = (at: Record<string, [number, number]>): Drawing => ({
    nodes: new Map(Object.entries(at).map(([n, [x, y]]) => [n, { x: x - 5, y: y - 5, w: 10, h: 10 }])),
    lines: [], clusters: new Map(), width: 400, height: 200,
  });
  const geo = new Map(['Tokyo', 'Honolulu', 'Seattle'].map((n) => [n, PLACES[n]] as const));
  it('keeps every pair of a Pacific drawing (Tokyo west of Honolulu west of Seattle)', () => {
    assert.equal(quality(drawing({ Tokyo: [0, 80], Honolulu: [100, 120], Seattle: [200, 20] }), geo).compassKept, 1);
  });
  it('counts none for nodes round the world, which have no compass order', () => {
    const world = new Map(['Tokyo', 'Seattle', 'New York', 'Amsterdam', 'Singapore'].map((n) => [n, PLACES[n]] as const));
    const q = quality(drawing({ Tokyo: [0, 80], Seattle: [100, 20], 'New York': [200, 40], Amsterdam: [300, 10], Singapore: [350, 90] }), world);
    assert.equal(q.compassKept, null);
  });
  it('does not count a drawing on raw longitudes (Tokyo at the far east) as kept', () => {
    const q = quality(drawing({ Honolulu: [0, 120], Seattle: [100, 20], Tokyo: [200, 80] }), geo);
    assert.ok(q.compassKept! < 0.7, `kept ${q.compassKept}`);
  });
});

describe('a logical drawing of a Pacific ring', () => {
  it('draws Tokyo west of Honolulu west of Los Angeles, as the measure reads them', async () => {
    const at = (n: string, lat: number, lng: number) => ep(n, lat, lng);
    const [tyo, hnl, lax, sea] = [() => at('Tokyo', 35.7, 139.7), () => at('Honolulu', 21.3, -157.9), () => at('Los Angeles', 34.0, -118.3), () => at('Seattle', 47.6, -122.3)];
    const records = [rec('1', 'a', tyo(), hnl()), rec('2', 'b', hnl(), lax()), rec('3', 'c', lax(), sea()), rec('4', 'd', sea(), tyo())];
    const t = await buildTopology(records, { name: 'pacific', layout: 'logical' });
    const d = svgDrawing(renderTopologySvg(t));
    const x = (n: string) => d.nodes.get(n)!.x + d.nodes.get(n)!.w / 2;
    assert.ok(x('Tokyo') < x('Honolulu') && x('Honolulu') < x('Los Angeles'), `x: ${['Tokyo', 'Honolulu', 'Los Angeles'].map(x).join(', ')}`);
    const geo = new Map(records.flatMap((r) => r.endpoints.map((e) => [e.name, [e.latitude!, Number(e.longitude)]] as const)));
    const q = quality(d, geo);
    assert.equal(q.crossings, 0);
    assert.ok(q.compassKept! >= 0.9, `compass order kept ${q.compassKept}`);
  });
});

describe('a logical drawing of a ring round the world', () => {
  // Round the world in a zigzag; as a schematic its circuits were straightened to 0/45/90° in a compass order the globe does not have.
  const ring = ['Seattle', 'Amsterdam', 'Tokyo', 'New York', 'Singapore', 'Chicago'];
  const drawing = async (placed: boolean) => {
    const end = (n: string) => (placed ? ep(n, ...PLACES[n]) : ep(n));
    const records = ring.map((n, i) => rec(String(i), `c${i}`, end(n), end(ring[(i + 1) % 6])));
    return svgDrawing(renderTopologySvg(await buildTopology(records, { name: 'world', layout: 'logical' })));
  };
  it('is drawn as the same graph without coordinates: a ring, circuits alike', async () => {
    const [d, plain] = [await drawing(true), await drawing(false)];
    assert.deepEqual(d.nodes, plain.nodes);
    const q = quality(d);
    assert.equal(q.crossings, 0);
    assert.ok(q.lengthCv < 0.1, `circuits alike: CV ${q.lengthCv.toFixed(2)}`);
  });
});
