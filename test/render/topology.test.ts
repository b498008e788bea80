import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_LOGICAL_EDGES, MAX_LOGICAL_NODES } from '../../render/logical-layout.ts';
import { buildTopology } from '../../render/topology.ts';
import { backbone, ep, rec } from './fixtures.ts';

const names = (xs: { name: string }[]) => xs.map((x) => x.name);

describe('buildTopology: shape and deduplication', () => {
  it('makes one node per distinct endpoint name, in first-seen order, in the Terranova shape', async () => {
    const t = await buildTopology(backbone(), { name: 'Backbone', layout: 'geographic' });
    assert.deepEqual(names(t.nodes), ['SEA1', 'DEN1', 'SEA2', 'CHI1']);
    assert.equal(t.name, 'Backbone');
    assert.equal(t.layer, 'tail');
    assert.deepEqual(t.pathLayout, { type: 'curveCardinal', tension: 0.6 });
    const den = t.nodes[1];
    assert.deepEqual(den.coordinate, [39.7, -105]);
    assert.equal(den.meta.site, 'DEN');
    assert.equal(den.meta.endpoint_name, 'DEN1');
    assert.match(String(den.meta.svg), /^<g data-width="10"/);
    assert.equal(den.meta.computed_width, 10);
    assert.equal(den.children, undefined);
    const e = t.edges[3];
    assert.deepEqual(e.coordinates, [[39.7, -105], [41.9, -87.6]]);
    assert.deepEqual(e.meta.endpoint_identifiers, { names: ['DEN1', 'CHI1'], edge_id: ['4'], edge_name: ['den-chi'] });
    assert.equal(e.meta.capacity, 400);
    assert.equal(t.edges[0].meta.capacity, 100, 'numeric strings become numbers');
  });

  it('merges endpoints by node_deduplication_field, falling back to the name when the field is missing', async () => {
    const records = [
      rec('1', 'a', ep('SEA1', 47, -122, { site: 'SEA' }), ep('DEN1', 39, -105, { site: 'DEN' })),
      rec('2', 'b', ep('SEA2', 47, -122, { site: 'SEA' }), ep('X9', 10, 10)),
    ];
    const t = await buildTopology(records, { name: 'd', layout: 'geographic', query: { node_deduplication_field: 'site' } });
    assert.deepEqual(names(t.nodes), ['SEA', 'DEN', 'X9']);
    assert.deepEqual(t.edges.map((e) => e.meta.endpoint_identifiers.names), [['SEA', 'DEN'], ['SEA', 'X9']]);
    assert.equal(t.nodes[0].meta.name, 'SEA1', 'first occurrence supplies the fields');
  });

  it('skips records without two endpoint objects instead of failing', async () => {
    const bad = [{ id: '1', name: 'x', source: 'a', destination: 'b', endpoints: [null, 3] }, { id: '2' }] as never[];
    const t = await buildTopology([...bad, ...backbone().slice(3)], { name: 'd', layout: 'geographic' });
    assert.deepEqual(names(t.nodes), ['DEN1', 'CHI1']);
    assert.equal(t.edges.length, 1);
  });

  it('estimates a missing coordinate from located neighbours and marks it', async () => {
    const t = await buildTopology([rec('1', 'a', ep('A', 10, 20), ep('B')), rec('2', 'b', ep('B'), ep('C', 30, 40))], { name: 'd', layout: 'geographic' });
    const b = t.nodes.find((n) => n.name === 'B')!;
    assert.deepEqual(b.coordinate, [20, 30]);
    assert.equal(b.meta.coordinate_estimated, true);
    assert.equal(t.nodes.find((n) => n.name === 'A')!.meta.coordinate_estimated, undefined);
  });
});

