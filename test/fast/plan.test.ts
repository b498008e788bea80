// The fast runner's split of the test files between its processes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plan } from './plan.ts';

describe('plan: lanes of near-equal recorded cost', () => {
  const cases: { name: string; files: string[]; costs: Record<string, number>; isolated?: Record<string, string>; lanes?: number;
    together?: Record<string, string[]>; want: string[][][] }[] = [
    {
      name: 'the longest file alone balances the rest',
      files: ['a', 'b', 'c', 'd'],
      costs: { a: 9000, b: 3000, c: 3000, d: 3000 },
      want: [[['a'], []], [['b', 'c', 'd'], []]],
    },
    {
      name: 'files without a recorded cost are spread evenly',
      files: ['a', 'b', 'c', 'd'],
      costs: {},
      want: [[['a', 'c'], []], [['b', 'd'], []]],
    },
    {
      name: 'an isolated file runs alone in its lane, and its process counts',
      files: ['a', 'b', 'x'],
      costs: { a: 2000, b: 2000, x: 2000 },
      isolated: { x: 'why' },
      want: [[[], ['x']], [['a', 'b'], []]],
    },
    {
      name: 'three lanes: each file goes to the lane that costs least so far',
      files: ['a', 'b', 'c', 'd', 'e'],
      costs: { a: 6000, b: 4000, c: 3000, d: 2000, e: 1000 },
      lanes: 3,
      want: [[['a'], []], [['b', 'e'], []], [['c', 'd'], []]],
    },
    {
      name: 'the files of a group share a lane, placed by their summed cost; a member not run is left out',
      files: ['a', 'b', 'c', 'd', 'e'],
      costs: { a: 6000, b: 4000, c: 3000, d: 2000, e: 2000 },
      together: { why: ['c', 'd', 'z'] },
      want: [[['a', 'e'], []], [['b', 'c', 'd'], []]],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const lanes = plan(c.files, c.costs, c.isolated ?? {}, c.lanes, c.together);
      assert.deepEqual(lanes.map((l) => [l.shard, l.alone]), c.want);
      assert.deepEqual(lanes.flatMap((l) => [...l.shard, ...l.alone]).sort(), [...c.files].sort());
    });
  }
});
