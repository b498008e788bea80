// Numbers in pictures (render/svg-canvas.ts fmt): two decimals, written as
// String(Math.round(n * 100) / 100) writes them, so pictures keep their bytes
// however fmt builds the text. Checked on the awkward values (halves of a
// hundredth, negative zero, huge and non-finite numbers) and a million
// seeded ones across picture magnitudes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fmt } from '../../render/svg-canvas.ts';

const reference = (n: number) => String(Math.round(n * 100) / 100);

describe('fmt', () => {
  const cases: [string, number][] = [
    ['zero', 0], ['negative zero', -0], ['under half a hundredth', 0.004], ['minus under half a hundredth', -0.004],
    ['half a hundredth', 0.005], ['minus half a hundredth', -0.005], ['1.005 (a double below it)', 1.005], ['-1.005', -1.005],
    ['a whole number', 640], ['one decimal', -12.5], ['two decimals', 1240.94], ['one hundredth', -0.01], ['0.1 + 0.2', 0.1 + 0.2],
    ['just under 3e11', 299_999_999_999.994], ['3e11', 3e11], ['1e20', 1e20], ['-1e21', -1e21], ['1e300', 1e300],
    ['NaN', Number.NaN], ['Infinity', Infinity], ['-Infinity', -Infinity],
  ];
  for (const [what, n] of cases) it(`writes ${what} as String(Math.round(n * 100) / 100) does`, () => assert.equal(fmt(n), reference(n)));

  it('writes a million seeded numbers of every picture magnitude alike', () => {
    let s = 7;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const wrong: number[] = [];
    for (let i = 0; i < 1_000_000; i++) {
      const n = i % 2 ? (rnd() - 0.5) * 10 ** (rnd() * 14 - 3) : Math.round((rnd() - 0.5) * 1e6) / 200;
      if (fmt(n) !== reference(n)) wrong.push(n);
    }
    assert.deepEqual(wrong.slice(0, 5), []);
  });
});