describe('buildTopology: a node\'s fields from several rows', () => {
  it('fills a field and a group value left empty on the first row from a later row, and keeps a filled one', async () => {
    const records = [
      rec('1', 'a', ep('SEA1', 47.6, -122.3, { site: '', vendor: 'x', rack: null }), ep('DEN1', 39.7, -105, { site: 'DEN' })),
      rec('2', 'b', ep('SEA1', 47.6, -122.3, { site: 'SEA', vendor: 'y', rack: 'R2' }), ep('DEN1', 39.7, -105, { site: '  ' })),
    ];
    const t = await buildTopology(records, { name: 'd', layout: 'geographic', query: { node_group_criteria: ['site'] } });
    const sea1 = t.nodes.find((n) => n.name === 'SEA1')!;
    assert.deepEqual([sea1.meta.site, sea1.meta.vendor, sea1.meta.rack], ['SEA', 'x', 'R2']);
    assert.equal(t.nodes.find((n) => n.name === 'DEN1')!.meta.site, 'DEN');
    assert.deepEqual(t.nodes.filter((n) => n.children).map((g) => [g.name, g.children]), [['SEA', ['SEA1']], ['DEN', ['DEN1']]]);
  });
});

describe('buildTopology: parallel circuits', () => {
  it('keeps circuits between the same two nodes as distinct edges with unique names and an offset midpoint', async () => {
    const records = [...backbone(), rec('5', 'sea1-den-a', ep('SEA1', 47.6, -122.3), ep('DEN1', 39.7, -105))];
    const t = await buildTopology(records, { name: 'd', layout: 'geographic' });
    assert.deepEqual(names(t.edges), ['sea1-den-a', 'sea1-den-b', 'sea2-den', 'den-chi', 'sea1-den-a (2)']);
    const par = [t.edges[0], t.edges[1], t.edges[4]];
    assert.deepEqual(par.map((e) => [e.meta.parallel_index, e.meta.parallel_count]), [[0, 3], [1, 3], [2, 3]]);
    assert.equal(t.edges[2].meta.parallel_count, undefined);
    // three points each; the middle circuit runs through the straight midpoint, the others on opposite sides
    for (const e of par) assert.equal(e.coordinates.length, 3);
    const mid = [(47.6 + 39.7) / 2, (-122.3 - 105) / 2];
    assert.ok(Math.abs(par[1].coordinates[1][0] - mid[0]) < 1e-6 && Math.abs(par[1].coordinates[1][1] - mid[1]) < 1e-6);
    const side = (p: number[]) => Math.sign((p[0] - mid[0]) * 1 + (p[1] - mid[1]) * 0.3);
    assert.notEqual(side(par[0].coordinates[1]), side(par[2].coordinates[1]));
    assert.deepEqual(par[1].coordinates[0], [39.7, -105], 'edge keeps its own direction');
  });

  for (const [layout, count] of [['geographic', 32], ['logical', 300]] as const) {
    it(`keeps ${count} parallel circuits (${layout}) near their straight line, every latitude within ±85`, async () => {
      const records = Array.from({ length: count }, (_, i) =>
        rec(`${i}`, 'nyc-lon', ep('NYC', 40.71, -74.0), ep('LON', 51.5, -0.12)));
      const t = await buildTopology(records, { name: 'd', layout });
      const [a, b] = ['NYC', 'LON'].map((n) => t.nodes.find((x) => x.name === n)!.coordinate);
      const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
      for (const e of t.edges) {
        for (const [lat] of e.coordinates) assert.ok(Math.abs(lat) <= 85, `latitude ${lat}`);
        const mid = e.coordinates[Math.floor(e.coordinates.length / 2)];
        // distance of the bend from the segment's midpoint, in plain degrees (the arc's sideways offset, stretched by longitude)
        assert.ok(Math.hypot(mid[0] - (a[0] + b[0]) / 2, mid[1] - (a[1] + b[1]) / 2) <= 0.7 * len, `${e.name}: ${mid}`);
      }
    });
  }

  it('numbers a repeated name past any name a row already has, so every edge name is unique', async () => {
    const records = [rec('1', 'x', ep('A', 1, 1), ep('B', 2, 2)), rec('2', 'x', ep('A', 1, 1), ep('B', 2, 2)),
      rec('3', 'x (2)', ep('C', 3, 3), ep('D', 4, 4)), rec('4', 'x', ep('C', 3, 3), ep('D', 4, 4))];
    const t = await buildTopology(records, { name: 'd', layout: 'geographic' });
    assert.deepEqual(names(t.edges), ['x', 'x (2)', 'x (2) (2)', 'x (3)']);
  });
});

