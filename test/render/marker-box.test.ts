// Geometry taken from node templates is bounded where it enters
// (docs/render.md: Bounds): a marker's box counts its drawing only up to its
// reach, the box index answers in time that does not grow with a box's area,
// and a template that draws far beyond its box is named when saved.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoxIndex } from '../../render/box-index.ts';
import { MARKER_REACH_MIN, markerBox, templateReachWarning } from '../../render/marker-box.ts';

const rect = (w: number) => `<g data-width="10" data-height="10"><rect x="${-w / 2}" y="${-w / 2}" width="${w}" height="${w}" fill="none"/></g>`;

describe('markerBox: reach', () => {
  for (const [what, markup, side] of [
    ['a shape within reach counts whole', rect(100), 100 + 1],
    ['a rect 8,000 wide counts to the reach', rect(8000), 2 * MARKER_REACH_MIN],
    ['a rect 80,000,000 wide counts to the reach', rect(80_000_000), 2 * MARKER_REACH_MIN],
    ['a text far off counts to the reach', '<g data-width="10" data-height="10"><text x="100000" y="0">far</text></g>', undefined],
  ] as const) {
    it(what, () => {
      const b = markerBox(markup, 10, 10);
      for (const v of [b.x0, b.y0, b.x1, b.y1]) assert.ok(Math.abs(v) <= MARKER_REACH_MIN, `${v} within ${MARKER_REACH_MIN}`);
      if (side !== undefined) assert.equal(Math.round(b.x1 - b.x0), side);
    });
  }
  it('a large data box keeps its own size', () => {
    const b = markerBox('<g data-width="400" data-height="400"><rect x="-200" y="-200" width="400" height="400"/></g>', 400, 400);
    assert.ok(b.x1 - b.x0 >= 400);
  });
});

describe('templateReachWarning', () => {
  it('names the shape that reaches beyond', () => {
    const w = templateReachWarning(rect(8000));
    assert.ok(w, 'a warning');
    assert.match(w, /<rect x="-4000" y="-4000" width="8000" height="8000"/);
    assert.match(w, /draws 4001 units from the node/);
  });
  it('is silent for the shipped and ordinary templates', () => {
    assert.equal(templateReachWarning(rect(10)), null);
    assert.equal(templateReachWarning('<g data-width="10" data-height="10"><circle r="5"/><text y="18" text-anchor="middle">{{ name }}</text></g>'), null);
  });
});

describe('BoxIndex: boxes of any area', () => {
  it('finds huge boxes and answers huge questions without walking their cells', () => {
    const index = new BoxIndex(16);
    for (let i = 0; i < 50; i++) index.add({ x0: i * 40, y0: 0, x1: i * 40 + 10, y1: 10 });
    // 1e18 cells: walked cell by cell, this would never end.
    const huge = index.add({ x0: -1e9, y0: -1e9, x1: 1e9, y1: 1e9 });
    const found: number[] = [];
    index.each({ x0: 0, y0: 0, x1: 5, y1: 5 }, (id) => { found.push(id); });
    assert.deepEqual(found.sort((a, b) => a - b), [0, huge]);
    const all: number[] = [];
    index.each({ x0: -1e12, y0: -1e12, x1: 1e12, y1: 1e12 }, (id) => { all.push(id); });
    assert.equal(all.length, 51);
    assert.equal(index.segmentBlocked(-1e10, 500, 1e10, 500), true, 'the huge box blocks');
    assert.equal(index.segmentBlocked(-1e10, 500, 1e10, 500, new Set([huge])), false);
  });
});
