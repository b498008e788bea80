import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyOverrides } from '../../output/overrides.ts';
import { buildTopology } from '../../render/topology.ts';
import { backbone } from '../render/fixtures.ts';

const base = () => buildTopology(backbone(), { name: 'd', layout: 'geographic' });
const node = (name: string, lat = 1) => ({ name, coordinate: [lat, 2] as [number, number], meta: { svg: '<circle r="3" onclick="x()"/>' } });

describe('applyOverrides', () => {
  it('applies add, override and delete by name, as Terranova does', async () => {
    const t = await base();
    const out = applyOverrides(t, {
      nodes: {
        NEW: { operation: 'add', state: node('NEW') },
        SEA1: { operation: 'add', state: node('SEA1', 5) }, // exists: add does nothing
        DEN1: { operation: 'override', state: node('DEN1', 7) },
        GHOST: { operation: 'override', state: node('GHOST', 9) }, // absent: override adds
        CHI1: { operation: 'delete' },
        NOPE: { operation: 'delete' }, // absent: nothing
      },
      edges: { 'den-chi': { operation: 'delete' }, 'sea2-den': { operation: 'override', state: { coordinates: [[0, 0], [1, 1]] as [number, number][], meta: {} } } },
    });
    assert.deepEqual(out.nodes.map((n) => n.name), ['SEA1', 'DEN1', 'SEA2', 'NEW', 'GHOST']);
    assert.deepEqual(out.nodes[0].coordinate, [47.6, -122.3]);
    assert.deepEqual(out.nodes[1].coordinate, [7, 2]);
    assert.deepEqual(out.edges.map((e) => e.name), ['sea1-den-a', 'sea1-den-b', 'sea2-den']);
    assert.deepEqual(out.edges[2].coordinates, [[0, 0], [1, 1]], 'state takes the rule name when it has none');
    assert.equal(t.nodes.length, 4, 'input untouched');
  });

  it('leaves a rule with render: false inactive; a missing render is active', async () => {
    const out = applyOverrides(await base(), { nodes: { CHI1: { operation: 'delete', render: false }, SEA2: { operation: 'delete' } }, edges: {} });
    assert.deepEqual(out.nodes.map((n) => n.name), ['SEA1', 'DEN1', 'CHI1']);
  });

  it('sanitizes markup of added states and ignores a state without a usable coordinate', async () => {
    const out = applyOverrides(await base(), { nodes: { X: { operation: 'add', state: node('X') }, Y: { operation: 'add', state: { name: 'Y', meta: {} } } }, edges: {} });
    const x = out.nodes.find((n) => n.name === 'X')!;
    assert.equal(x.meta.svg, '<circle r="3"/>');
    assert.equal(out.nodes.find((n) => n.name === 'Y'), undefined);
  });

  it('returns the topology unchanged without overrides', async () => {
    const t = await base();
    assert.equal(applyOverrides(t, undefined), t);
  });
});