describe('buildTopology: grouping', () => {
  it('builds nested group nodes, outermost criterion first, with children and common meta', async () => {
    const t = await buildTopology(backbone(), { name: 'd', layout: 'geographic', query: { node_group_criteria: ['region', 'site'] } });
    const groups = t.nodes.filter((n) => n.children);
    assert.deepEqual(groups.map((g) => [g.name, g.children]), [
      ['west', ['SEA', 'DEN']], ['east', ['CHI']],
      ['SEA', ['SEA1', 'SEA2']], ['DEN', ['DEN1']], ['CHI', ['CHI1']],
    ]);
    const sea = groups[2];
    assert.equal(sea.meta.group, 'site');
    assert.equal(sea.meta.vendor, 'x', 'a field every member shares is kept');
    assert.equal(groups[0].meta.vendor, undefined, 'a field members disagree on is dropped');
    assert.deepEqual(sea.coordinate, [47.6, -122.3]);
    assert.deepEqual(groups[0].coordinate, [(47.6 * 2 + 39.7) / 3, (-122.3 * 2 - 105) / 3].map((x) => Math.round(x * 1e6) / 1e6));
  });

  it('disambiguates a group whose value equals a node name', async () => {
    const t = await buildTopology([rec('1', 'a', ep('X', 1, 1, { site: 'X' }), ep('Y', 2, 2, { site: 'S' }))], { name: 'd', layout: 'geographic', query: { node_group_criteria: ['site'] } });
    assert.deepEqual(t.nodes.filter((n) => n.children).map((g) => g.name), ['X (site)', 'S']);
  });

  it('disambiguates further when "<value> (<criterion>)" is a node name too', async () => {
    const t = await buildTopology([rec('1', 'a', ep('EU', 1, 1, { region: 'EU' }), ep('EU (region)', 2, 2, { region: 'EU' }))],
      { name: 'd', layout: 'geographic', query: { node_group_criteria: ['region'] } });
    assert.deepEqual(names(t.nodes), ['EU', 'EU (region)', 'EU (region) (2)']);
  });

  it('keeps inner groups of the same value apart under different outer groups, and circle spreads each at its own site', async () => {
    const pop = (name: string, region: string, lat: number, lng: number) => ep(name, lat, lng, { region, site: 'POP1' });
    const records = [rec('1', 'fra', pop('fra-r1', 'EU', 50.1, 8.7), pop('fra-r2', 'EU', 50.1, 8.7)),
      rec('2', 'nyc', pop('nyc-r1', 'US', 40.7, -74), pop('nyc-r2', 'US', 40.7, -74))];
    const t = await buildTopology(records, { name: 'd', layout: 'geographic', query: { node_group_criteria: ['region', 'site'], node_group_layout: 'circle' } });
    assert.deepEqual(t.nodes.filter((n) => n.children).map((g) => [g.name, g.children]), [
      ['EU', ['POP1']], ['US', ['POP1 (site)']], ['POP1', ['fra-r1', 'fra-r2']], ['POP1 (site)', ['nyc-r1', 'nyc-r2']],
    ]);
    for (const [router, [lat, lng]] of [['fra-r1', [50.1, 8.7]], ['nyc-r2', [40.7, -74]]] as const) {
      const at = t.nodes.find((n) => n.name === router)!.coordinate;
      assert.ok(Math.hypot(at[0] - lat, at[1] - lng) < 2, `${router} stays near its own site: ${at}`);
    }
  });

  it('groups and spreads 140,000 nodes, more than a function call takes as arguments', async () => {
    const records = Array.from({ length: 70_000 }, (_, i) =>
      rec(String(i), `e${i}`, ep(`A${i}`, 10 + (i % 50), 20 + (i % 70), { site: `S${i % 100}` }), ep(`B${i}`, 11, 21, { site: `S${i % 100}` })));
    const t = await buildTopology(records, { name: 'd', layout: 'geographic', query: { node_group_criteria: ['site'], node_group_layout: 'circle' } });
    assert.equal(t.nodes.filter((n) => !n.children).length, 140_000);
  });

  for (const layout of ['circle', 'grid'] as const) {
    it(`${layout} layout spreads co-located members around the site and edges follow`, async () => {
      const t = await buildTopology(backbone(), { name: 'd', layout: 'geographic', query: { node_group_criteria: ['site'], node_group_layout: layout } });
      const sea1 = t.nodes.find((n) => n.name === 'SEA1')!, sea2 = t.nodes.find((n) => n.name === 'SEA2')!;
      assert.notDeepEqual(sea1.coordinate, sea2.coordinate);
      const c = [(sea1.coordinate[0] + sea2.coordinate[0]) / 2, (sea1.coordinate[1] + sea2.coordinate[1]) / 2];
      assert.ok(Math.abs(c[0] - 47.6) < 1e-5 && Math.abs(c[1] + 122.3) < 1e-5, 'centred on the site');
      assert.ok(Math.hypot(sea1.coordinate[0] - 47.6, sea1.coordinate[1] + 122.3) < 2, 'stays near the site');
      assert.deepEqual(t.edges[2].coordinates[0], sea2.coordinate);
      assert.deepEqual(t.nodes.find((n) => n.name === 'DEN1')!.coordinate, [39.7, -105], 'a lone member stays put');
    });
  }

  it('null group layout keeps members at their data positions', async () => {
    const t = await buildTopology(backbone(), { name: 'd', layout: 'geographic', query: { node_group_criteria: ['site'], node_group_layout: null } });
    assert.deepEqual(t.nodes.find((n) => n.name === 'SEA2')!.coordinate, [47.6, -122.3]);
  });
});

