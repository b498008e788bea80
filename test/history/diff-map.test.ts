import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { diffMap } from '../../history/diff-map.ts';

const layer = (name: string, color: string) => ({ name, visible: true, color, datasetId: 'd000001' });

const v1 = {
  mapId: 'm000001', version: 1, lastUpdatedBy: 'alice', lastUpdatedOn: '2026-01-01T00:00:00.000Z', change: 'create',
  name: 'Backbone', public: false,
  configuration: { background: '#ffffff', layers: [layer('Core', '#1f77b4'), layer('Edge', '#d62728')] },
  overrides: { d000001: { nodes: { SEA1: { operation: 'override', state: { name: 'SEA1', coordinate: [47.6, -122.3], meta: {} } } } } },
};

describe('diffMap', () => {
  it('finds nothing between versions that differ only in their stamps', () => {
    const v2 = { ...v1, version: 2, lastUpdatedBy: 'bob', lastUpdatedOn: '2026-02-01T00:00:00.000Z', change: 'update', deleted: false };
    assert.deepEqual(diffMap(v1, v2), { changes: [], overrides: [] });
  });

  it('names a layer colour change by path and a layer added at its index', () => {
    const v2 = {
      ...v1, version: 2,
      configuration: { ...v1.configuration, layers: [layer('Core', '#2ca02c'), layer('Edge', '#d62728'), layer('Tail', '#000000')] },
    };
    assert.deepEqual(diffMap(v1, v2), {
      changes: [
        { path: 'configuration.layers.0.color', op: 'replace', from: '#1f77b4', to: '#2ca02c' },
        { path: 'configuration.layers.2', op: 'add', to: layer('Tail', '#000000') },
      ],
      overrides: [],
    });
  });

  it('lists name and public changes and a removed layer, sorted by field', () => {
    const v2 = { ...v1, public: true, name: 'Backbone 2026', configuration: { ...v1.configuration, layers: [v1.configuration.layers[0]] } };
    assert.deepEqual(diffMap(v1, v2).changes, [
      { path: 'configuration.layers.1', op: 'remove', from: layer('Edge', '#d62728') },
      { path: 'name', op: 'replace', from: 'Backbone', to: 'Backbone 2026' },
      { path: 'public', op: 'replace', from: false, to: true },
    ]);
  });

  it('keeps override changes apart, under overrides.', () => {
    const v2 = {
      ...v1,
      overrides: {
        d000001: {
          nodes: { SEA1: { operation: 'override', state: { name: 'SEA1', coordinate: [47.5, -122.3], meta: {} } } },
          edges: { 'den-chi': { operation: 'delete' } },
        },
      },
    };
    assert.deepEqual(diffMap(v1, v2), {
      changes: [],
      overrides: [
        { path: 'overrides.d000001.edges', op: 'add', to: { 'den-chi': { operation: 'delete' } } },
        { path: 'overrides.d000001.nodes.SEA1.state.coordinate.0', op: 'replace', from: 47.6, to: 47.5 },
      ],
    });
  });

  it('puts any other content field in changes, and treats a missing field as added', () => {
    const { overrides: _o, ...noOverrides } = v1;
    const v2 = { ...v1, description: 'core links' };
    assert.deepEqual(diffMap(noOverrides, v2), {
      changes: [{ path: 'description', op: 'add', to: 'core links' }],
      overrides: [{ path: 'overrides', op: 'add', to: v1.overrides }],
    });
  });
});
