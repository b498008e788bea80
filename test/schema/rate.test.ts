// One reader of link rates (schema/rate.ts) under its two rule sets: a
// traffic binding's capacity needs a unit; a sheet's circuit capacity reads a
// bare number as Gbps. The same unit means the same rate in both.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBitRate } from '../../schema/rate.ts';
import { parseRate } from '../../schema/traffic.ts';
import { parseCapacity } from '../../render/capacity.ts';

describe('parseBitRate', () => {
  // text, bit/s with a unit required (a binding's capacity), Gbps in a sheet (a circuit's capacity).
  const cases: [string, number | undefined, number | null][] = [
    ['400', undefined, 400],
    ['400G', undefined, 400],
    ['400 Gbps', 400e9, 400],
    ['400 gbit/s', 400e9, 400],
    ['10GE', undefined, 10],
    ['400GbE', undefined, 400],
    ['100M', undefined, 0.1],
    ['100 Mbps', 100e6, 0.1],
    ['1.6 Tbps', 1.6e12, 1600],
    ['1,6 Tbps', undefined, 1600],
    ['9600 bps', 9600, 0.0000096],
    ['0 Gbps', 0, null],
    ['junk', undefined, null],
    ['', undefined, null],
    ['400 GHz', undefined, null],
    ['-10G', undefined, null],
    ['2x100G', undefined, null],
    ['10 Gbps extra', undefined, null],
  ];
  for (const [text, strict, gbps] of cases) {
    it(`reads ${JSON.stringify(text)}: ${strict ?? 'refused'} with a unit required, ${gbps ?? 'no capacity'} as a circuit's capacity`, () => {
      assert.equal(parseRate(text), strict);
      assert.equal(parseCapacity(text), gbps);
    });
  }

  it('gives one rate for one unit under both rules', () => {
    for (const text of ['10 Gbps', '400 Mbit/s', '1.6 Tbps', '100 kb/s']) {
      assert.equal(parseBitRate(text, { bare: 'unit' }), parseBitRate(text, { bare: 'gbps' }), text);
    }
  });
});
