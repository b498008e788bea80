// Annealing a straight-line drawing (render/anneal.ts): it finds what moves
// of one node at a time cannot, and never hands back a drawing worse by any
// measure the quality rules read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anneal } from '../../render/anneal.ts';
import { compassPlaces } from '../../render/compass-order.ts';
import type { Drawing } from '../../render/drawing-geometry.ts';
import { type Quality, quality } from '../../render/layout-quality.ts';
import type { Pt } from '../../render/paths.ts';

const BOX = { w: 30, h: 18 };

/** Node centres and circuits as the quality module reads a drawing. */
function measured(at: readonly Pt[], ends: readonly [number, number][], geo?: readonly Pt[]): Quality {
  const d: Drawing = {
    nodes: new Map(at.map(([x, y], i) => [`n${i}`, { x: x - BOX.w / 2, y: y - BOX.h / 2, ...BOX }])),
    lines: ends.map(([a, b]) => ({ a: `n${a}`, b: `n${b}`, pts: [at[a], at[b]] })),
    clusters: new Map(), width: 0, height: 0,
  };
  return quality(d, geo && new Map(geo.map((g, i) => [`n${i}`, g as [number, number]])));
}

/** Each figure of `after` no worse than `before`'s (compass: at least 0.9, or as before). */
function noWorse(before: Quality, after: Quality): void {
  assert.ok(after.crossings <= before.crossings, `crossings ${after.crossings} > ${before.crossings}`);
  assert.equal(after.through, 0);
  assert.ok(after.lengthCv <= before.lengthCv + 1e-6, `CV ${after.lengthCv} > ${before.lengthCv}`);
  assert.ok(after.totalLength <= before.totalLength + 1e-6, `total ${after.totalLength} > ${before.totalLength}`);
  assert.ok(after.areaPerNode <= before.areaPerNode + 1e-6, `area ${after.areaPerNode} > ${before.areaPerNode}`);
  if (before.compassKept !== null) assert.ok(after.compassKept! >= Math.min(0.9, before.compassKept), `compass ${after.compassKept}`);
}

// A 3 x 3 grid of routers linked to their neighbours, two corners swapped: four of its circuits cross.
const GRID: Pt[] = [[0, 0], [100, 0], [200, 200], [0, 100], [100, 100], [200, 100], [0, 200], [100, 200], [200, 0]];
const GRID_ENDS: [number, number][] = [[0, 1], [1, 2], [3, 4], [4, 5], [6, 7], [7, 8], [0, 3], [3, 6], [1, 4], [4, 7], [2, 5], [5, 8]];

describe('anneal', () => {
  it('untangles a grid with two corners swapped, no worse by any measure', () => {
    const before = measured(GRID, GRID_ENDS);
    assert.ok(before.crossings >= 2, `the swapped grid crosses: ${before.crossings}`);
    const at = anneal(GRID, { boxes: GRID.map(() => BOX), ends: GRID_ENDS });
    assert.ok(at, 'a better drawing');
    const after = measured(at, GRID_ENDS);
    assert.equal(after.crossings, 0);
    noWorse(before, after);
  });

  it('draws the same graph the same way every time', () => {
    const input = { boxes: GRID.map(() => BOX), ends: GRID_ENDS };
    const first = anneal(GRID, input);
    assert.ok(first, 'a drawing to compare');
    assert.deepEqual(anneal(GRID, input), first);
  });

  it('leaves a drawing that nothing improves as it is', () => {
    // A hexagon: no crossing, every circuit alike.
    const ring: Pt[] = Array.from({ length: 6 }, (_, i) => [200 + 100 * Math.cos((i * Math.PI) / 3), 200 + 100 * Math.sin((i * Math.PI) / 3)]);
    const ends = ring.map((_, i): [number, number] => [i, (i + 1) % 6]);
    assert.equal(anneal(ring, { boxes: ring.map(() => BOX), ends }), null);
  });

  it('leaves drawings of fewer than 6 nodes to the layouts before it', () => {
    // A square drawn as a bow tie: one crossing, which a move would undo.
    const tie: Pt[] = [[0, 0], [100, 100], [100, 0], [0, 100]];
    const ends: [number, number][] = [[0, 1], [1, 2], [2, 3], [3, 0]];
    assert.equal(measured(tie, ends).crossings, 1);
    assert.equal(anneal(tie, { boxes: tie.map(() => BOX), ends }), null);
  });

  it('brings a schematic back into compass order without crossing more', () => {
    // A chain west to east along the equator, its east end drawn at the far west: its circuit spans the picture.
    const geo = compassPlaces(Array.from({ length: 8 }, (_, i): Pt => [i % 2, 10 * i]));
    const at: Pt[] = Array.from({ length: 8 }, (_, i) => [i === 7 ? -90 : 90 * i, 100 - 40 * (i % 2)]);
    const ends = at.slice(1).map((_, i): [number, number] => [i, i + 1]);
    const before = measured(at, ends, geo);
    assert.ok(before.compassKept! < 0.9, `out of order: ${before.compassKept}`);
    const after = anneal(at, { boxes: at.map(() => BOX), ends, geo });
    assert.ok(after, 'a better drawing');
    const q = measured(after, ends, geo);
    assert.ok(q.compassKept! >= 0.9, `compass ${before.compassKept} to ${q.compassKept}`);
    noWorse(before, q);
  });
});
