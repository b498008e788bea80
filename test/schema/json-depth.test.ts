// schema/json-depth.ts: how deep client JSON may nest, and which top-level
// key a too-deep value is under; iterative, so a hostile depth is answered,
// not a stack overflow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_JSON_DEPTH, tooDeepUnder } from '../../schema/json-depth.ts';

/** An array nested `levels` deep (the outermost counts as one). */
const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

describe('tooDeepUnder', () => {
  const cases: [string, unknown, string | undefined][] = [
    ['a scalar', 'text', undefined],
    ['null', null, undefined],
    ['exactly the limit', nested(MAX_JSON_DEPTH), undefined],
    ['one level more, in a top-level array', nested(MAX_JSON_DEPTH + 1), ''],
    ['one level more under a key', { name: 'ok', configuration: nested(MAX_JSON_DEPTH) }, 'configuration'],
    ['the limit under a key', { configuration: nested(MAX_JSON_DEPTH - 1) }, undefined],
    ['100,000 levels', { deep: nested(100_000) }, 'deep'],
  ];
  for (const [name, value, want] of cases) it(name, () => assert.equal(tooDeepUnder(value), want));
});
