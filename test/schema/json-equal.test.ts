// schema/json-equal.ts: structural equality the diffs and the change picture
// share. Key order does not count, an undefined member equals a missing one,
// array order counts, and types never coerce.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deepEqual } from '../../schema/json-equal.ts';

describe('deepEqual', () => {
  const cases: [string, unknown, unknown, boolean][] = [
    ['equal scalars', 'a', 'a', true],
    ['a number and its text', 1, '1', false],
    ['null and an empty object', null, {}, false],
    ['null and undefined', null, undefined, false],
    ['NaN and NaN (built in memory)', Number.NaN, Number.NaN, true],
    ['objects in another key order', { a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    ['an undefined member and a missing one', { a: 1, b: undefined }, { a: 1 }, true],
    ['a missing member and a null one', { a: 1 }, { a: 1, b: null }, false],
    ['one more member', { a: 1 }, { a: 1, b: 2 }, false],
    ['a member of the same count but another name', { a: 1 }, { b: 1 }, false],
    ['arrays in another order', [1, 2], [2, 1], false],
    ['arrays of other lengths', [1], [1, 1], false],
    ['an array and an object with its indices', [1], { 0: 1 }, false],
    ['a deep difference', { a: { b: { c: [1, 2, 3] } } }, { a: { b: { c: [1, 2, 4] } } }, false],
  ];
  for (const [name, a, b, want] of cases) {
    it(`${want ? 'equal' : 'unequal'}: ${name}`, () => {
      assert.equal(deepEqual(a, b), want);
      assert.equal(deepEqual(b, a), want, 'symmetric');
    });
  }
});
