// Deduplication and grouping read only a record's own fields: names such as
// __proto__ or toString never reach Object.prototype.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EdgeRecord } from '../../datasources/types.ts';
import { buildTopology } from '../../render/topology.ts';

const rec = (id: string, a: string, b: string): EdgeRecord => ({
  id, name: `${a}-${b}`, source: a, destination: b,
  endpoints: [{ name: a, latitude: 10, longitude: 10 }, { name: b, latitude: 20, longitude: 20 }],
});
const records = [rec('1', 'A', 'B'), rec('2', 'B', 'C'), rec('3', 'C', 'D')];

describe('topology: inherited property names as fields', () => {
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    it(`node_deduplication_field ${name} falls back to endpoint names`, async () => {
      const t = await buildTopology(records, { name: 'x', layout: 'geographic', query: { node_deduplication_field: name } });
      assert.deepEqual(t.nodes.map((n) => n.name).sort(), ['A', 'B', 'C', 'D']);
    });
    it(`node_group_criteria [${name}] makes no groups`, async () => {
      const t = await buildTopology(records, { name: 'x', layout: 'geographic', query: { node_group_criteria: [name] } });
      assert.equal(t.nodes.filter((n) => n.children?.length).length, 0);
    });
  }
});
