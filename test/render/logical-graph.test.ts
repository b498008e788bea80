// The ELK graph's helpers (render/logical-graph.ts): the order within BFS
// levels that big logical layouts hand to ELK instead of its layer sweeps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { orderWithinLevels } from '../../render/logical-graph.ts';

/** Crossings between consecutive levels for the given positions (edges spanning one level). */
function crossingsAt(levels: number[], links: [number, number][], pos: number[]): number {
  const down = links.map(([a, b]) => (levels[a] < levels[b] ? [a, b] : [b, a])).filter(([a, b]) => levels[b] - levels[a] === 1);
  let n = 0;
  for (let i = 0; i < down.length; i++) {
    for (let j = i + 1; j < down.length; j++) {
      const [a, b] = down[i], [c, d] = down[j];
      if (levels[a] === levels[c] && (pos[a] - pos[c]) * (pos[b] - pos[d]) < 0) n++;
    }
  }
  return n;
}

describe('orderWithinLevels', () => {
  const cases: Array<[string, number[], [number, number][]]> = [
    ['two crossed edges', [0, 0, 1, 1], [[0, 3], [1, 2]]],
    ['a ladder given in reverse below', [0, 0, 0, 0, 1, 1, 1, 1], [[0, 7], [1, 6], [2, 5], [3, 4]]],
    ['a tree over three levels, children listed out of order', [0, 1, 1, 2, 2, 2, 2], [[0, 1], [0, 2], [1, 6], [2, 3], [1, 5], [2, 4]]],
  ];
  for (const [what, levels, links] of cases) {
    it(`${what}: drawn without a crossing`, () => {
      const start = levels.map(() => 0).map((_, i) => i); // the data's order
      assert.ok(crossingsAt(levels, links, start) > 0, 'the data order crosses');
      const pos = orderWithinLevels(levels, links);
      assert.equal(crossingsAt(levels, links, pos), 0);
      for (const p of pos) assert.ok(p >= 0 && p <= 1);
    });
  }

  it('is deterministic and keeps every node of a level at its own position', () => {
    const levels = [0, 1, 1, 1, 2, 2];
    const links: [number, number][] = [[0, 1], [0, 2], [0, 3], [1, 5], [3, 4], [2, 4]];
    const a = orderWithinLevels(levels, links), b = orderWithinLevels(levels, links);
    assert.deepEqual(a, b);
    assert.equal(new Set([a[1], a[2], a[3]]).size, 3);
  });
});
