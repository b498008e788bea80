import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CircuitEnd } from '../../datasources/types.ts';
import { diffDataset, type DatasetSide } from '../../history/diff-dataset.ts';
import { ep, rec } from '../render/fixtures.ts';
import { datasetVersions } from '../../bench/diff.ts';

const query = (extra: Record<string, unknown> = {}) => ({ endpoint: 'spreadsheet?sheet_id=a&sheet_name=b', filters: [], ...extra });
const side = (records: DatasetSide['records'], q: unknown = query(), name = 'Backbone'): DatasetSide => ({ name, query: q, records });

const sea = () => ep('SEA', 47.6, -122.3, { site: 'SEA' });
const den = (lat = 39.7) => ep('DEN', lat, -105, { site: 'DEN' });
const chi = () => ep('CHI', 41.9, -87.6, { site: 'CHI' });
const nyc = () => ep('NYC', 40.7, -74, { site: 'NYC' });
const atl = () => ep('ATL', 33.7, -84.4, { site: 'ATL' });

const before = () => [
  rec('1', 'sea-den', sea(), den(), { capacity: 100 }),
  rec('2', 'den-chi', den(), chi(), { capacity: 100 }),
  rec('3', 'chi-nyc', chi(), nyc(), { capacity: 100 }),
];

describe('diffDataset', () => {
  it('finds nothing between equal results', () => {
    assert.deepEqual(diffDataset(side(before()), side(before())), {
      changes: [], nodes: { added: [], removed: [], changed: [] }, edges: { added: [], removed: [], changed: [] },
    });
  });

  it('lists nodes and edges added, removed and changed, each changed field with old and new value, sorted by name', () => {
    const after = [
      rec('1', 'sea-den', sea(), den(39.8), { capacity: 400 }),
      rec('2', 'den-chi', den(39.8), chi(), { capacity: 100, note: 'leased' }),
      rec('4', 'chi-atl', chi(), atl(), { capacity: 10 }),
    ];
    const d = diffDataset(side(before()), side(after));
    assert.deepEqual(d.nodes, {
      added: [{ name: 'ATL', latitude: 33.7, longitude: -84.4, site: 'ATL' }],
      removed: [{ name: 'NYC', latitude: 40.7, longitude: -74, site: 'NYC' }],
      changed: [{ name: 'DEN', fields: [{ field: 'latitude', from: 39.7, to: 39.8 }] }],
    });
    assert.deepEqual(d.edges, {
      added: [{ id: '4', name: 'chi-atl', source: 'CHI', destination: 'ATL', capacity: 10 }],
      removed: [{ id: '3', name: 'chi-nyc', source: 'CHI', destination: 'NYC', capacity: 100 }],
      changed: [
        { name: 'den-chi', fields: [{ field: 'note', from: null, to: 'leased' }] },
        { name: 'sea-den', fields: [{ field: 'capacity', from: 100, to: 400 }] },
      ],
    });
    assert.deepEqual(d.changes, []);
  });

  it('compares source, destination and id, and ignores endpoints (the nodes cover them)', () => {
    const after = before();
    after[2] = { ...rec('33', 'chi-nyc', chi(), nyc(), { capacity: 100 }), destination: 'NYC-2' };
    after[0] = { ...after[0], endpoints: [sea(), den()] };
    assert.deepEqual(diffDataset(side(before()), side(after)).edges.changed, [
      { name: 'chi-nyc', fields: [{ field: 'destination', from: 'NYC', to: 'NYC-2' }, { field: 'id', from: '3', to: '33' }] },
    ]);
  });

  it('reports name and query changes by path', () => {
    const d = diffDataset(side([], query({ filters: [{ field: 'region', operator: 'equal', value: ['west'] }] })),
      side([], query({ filters: [{ field: 'region', operator: 'equal', value: ['east'] }] }), 'Backbone 2'));
    assert.deepEqual(d.changes, [
      { path: 'name', op: 'replace', from: 'Backbone', to: 'Backbone 2' },
      { path: 'query.filters.0.value.0', op: 'replace', from: 'west', to: 'east' },
    ]);
  });

  it('merges endpoints by node_deduplication_field: first occurrence wins, later ones fill gaps; no field falls back to the name', () => {
    const q = query({ node_deduplication_field: 'site' });
    const r1 = [
      rec('1', 'a', ep('SEA1', 47.6, -122.3, { site: 'SEA', vendor: '' }), ep('POP', 40, -100)),
      rec('2', 'b', ep('SEA2', 47.0, -122.0, { site: 'SEA', vendor: 'x', rack: 'r1' }), ep('POP', 40, -100)),
    ];
    // Version 2: the first SEA router moved; the second still only fills what the first lacks.
    const r2 = [
      rec('1', 'a', ep('SEA1', 47.5, -122.3, { site: 'SEA', vendor: '' }), ep('POP', 40, -100)),
      rec('2', 'b', ep('SEA2', 47.0, -122.0, { site: 'SEA', vendor: 'y', rack: 'r1' }), ep('POP', 40, -100)),
    ];
    const d = diffDataset(side(r1, q), side(r2, q));
    assert.deepEqual(d.nodes, {
      added: [], removed: [],
      changed: [{ name: 'SEA', fields: [{ field: 'latitude', from: 47.6, to: 47.5 }, { field: 'vendor', from: 'x', to: 'y' }] }],
    });
    // POP has no site: it is its own node, by name.
    const one = diffDataset(side([], q), side(r1, q));
    assert.deepEqual(one.nodes.added.map((n) => n.name), ['POP', 'SEA']);
    assert.deepEqual(one.nodes.added[1], { name: 'SEA', latitude: 47.6, longitude: -122.3, site: 'SEA', vendor: 'x', rack: 'r1' });
  });

  it('uses each version\'s own deduplication field: changing it re-keys the nodes', () => {
    const region = (e: CircuitEnd) => ({ ...e, region: ['SEA', 'DEN'].includes(e.name) ? 'west' : 'east' });
    const withRegion = () => before().map((r) => ({ ...r, endpoints: [region(r.endpoints[0]), region(r.endpoints[1])] as [CircuitEnd, CircuitEnd] }));
    const d = diffDataset(side(withRegion()), side(withRegion(), query({ node_deduplication_field: 'region' })));
    assert.deepEqual(d.nodes.removed.map((n) => n.name), ['CHI', 'DEN', 'NYC', 'SEA']);
    assert.deepEqual(d.nodes.added.map((n) => n.name), ['east', 'west']);
    // First occurrence wins: west is SEA's endpoint (record 1 lists SEA first).
    assert.deepEqual(d.nodes.added[1], { name: 'west', latitude: 47.6, longitude: -122.3, site: 'SEA', region: 'west' });
    assert.deepEqual(d.edges, { added: [], removed: [], changed: [] });
    assert.deepEqual(d.changes, [{ path: 'query.node_deduplication_field', op: 'add', to: 'region' }]);
  });

  it('keys edges that share a name by name and id', () => {
    const r1 = [rec('7', 'dup', sea(), den(), { capacity: 10 }), rec('8', 'dup', den(), chi(), { capacity: 10 })];
    const r2 = [rec('7', 'dup', sea(), den(), { capacity: 10 }), rec('8', 'dup', den(), chi(), { capacity: 20 }), rec('9', 'dup', chi(), sea())];
    assert.deepEqual(diffDataset(side(r1), side(r2)).edges, {
      added: [{ id: '9', name: 'dup', source: 'CHI', destination: 'SEA' }],
      removed: [],
      changed: [{ name: 'dup', id: '8', fields: [{ field: 'capacity', from: 10, to: 20 }] }],
    });
  });

  it('treats null records (never run) as no nodes and no edges', () => {
    const d = diffDataset(side(null), side(before()));
    assert.equal(d.edges.added.length, 3);
    assert.deepEqual(d.nodes.added.map((n) => n.name), ['CHI', 'DEN', 'NYC', 'SEA']);
  });

  // Its speed is a benchmark's business (npm run bench -- diff); here, that the large case counts right.
  it('counts a 2,000-node / 5,000-edge change right', () => {
    const { before: a, after: b, expected } = datasetVersions();
    const d = diffDataset(side(a), side(b));
    assert.deepEqual({
      edgesAdded: d.edges.added.length, edgesRemoved: d.edges.removed.length, edgesChanged: d.edges.changed.length,
      nodesAdded: d.nodes.added.length, nodesRemoved: d.nodes.removed.length, nodesChanged: d.nodes.changed.length,
    }, expected);
  });
});
