import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { diffJson, type JsonChange } from '../../history/json-diff.ts';
import { deepEqual } from '../../schema/json-equal.ts';

describe('diffJson', () => {
  const cases: [string, unknown, unknown, JsonChange[]][] = [
    ['equal scalars', 1, 1, []],
    ['equal nested values, keys in another order', { a: [1, { b: 2, c: 3 }] }, { a: [1, { c: 3, b: 2 }] }, []],
    ['a scalar replaced', { x: 1 }, { x: 2 }, [{ path: 'x', op: 'replace', from: 1, to: 2 }]],
    ['a key added (only `to`)', {}, { x: { y: 1 } }, [{ path: 'x', op: 'add', to: { y: 1 } }]],
    ['a key removed (only `from`)', { x: [1] }, {}, [{ path: 'x', op: 'remove', from: [1] }]],
    ['a type change is one replace', { x: [1, 2] }, { x: { 0: 1 } }, [{ path: 'x', op: 'replace', from: [1, 2], to: { 0: 1 } }]],
    ['null to a value is a replace', { x: null }, { x: 0 }, [{ path: 'x', op: 'replace', from: null, to: 0 }]],
    ['an undefined member counts as missing', { x: undefined, y: 1 }, { y: 1 }, []],
    ['array items by index; a trailing item added at its index',
      { l: [{ c: 'red' }, { c: 'blue' }] }, { l: [{ c: 'green' }, { c: 'blue' }, { c: 'black' }] },
      [{ path: 'l.0.c', op: 'replace', from: 'red', to: 'green' }, { path: 'l.2', op: 'add', to: { c: 'black' } }]],
    ['trailing items removed at their index', [1, 2, 3], [1], [{ path: '1', op: 'remove', from: 2 }, { path: '2', op: 'remove', from: 3 }]],
    ['keys in sorted order whatever the input order', { b: 1, a: 1, c: 1 }, { c: 2, a: 2, b: 2 },
      [{ path: 'a', op: 'replace', from: 1, to: 2 }, { path: 'b', op: 'replace', from: 1, to: 2 }, { path: 'c', op: 'replace', from: 1, to: 2 }]],
  ];
  for (const [what, a, b, expected] of cases) {
    it(what, () => assert.deepEqual(diffJson(a, b), expected));
  }

  it('puts paths under the base given', () => {
    assert.deepEqual(diffJson({ layers: [{ color: '#f00' }] }, { layers: [{ color: '#0f0' }] }, 'configuration'),
      [{ path: 'configuration.layers.0.color', op: 'replace', from: '#f00', to: '#0f0' }]);
  });

  it('treats a key named __proto__ as data', () => {
    const a = JSON.parse('{"__proto__": {"x": 1}}');
    const b = JSON.parse('{"__proto__": {"x": 2}}');
    assert.deepEqual(diffJson(a, b), [{ path: '__proto__.x', op: 'replace', from: 1, to: 2 }]);
  });
});

describe('deepEqual', () => {
  const cases: [unknown, unknown, boolean][] = [
    [{ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [[1, 2], [1, 2, 3], false],
    [[1], { 0: 1 }, false],
    [null, {}, false],
    ['1', 1, false],
    [Number.NaN, Number.NaN, true],
  ];
  for (const [a, b, expected] of cases) {
    it(`${inspect(a)} vs ${inspect(b)}: ${expected}`, () => {
      assert.equal(deepEqual(a, b), expected);
      assert.equal(deepEqual(b, a), expected);
    });
  }
});