describe('buildTopology: escaping and templates', () => {
  it('keeps & < and quotes in names as data and escapes them in the node markup', async () => {
    const nasty = `R&D <"core"> 'x'`;
    const t = await buildTopology([rec('1', 'e&1', ep(nasty, 1, 2), ep('B', 3, 4))], { name: 'd', layout: 'logical' });
    assert.equal(t.nodes[0].name, nasty);
    const svg = String(t.nodes[0].meta.svg);
    assert.ok(svg.includes('R&amp;D &lt;"core"&gt; \'x\''), svg);
    assert.ok(!svg.includes('<"core">'));
  });

  it('uses a given template with name, endpoint_name and meta placeholders', async () => {
    const tpl = '<g data-width="40" data-height="20"><text>{{ name }}|{{endpoint_name}}|{{ meta.site }}|{{ meta.nope }}</text></g>';
    const t = await buildTopology(backbone(), { name: 'd', layout: 'geographic', template: tpl });
    assert.equal(t.nodes[0].meta.svg, '<g data-width="40" data-height="20"><text>SEA1|SEA1|SEA|</text></g>');
    assert.equal(t.nodes[0].meta.computed_height, 20);
  });

  it('refuses a malformed template with a 422', async () => {
    await assert.rejects(buildTopology(backbone(), { name: 'd', layout: 'geographic', template: '<g>' }), (e: { status: number }) => e.status === 422);
  });
});

