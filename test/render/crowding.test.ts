// How crowded a picture's nodes are (render/crowding.ts), and the room the
// geographic frame gives crowded content at its natural size (projection.ts
// contentFrame): markers then keep their places, where a frame of the usual
// 1000 px pushed them all into one block.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EdgeRecord } from '../../datasources/types.ts';
import { medianNearest } from '../../render/crowding.ts';
import type { Pt } from '../../render/paths.ts';
import { renderTopologySvg } from '../../render/svg.ts';
import { buildTopology } from '../../render/topology.ts';
import { pictureBoxes } from './picture-geometry.ts';

function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** The median over points of the distance to the nearest point elsewhere, the slow way. */
function slowMedian(points: Pt[]): number {
  const nearest = points.map((p) => Math.min(...points.map((q) => Math.hypot(p[0] - q[0], p[1] - q[1])).filter((d) => d > 0)))
    .filter(Number.isFinite).sort((a, b) => a - b);
  return nearest.length === points.length && nearest.length > 1 ? nearest[nearest.length >> 1] : 0;
}

describe('medianNearest', () => {
  const r = random(7);
  const spread = Array.from({ length: 500 }, (): Pt => [r() * 1000, r() * 300]);
  const sites = Array.from({ length: 300 }, (_, i): Pt => [Math.floor(i / 3) * 17 % 400, Math.floor(i / 60) * 23]);
  const line = Array.from({ length: 50 }, (_, i): Pt => [i * 4, 0]);
  for (const [what, points] of [['points spread at random', spread], ['three routers a site', sites], ['points on a line', line]] as const) {
    it(`agrees with a search of every pair on ${what}`, () => {
      assert.ok(Math.abs(medianNearest(points) - slowMedian(points)) < 1e-9);
    });
  }
  it('is 0 for fewer than two positions', () => {
    assert.equal(medianNearest([]), 0);
    assert.equal(medianNearest([[3, 4]]), 0);
    assert.equal(medianNearest([[3, 4], [3, 4]]), 0);
  });
});

describe('a crowded backbone at its natural size', () => {
  // 1,200 routers spread evenly over a continent: at 1000 px the median one would lie 7 px from the next, markers 10 px wide.
  const records = (): EdgeRecord[] => {
    const r = random(11);
    const at = Array.from({ length: 1200 }, () => [35 + r() * 10, -110 + r() * 40] as const);
    return at.slice(1).map(([lat, lng], i) => ({ id: String(i), name: `c${i}`, source: `r${i}`, destination: `r${i + 1}`, capacity: 100,
      endpoints: [{ name: `r${i}`, latitude: at[i][0], longitude: at[i][1] }, { name: `r${i + 1}`, latitude: lat, longitude: lng }] }));
  };

  it('is drawn larger, so that most markers stay where they are instead of being spread into a block', async () => {
    const t = await buildTopology(records(), { name: 'crowd', layout: 'geographic' });
    const natural = renderTopologySvg(t);
    const p = pictureBoxes(natural);
    assert.ok(p.viewBox[2] > 1500, `natural width ${p.viewBox[2]}`);
    // A marker spread where its true position shows has a line back to it: most stay within a marker's width of it.
    const moves = [...(natural.match(/<g class="anchors"[^>]*>(.*?)<\/g>/)?.[1] ?? '').matchAll(/<line x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)"/g)]
      .map((m) => Math.hypot(Number(m[3]) - Number(m[1]), Number(m[4]) - Number(m[2]))).sort((a, b) => a - b);
    // None for a marker nudged so little that the dot at its place would lie under it (a 10-px circle, a 2-px dot).
    assert.ok(moves.length > 0 && moves[0] + 2 > 5, `a line of ${moves[0]} px to a dot hidden under its marker`);
    const far = moves.filter((d) => d > 10).length;
    assert.ok(far < 0.1 * p.nodes.length, `${far} of ${p.nodes.length} markers drawn more than 10 px from their places (median move ${moves[moves.length >> 1]})`);
  });

  it('is fitted to a size asked for as before: the frame does not grow', async () => {
    const t = await buildTopology(records(), { name: 'crowd', layout: 'geographic' });
    const sized = renderTopologySvg(t, { width: 800 });
    assert.match(sized, /<svg[^>]* width="800"/);
    // Fitted at the usual 1000 px of content (plus margins and labels), not at the crowd's 2,000 and more.
    const [, , w] = pictureBoxes(sized).viewBox;
    assert.ok(w > 900 && w < 1500, `viewBox width ${w}`);
  });
});
