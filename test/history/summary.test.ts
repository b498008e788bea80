import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { summarizeDataset, summarizeMap, summarizeTemplate } from '../../history/summary.ts';
import type { DatasetDiff } from '../../history/diff-dataset.ts';
import type { LineChange } from '../../history/diff-template.ts';
import type { JsonChange } from '../../history/json-diff.ts';

const none = () => ({ added: [], removed: [], changed: [] });
const node = (name: string) => ({ name });
const edge = (name: string) => ({ name, source: 'a', destination: 'b' });
const changed = (name: string) => ({ name, fields: [{ field: 'capacity', from: 1, to: 2 }] });
const replace = (path: string): JsonChange => ({ path, op: 'replace', from: 1, to: 2 });

describe('summarizeDataset', () => {
  const cases: [string, DatasetDiff, string][] = [
    ['nothing', { changes: [], nodes: none(), edges: none() }, 'no changes'],
    ['counts, singular and plural, then fields',
      { changes: [replace('name')], nodes: { added: ['A', 'B', 'C'].map(node), removed: [], changed: [] }, edges: { added: [], removed: [], changed: [changed('e')] } },
      '3 nodes added, 1 edge changed, name changed'],
    ['every kind, in order',
      { changes: [], nodes: { added: [node('a')], removed: [node('b'), node('c')], changed: [changed('d')] }, edges: { added: [edge('e')], removed: [edge('f')], changed: [changed('g'), changed('h')] } },
      '1 node added, 2 nodes removed, 1 node changed, 1 edge added, 1 edge removed, 2 edges changed'],
    ['a query field named once however many of its paths changed',
      { changes: [replace('query.filters.0.value.0'), replace('query.filters.1.field')], nodes: none(), edges: none() }, 'query changed'],
  ];
  for (const [what, diff, expected] of cases) it(what, () => assert.equal(summarizeDataset(diff), expected));
});

describe('summarizeMap', () => {
  const cases: [string, JsonChange[], JsonChange[], string][] = [
    ['nothing', [], [], 'no changes'],
    ['one path', [replace('configuration.layers.0.color')], [], 'configuration.layers.0.color changed'],
    ['added and removed verbs, overrides too', [{ path: 'configuration.layers.2', op: 'add', to: {} }],
      [{ path: 'overrides.d1.nodes.SEA', op: 'remove', from: {} }], 'configuration.layers.2 added, overrides.d1.nodes.SEA removed'],
    ['first three paths, then how many more', ['a', 'b', 'c', 'd', 'e'].map(replace), [], 'a changed, b changed, c changed and 2 more'],
  ];
  for (const [what, changes, overrides, expected] of cases) it(what, () => assert.equal(summarizeMap({ changes, overrides }), expected));
});

describe('summarizeTemplate', () => {
  const l = (op: LineChange['op'], n: number): LineChange[] => Array.from({ length: n }, (_, i) => ({ op, line: i + 1, text: '' }));
  const cases: [string, LineChange[], JsonChange[], string][] = [
    ['nothing', [], [], 'no changes'],
    ['an edited line is one changed line', [...l('remove', 1), ...l('add', 1)], [], '1 line changed'],
    ['12 edited lines', [...l('remove', 12), ...l('add', 12)], [], '12 lines changed'],
    ['surplus additions', [...l('remove', 1), ...l('add', 3)], [], '1 line changed, 2 lines added'],
    ['only removals, and the name', l('remove', 2), [replace('name')], '2 lines removed, name changed'],
  ];
  for (const [what, lines, changes, expected] of cases) it(what, () => assert.equal(summarizeTemplate({ changes, lines }), expected));
});