describe('buildTopology: logical layout', () => {
  it('lays nodes out left to right inside the 30x60 degree box, deterministically', async () => {
    const chain = [rec('1', 'ab', ep('A'), ep('B')), rec('2', 'bc', ep('B'), ep('C')), rec('3', 'cd', ep('C'), ep('D'))];
    const t1 = await buildTopology(chain, { name: 'd', layout: 'logical' });
    const t2 = await buildTopology(chain, { name: 'd', layout: 'logical' });
    assert.deepEqual(t1, t2);
    const { pixelsPerDegree, ...curve } = t1.pathLayout;
    assert.deepEqual(curve, { type: 'curveLinear', tension: 0.6 });
    assert.ok(Number(pixelsPerDegree) > 0, 'the scale pictures draw the layout at');
    const lng = t1.nodes.map((n) => n.coordinate[1]);
    assert.deepEqual([...lng].sort((a, b) => a - b), lng, 'a chain runs left to right');
    for (const n of t1.nodes) assert.ok(Math.abs(n.coordinate[0]) <= 15 && Math.abs(n.coordinate[1]) <= 30, String(n.coordinate));
    assert.ok(lng[3] - lng[0] > 30, 'spread over the box');
    for (const e of t1.edges) {
      const [a, b] = e.meta.endpoint_identifiers.names as string[];
      assert.deepEqual(e.coordinates[0], t1.nodes.find((n) => n.name === a)!.coordinate);
      assert.deepEqual(e.coordinates.at(-1), t1.nodes.find((n) => n.name === b)!.coordinate);
    }
  });

  // A chain of `nodes` nodes with `extra` more edges between its first nodes (parallel circuits count as edges).
  const chainOf = (nodes: number, extra = 0) => [
    ...Array.from({ length: nodes - 1 }, (_, i) => rec(`c${i}`, `c${i}`, ep(`N${i}`), ep(`N${i + 1}`))),
    ...Array.from({ length: extra }, (_, i) => rec(`x${i}`, `x${i}`, ep('N0'), ep('N1'))),
  ];
  const limits: Array<[string, number, number, RegExp]> = [
    [`${MAX_LOGICAL_NODES + 1} nodes`, MAX_LOGICAL_NODES + 1, 0, new RegExp(`has ${MAX_LOGICAL_NODES + 1} nodes and ${MAX_LOGICAL_NODES} edges`)],
    [`${MAX_LOGICAL_EDGES + 1} edges`, 10, MAX_LOGICAL_EDGES + 1 - 9, new RegExp(`has 10 nodes and ${MAX_LOGICAL_EDGES + 1} edges`)],
  ];
  for (const [what, nodes, extra, counts] of limits) {
    it(`refuses ${what} with 422 naming the limits, before laying anything out`, async () => {
      const error = await buildTopology(chainOf(nodes, extra), { name: 'd', layout: 'logical' }).catch((e) => e);
      assert.equal(error.code, 'validation_failed');
      assert.equal(error.status, 422);
      assert.match(error.message, new RegExp(`at most ${MAX_LOGICAL_NODES} nodes and ${MAX_LOGICAL_EDGES} edges`));
      assert.match(error.message, counts);
      assert.match(error.message, /filter the dataset, or use the geographic layout/);
    });
  }
  it(`lays out ${MAX_LOGICAL_NODES} nodes, the most it takes`, async () => {
    const t = await buildTopology(chainOf(MAX_LOGICAL_NODES), { name: 'd', layout: 'logical' });
    assert.equal(t.nodes.length, MAX_LOGICAL_NODES);
  });

  it('places group nodes at the centroid of their members', async () => {
    const t = await buildTopology(backbone(), { name: 'd', layout: 'logical', query: { node_group_criteria: ['site'] } });
    const sea = t.nodes.find((n) => n.name === 'SEA')!;
    const [s1, s2] = ['SEA1', 'SEA2'].map((n) => t.nodes.find((x) => x.name === n)!.coordinate);
    assert.ok(Math.abs(sea.coordinate[0] - (s1[0] + s2[0]) / 2) < 1e-5);
  });
});
