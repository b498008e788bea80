// render/hypot.ts gives Math.hypot's own answer, bit for bit: the layouts
// that use it must draw exactly what they drew with the builtin.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hypot } from '../../render/hypot.ts';

describe('hypot', () => {
  it('agrees with Math.hypot on edge cases', () => {
    const cases: [number, number][] = [[0, 0], [-0, 0], [3, 4], [-3, -4], [1, 1], [5e-324, 0], [1e-320, 3e-320], [1e300, 1e300], [1e308, 1e308],
      [Number.NaN, 1], [Number.POSITIVE_INFINITY, Number.NaN], [Number.NEGATIVE_INFINITY, 2], [2, -0]];
    for (const [x, y] of cases) assert.ok(Object.is(hypot(x, y), Math.hypot(x, y)), `hypot(${x}, ${y}) = ${hypot(x, y)}, Math.hypot ${Math.hypot(x, y)}`);
  });

  it('agrees with Math.hypot on 200,000 seeded pairs of every magnitude', () => {
    let s = 7;
    const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
    let differ = 0;
    for (let i = 0; i < 200_000; i++) {
      const scale = 10 ** (Math.floor(rnd() * 24) - 12);
      const x = (rnd() - 0.5) * scale, y = i % 5 === 0 ? -x * (1 + rnd()) : (rnd() - 0.5) * scale * (i % 3 === 0 ? 1e-7 : 1);
      if (!Object.is(hypot(x, y), Math.hypot(x, y))) differ++;
      // Never below either: the schematic passes over pairs further apart than its room along one axis.
      assert.ok(hypot(x, y) >= Math.max(Math.abs(x), Math.abs(y)), `hypot(${x}, ${y})`);
    }
    assert.equal(differ, 0);
  });
});
