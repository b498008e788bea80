// render/layered-prefetch.ts asks for layered drawings ahead only on graphs
// with ten or more independent cycles: a ring, a tree or a sparse grid gets
// none asked for, a denser grid does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tangled } from '../../render/layered-prefetch.ts';

type Ends = [number, number][];
const ring = (n: number): Ends => Array.from({ length: n }, (_, i) => [i, (i + 1) % n]);
const star = (n: number): Ends => Array.from({ length: n - 1 }, (_, i) => [0, i + 1]);
/** A side x side grid: (side - 1)^2 independent cycles. */
const grid = (side: number): Ends => {
  const ends: Ends = [];
  for (let i = 0; i < side * side; i++) {
    if (i % side < side - 1) ends.push([i, i + 1]);
    if (i + side < side * side) ends.push([i, i + side]);
  }
  return ends;
};

describe('tangled', () => {
  for (const [name, n, ends, want] of [
    ['a ring of 40 (1 cycle)', 40, ring(40), false],
    ['a star of 30 (none)', 30, star(30), false],
    ['a 4 x 4 grid (9 cycles)', 16, grid(4), false],
    ['a 5 x 5 grid (16 cycles)', 25, grid(5), true],
    ['two rings of 6 joined by ten parallel circuits', 12, [...ring(6), ...ring(6).map(([a, b]): [number, number] => [a + 6, b + 6]), ...Array.from({ length: 10 }, (): [number, number] => [0, 6])], true],
  ] as const) {
    it(`${name}: ${want ? 'tangled' : 'not tangled'}`, () => assert.equal(tangled(n, ends), want));
  }
});
