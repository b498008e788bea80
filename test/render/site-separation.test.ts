// Site boxes pushed apart where spreading cannot part them
// (render/site-separation.ts): a router of another site between a site's
// routers. Each site moves as one piece, along the axis of least overlap,
// in the order the two already lie.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pt } from '../../render/paths.ts';
import { separateSites, spreadOrSeparate } from '../../render/site-separation.ts';
import { siteBoxes, type Site } from '../../render/stress-clusters.ts';

const boxes = [{ w: 50, h: 16 }, { w: 50, h: 16 }, { w: 50, h: 16 }];
const sites: Site[] = [{ members: [0, 1], titleWidth: 30 }, { members: [2], titleWidth: 30 }];
// Site 0's routers 200 px apart, site 1's router between them, a little below their line.
const start = (): Pt[] => [[0, 0], [200, 0], [100, 10]];
const overlap = (a: number[], b: number[]) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
const overlapping = (c: Pt[]) => { const [a, b] = siteBoxes(c, boxes, sites); return overlap(a, b); };

describe('separateSites', () => {
  it('moves the sites apart, each in one piece, the lower one further down', () => {
    const c = start();
    assert.ok(overlapping(c));
    assert.equal(separateSites(c, boxes, sites), true);
    const [a, b] = siteBoxes(c, boxes, sites);
    assert.ok(!overlap(a, b), `${a} and ${b}`);
    assert.deepEqual([c[1][0] - c[0][0], c[1][1] - c[0][1]], [200, 0], 'site 0 keeps its shape');
    assert.ok(c[2][1] > c[0][1], 'site 1 stays south of site 0');
  });
});

describe('spreadOrSeparate', () => {
  const place = (p: Pt[]) => p.map((q): Pt => [q[0] + 100, q[1] + 100]);
  it('places a drawing no spreading can clear, where separating adds no crossing', () => {
    const c = spreadOrSeparate(start(), boxes, sites, place, () => 0);
    assert.ok(c);
    assert.ok(!overlapping(c));
  });
  it('gives up where separating would add a crossing', () => {
    const s = start();
    assert.equal(spreadOrSeparate(s, boxes, sites, place, (p) => (p === s ? 0 : 1)), null);
  });
});
