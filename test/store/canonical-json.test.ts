// The stored form (store/canonical-json.ts): keys sorted at every level,
// two-space indentation down to level 6 and compact below it, compact whole
// when the pretty form would be over twice as long, a newline at the end.
// The bytes are what blob keys hash, so they must never change: each case is
// checked against the form written out by hand, and a corpus of nested
// values against a plain writer of the same rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../store/canonical-json.ts';

/** The rules, written plainly: `value` as sorted by the store, indented to level 6. */
function byTheRules(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object' || depth >= 6) return JSON.stringify(value) ?? 'null';
  const [inner, outer] = ['  '.repeat(depth + 1), '  '.repeat(depth)];
  if (Array.isArray(value)) return value.length ? `[\n${value.map((v) => inner + byTheRules(v, depth + 1)).join(',\n')}\n${outer}]` : '[]';
  const keys = Object.keys(value);
  return keys.length ? `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${byTheRules((value as Record<string, unknown>)[k], depth + 1)}`).join(',\n')}\n${outer}}` : '{}';
}

/** A value nested `depth` levels: alternately an object and an array, with scalars beside. */
const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf
  : depth % 2 ? { b: nested(depth - 1, leaf), a: 'é"\u2028', 10: 1, 2: null } : [nested(depth - 1, leaf), 1.5, true]);

describe('canonicalJson', () => {
  const cases: Array<[string, unknown, string]> = [
    ['a scalar', 'x', '"x"\n'],
    ['keys sorted, undefined dropped, integer-like keys first', { b: 1, a: [undefined, 2], 10: 'ten', 2: 'two', u: undefined },
      '{\n  "2": "two",\n  "10": "ten",\n  "a": [\n    null,\n    2\n  ],\n  "b": 1\n}\n'],
    ['empty containers', { e: [], o: {} }, '{\n  "e": [],\n  "o": {}\n}\n'],
    ['a Date as JSON writes it', { d: new Date(0) }, '{\n  "d": "1970-01-01T00:00:00.000Z"\n}\n'],
    ['a symbol field as null', { s: Symbol('s') }, '{\n  "s": null\n}\n'],
    ['compact below level 6', [[[[[[[1, { b: 2, a: 1 }]]]]]]],
      '[\n  [\n    [\n      [\n        [\n          [\n            [1,{"a":1,"b":2}]\n          ]\n        ]\n      ]\n    ]\n  ]\n]\n'],
    ['an empty container at level 6', { p: 'x'.repeat(100), q: [[[[[[]]]]]] },
      `{\n  "p": "${'x'.repeat(100)}",\n  "q": [\n    [\n      [\n        [\n          [\n            []\n          ]\n        ]\n      ]\n    ]\n  ]\n}\n`],
    ['compact whole when pretty would be over twice as long', [[[[[[1], [2]]]]], [[[[[3]]]]]],
      '[[[[[[1],[2]]]]],[[[[[3]]]]]]\n'],
  ];
  for (const [what, value, expected] of cases) {
    it(what, () => assert.equal(canonicalJson(value), expected));
  }

  it('writes values nested 0 to 9 levels deep by the rules', () => {
    for (let depth = 0; depth <= 9; depth++) {
      for (const leaf of [1, [], {}, [1], { z: 1, y: [2] }]) {
        const value = Array.from({ length: 3 }, () => nested(depth, leaf));
        const sorted = JSON.parse(JSON.stringify(value, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v)
          ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v)));
        const compact = JSON.stringify(sorted);
        const pretty = byTheRules(sorted);
        assert.equal(canonicalJson(value), `${pretty.length <= 2 * compact.length + 64 ? pretty : compact}\n`, `depth ${depth}, leaf ${JSON.stringify(leaf)}`);
      }
    }
  });
});
