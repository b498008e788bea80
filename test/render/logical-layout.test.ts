// The logical layout as a NOC sees it (docs/render.md: Logical layout,
// Clusters, Mixed layouts), judged from the service's own output over HTTP:
// groups drawn as clusters with their members inside, no edge through a node
// it does not end at, a dashboard's aspect ratio, and no more crossings than
// Graphviz `dot` on the same graph (run here, clusters as subgraph clusters,
// counted the same way: render/drawing-geometry.ts). Then a map mixing
// a geographic and a logical layer keeps the logical one out of the geography.
import type { Element } from '@xmldom/xmldom';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeDemoApp, makeTestApp, type TestApp } from '../helpers/app.ts';
import { skipWithout } from '../helpers/components.ts';
import { crossings, throughNodes, type Drawing, type Rect } from '../../render/drawing-geometry.ts';
import { dotDrawing, dotSource, hasDot, inside, svgDrawing } from '../helpers/layout-geometry.ts';
import { renderMapSvg, renderTopologySvg } from '../../render/svg.ts';
import { buildTopology } from '../../render/topology.ts';
import { ep, rec } from './fixtures.ts';
import { parseSvg } from './svg-check.ts';

const NO_DOT = skipWithout('Graphviz', hasDot(), 'dot: apt-get install graphviz');
const DOT = !NO_DOT;

type Topo = { nodes: { name: string; coordinate: [number, number]; children?: string[]; meta: Record<string, unknown> }[]; edges: { name: string; coordinates: [number, number][]; meta: { endpoint_identifiers: Record<string, unknown[]> } }[]; pathLayout: Record<string, unknown> };

let t: TestApp;
let token: string;
after(async () => { await t?.close?.(); });

const get = async (url: string) => {
  const res = await t.request(url, { token });
  assert.equal(res.status, 200, `${url}: ${await res.clone().text()}`);
  return res;
};

/** Every group is one cluster: a box and a title, its members' boxes (nodes and subclusters) inside. */
function assertClusters(topo: Topo, d: Drawing) {
  const groups = topo.nodes.filter((n) => n.children);
  assert.deepEqual([...d.clusters.keys()].sort(), groups.map((g) => g.name).sort(), 'one cluster per group');
  for (const g of groups) {
    const c = d.clusters.get(g.name)!;
    assert.ok(c.title && inside(c.title, c.box, 2), `${g.name}: the title sits inside its box`);
    for (const child of g.children!) {
      const box = d.nodes.get(child) ?? d.clusters.get(child)?.box;
      assert.ok(box, `${child} drawn`);
      assert.ok(inside(box, c.box), `${child} inside ${g.name}`);
      assert.ok(!overlaps(box, c.title!), `${child} does not cover the title of ${g.name}`);
    }
  }
}
const overlaps = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Positions in the small lat/lng box, each edge's coordinates starting and ending on its nodes'. */
function assertEdgesOnNodes(topo: Topo) {
  const at = new Map(topo.nodes.map((n) => [n.name, n.coordinate]));
  for (const n of topo.nodes) assert.ok(Math.abs(n.coordinate[0]) <= 15 && Math.abs(n.coordinate[1]) <= 30, n.name);
  for (const e of topo.edges) {
    const [a, b] = e.meta.endpoint_identifiers.names as string[];
    assert.deepEqual([e.coordinates[0], e.coordinates.at(-1)], [at.get(a), at.get(b)], e.name);
  }
  assert.ok(Number(topo.pathLayout.pixelsPerDegree) > 0);
}

function assertDashboardAspect(d: Drawing) {
  const ratio = d.width / d.height;
  assert.ok(ratio >= 1.2 && ratio <= 1.9, `aspect ${d.width.toFixed(0)}x${d.height.toFixed(0)} = ${ratio.toFixed(2)}, not a strip`);
}

describe('logical layout of the demo\'s North America dataset (sites as groups)', () => {
  let topo: Topo;
  let ours: Drawing;
  before(async () => {
    t = await makeDemoApp();
    token = await t.token();
    const list = await (await get('/api/v1/datasets/')).json() as { datasetId: string; name: string }[];
    const id = list.find((d) => d.name === 'R&E backbone: North America')!.datasetId;
    topo = await (await get(`/api/v1/output/dataset/${id}/logical/snapshot/json/`)).json() as Topo;
    ours = svgDrawing(await (await get(`/api/v1/output/dataset/${id}/logical/snapshot/svg/`)).text());
    assert.equal(ours.nodes.size, 41, 'the 41 routers are drawn');
    assert.equal(ours.lines.length, topo.edges.length);
  });

  it('draws each of the 28 sites as a cluster: a box with its name, its routers inside', () => {
    assert.equal(ours.clusters.size, 28);
    assertClusters(topo, ours);
  });

  it('routes every edge around the nodes it does not end at', () => {
    assert.deepEqual(throughNodes(ours), []);
    for (const l of ours.lines) assert.ok(l.a && l.b, 'every edge starts and ends on a node centre');
  });

  it('fits a dashboard panel rather than a strip', () => assertDashboardAspect(ours));

  // Its sites kept clear while the drawing was evened out, not the drawing spread five times over to clear them
  // (7150 px wide, circuits of 926 px between routers 60 px wide, text too small to read on any page).
  it('keeps its circuits a few router widths long, so text reads when the picture is fitted to a page', () => {
    const lengths = ours.lines.map((l) => l.pts.slice(1).reduce((s, p, i) => s + Math.hypot(p[0] - l.pts[i][0], p[1] - l.pts[i][1]), 0)).sort((a, b) => a - b);
    const median = lengths[lengths.length >> 1];
    assert.ok(median <= 250, `median circuit ${median.toFixed(0)} px`);
    assert.ok(ours.width <= 2400, `${ours.width.toFixed(0)} px wide`);
  });

  // Its routers have coordinates: a schematic (docs/render.md: Logical layout), its circuits straight.
  it('keeps the topology JSON shape: positions in the small lat/lng box, straight circuits from node to node', () => {
    assertEdgesOnNodes(topo);
    assert.ok(topo.edges.every((e) => e.coordinates.length === 2), 'straight circuits');
  });

  // dot's own default, top to bottom (2 crossings in a 504x1030 column; left to right, as issue 20
  // first measured it, 5 in a 1659x494 strip); `npm run bench -- render` prints both.
  it('has no more edge crossings than Graphviz dot on the same graph, and as few edges through nodes', { skip: NO_DOT }, () => {
    const dot = dotDrawing(dotSource(topo, 'TB'));
    assert.equal(dot.nodes.size, 41);
    assert.equal(dot.clusters.size, 28, 'dot draws the same clusters');
    const mine = crossings(ours.lines), theirs = crossings(dot.lines);
    assert.ok(mine <= theirs, `ours ${mine} crossings, dot's ${theirs}`);
    assert.ok(mine < 17, 'fewer than the 17 of the old strip layout');
    assert.equal(throughNodes(dot).length, 0);
  });
});

// The other demo datasets, laid out logically as the service serves them (their own grouping): same promises.
describe('logical layout of the other demo datasets', () => {
  for (const name of ['R&E backbone: Europe and transatlantic', 'Exchange point links']) {
    it(`${name}: no edge through a node, no more crossings than dot (top to bottom) on the same graph`, async () => {
      const list = await (await get('/api/v1/datasets/')).json() as { datasetId: string; name: string }[];
      const id = list.find((d) => d.name === name)!.datasetId;
      const topo = await (await get(`/api/v1/output/dataset/${id}/logical/snapshot/json/`)).json() as Topo;
      const d = svgDrawing(await (await get(`/api/v1/output/dataset/${id}/logical/snapshot/svg/`)).text());
      assert.equal(d.lines.length, topo.edges.length);
      assert.deepEqual(throughNodes(d), []);
      const ratio = d.width / d.height;
      assert.ok(ratio >= 1 && ratio <= 2, `aspect ${ratio.toFixed(2)}: a dashboard's shape`);
      if (DOT) {
        const dot = dotDrawing(dotSource(topo, 'TB'));
        assert.ok(crossings(d.lines) <= crossings(dot.lines), `ours ${crossings(d.lines)}, dot's ${crossings(dot.lines)}`);
      }
    });
  }
});

// Same service as above (the demo data): its logical topology is built once, for both.
describe('a map mixing a geographic and a logical layer', () => {
  it('draws the logical layer in a frame of its own beside the geography, never over it', async () => {
    const list = await (await get('/api/v1/datasets/')).json() as { datasetId: string; name: string }[];
    const id = list.find((d) => d.name === 'R&E backbone: North America')!.datasetId;
    const created = await t.request('/api/v1/map/', { method: 'POST', token, json: {
      name: 'Mixed', overrides: {}, configuration: { background: '#ffffff', layers: [
        { name: 'Geographic', datasetId: id, layout: 'geographic', color: '#1f77b4' },
        { name: 'Logical', datasetId: id, layout: 'logical', color: '#d62728' },
      ] },
    } });
    assert.equal(created.status, 201, await created.clone().text());
    const { mapId } = await created.json() as { mapId: string };
    const doc = parseSvg(await (await get(`/api/v1/output/map/${mapId}/svg/`)).text());

    // Nodes per layer: the node group of each layer carries the layer's colour; a node is a translated <g> in it.
    const nodesOf = (colour: string) => Array.from(doc.getElementsByTagName('g'))
      .filter((g) => g.getAttribute('fill') === colour && g.getAttribute('stroke') === '#1a1a1a' && g.getAttribute('opacity') !== '0.45')
      .flatMap((g) => Array.from(g.childNodes).filter((c) => c.nodeName === 'g') as Element[])
      .map((g) => /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(g.getAttribute('transform') ?? '')!.slice(1).map(Number));
    const geo = nodesOf('#1f77b4'), logical = nodesOf('#d62728');
    assert.equal(geo.length, 41);
    assert.equal(logical.length, 41);
    const geoRight = Math.max(...geo.map(([x]) => x));
    assert.ok(logical.every(([x]) => x > geoRight + 24), 'every logical node lies right of the geography');

    // The panel: a rounded box holding every logical node, clear of every geographic node, drawn over the land.
    const panel = Array.from(doc.getElementsByTagName('rect')).find((r) => r.getAttribute('rx') === '6')!;
    assert.ok(panel, 'a panel frames the logical layer');
    const box = { x: Number(panel.getAttribute('x')), y: Number(panel.getAttribute('y')), w: Number(panel.getAttribute('width')), h: Number(panel.getAttribute('height')) };
    for (const [x, y] of logical) assert.ok(inside({ x, y, w: 0, h: 0 }, box), 'logical node in the panel');
    for (const [x, y] of geo) assert.ok(!inside({ x, y, w: 0, h: 0 }, box), 'geographic node outside the panel');
    const land = Array.from(doc.getElementsByTagName('path')).find((p) => (p.getAttribute('fill') ?? '').startsWith('rgba'))!;
    assert.ok(land, 'country outlines drawn for the geographic layer');
    assert.equal(land.compareDocumentPosition(panel as never) & 4, 4, 'the panel comes after the land, so no land shows through it');
    const root = doc.documentElement!;
    const [vx, , vw] = root.getAttribute('viewBox')!.split(' ').map(Number);
    assert.ok(vx + vw >= box.x + box.w - 1, 'the picture includes the panel');
  });
});

// A fixture of our own: two regions, each with sites of one or two routers, a ring per region and links across.
const SITES: Record<string, [string, string[]]> = {
  AMS: ['EU', ['ams-r1', 'ams-r2']], FRA: ['EU', ['fra-r1', 'fra-r2']], PAR: ['EU', ['par-r1']], LON: ['EU', ['lon-r1', 'lon-r2']],
  NYC: ['US', ['nyc-r1', 'nyc-r2']], CHI: ['US', ['chi-r1']], WAS: ['US', ['was-r1']], DAL: ['US', ['dal-r1', 'dal-r2']],
};
const siteOf = (r: string) => r.slice(0, 3).toUpperCase();
const LINKS = [
  'ams-r1 ams-r2', 'fra-r1 fra-r2', 'lon-r1 lon-r2', 'nyc-r1 nyc-r2', 'dal-r1 dal-r2',
  'ams-r1 fra-r1', 'fra-r2 par-r1', 'par-r1 lon-r1', 'lon-r2 ams-r2', 'ams-r1 lon-r1',
  'nyc-r1 chi-r1', 'chi-r1 dal-r1', 'dal-r2 was-r1', 'was-r1 nyc-r2', 'chi-r1 was-r1',
  'lon-r1 nyc-r1', 'par-r1 was-r1', 'fra-r1 nyc-r2',
];
const CSV = `${['id,name,source,destination,capacity,source_site,destination_site,source_region,destination_region',
  ...LINKS.map((l, i) => {
    const [a, b] = l.split(' ');
    return `c${i},${a}-${b},${a},${b},100,${siteOf(a)},${siteOf(b)},${SITES[siteOf(a)][0]},${SITES[siteOf(b)][0]}`;
  })].join('\n')}\n`;

describe('logical layout of a fixture grouped by region, then site (nested clusters)', () => {
  let topo: Topo;
  let ours: Drawing;
  before(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mts-logical-fixture-'));
    await mkdir(path.join(dir, 'sheets'), { recursive: true });
    await writeFile(path.join(dir, 'sheets', 'regions.csv'), CSV);
    await t.close();
    t = await makeTestApp({ dir });
    token = await t.token();
    const created = await t.request('/api/v1/dataset/', { method: 'POST', token, json: {
      name: 'Regions', query: { endpoint: 'spreadsheet?sheet_id=regions&sheet_name=regions', filters: [],
        node_deduplication_field: null, node_group_criteria: ['region', 'site'], node_group_layout: null },
    } });
    assert.equal(created.status, 201, await created.clone().text());
    const { datasetId } = await created.json() as { datasetId: string };
    const topoRes = await t.request(`/api/v1/output/dataset/${datasetId}/logical/dynamic/json/`, { token });
    assert.equal(topoRes.status, 200, await topoRes.clone().text());
    topo = await topoRes.json() as Topo;
    ours = svgDrawing(await (await get(`/api/v1/output/dataset/${datasetId}/logical/dynamic/svg/`)).text());
  });

  it('draws regions and sites as clusters, sites inside their region, routers inside their site', () => {
    assert.equal(ours.clusters.size, 2 + Object.keys(SITES).length);
    assertClusters(topo, ours);
    assert.ok(inside(ours.clusters.get('AMS')!.box, ours.clusters.get('EU')!.box));
    assert.ok(!overlaps(ours.clusters.get('EU')!.box, ours.clusters.get('US')!.box), 'regions side by side, not on top of each other');
  });

  it('routes no edge through a node', () => assert.deepEqual(throughNodes(ours), []));

  // Nested groups are drawn in layers (ELK), whose routes bend.
  it('keeps the topology JSON shape: positions in the small lat/lng box, routes as bend points in coordinates', () => {
    assertEdgesOnNodes(topo);
    assert.ok(topo.edges.some((e) => e.coordinates.length > 2), 'routes bend');
  });

  it('has no more crossings than dot (top to bottom, its default) on the same graph', { skip: NO_DOT }, () => {
    const dot = dotDrawing(dotSource(topo, 'TB'));
    assert.equal(dot.clusters.size, ours.clusters.size);
    assert.ok(crossings(ours.lines) <= crossings(dot.lines), `ours ${crossings(ours.lines)}, dot's ${crossings(dot.lines)}`);
  });
});

describe('clusters of a topology from elsewhere (inline map JSON)', () => {
  const topo = (cluster: unknown) => ({
    name: 'inline', layer: 'tail', pathLayout: { type: 'curveLinear', pixelsPerDegree: 20 },
    nodes: [
      { name: 'a', coordinate: [1, -2] as [number, number], meta: {} },
      { name: 'b', coordinate: [1, 2] as [number, number], meta: {} },
      { name: 'G <x>', coordinate: [1, 0] as [number, number], children: ['a', 'b'], meta: { cluster, svg: '<circle r="4"/>' } },
    ],
    edges: [],
  });
  const cases: Array<[string, unknown, boolean]> = [
    ['a box [[south, west], [north, east]]', [[0, -3], [2, 3]], true],
    ['corners the wrong way round', [[2, 3], [0, -3]], false],
    ['strings', [['0', '-3'], ['2', '3']], false],
    ['markup', '<script>alert(1)</script>', false],
    ['too few corners', [[0, -3]], false],
  ];
  for (const [what, cluster, drawn] of cases) {
    it(`${what}: ${drawn ? 'drawn as a cluster' : 'ignored, the group drawn by its template'}`, () => {
      const svg = renderMapSvg({ name: 'm', configuration: { layers: [{ name: 'L', layout: 'logical', mapjson: JSON.stringify(topo(cluster)) }] } });
      const d = svgDrawing(svg);
      assert.equal(d.clusters.size, drawn ? 1 : 0);
      if (drawn) {
        const c = d.clusters.get('G <x>')!;
        assert.ok(Math.abs(c.box.w - 6 * 20) < 1 && Math.abs(c.box.h - 2 * 20) < 1, 'the box at the topology\'s scale');
      } else {
        assert.ok(svg.includes('<circle r="4"/>'), 'the group drawn by its template');
      }
    });
  }
});

// A long chain is a strip whichever way it is laid: ELK's wrapping cuts it into columns (render/logical-layout.ts).
describe('logical layout of a long chain', () => {
  it('wraps 60 routers in a line into a dashboard\'s shape, no edge through a node, no crossing', async () => {
    const records = Array.from({ length: 59 }, (_, i) => rec(`c${i}`, `c${i}`, ep(`r${i}`), ep(`r${i + 1}`)));
    const d = svgDrawing(renderTopologySvg(await buildTopology(records, { name: 'chain', layout: 'logical' })));
    assert.equal(d.nodes.size, 60);
    const ratio = d.width / d.height;
    assert.ok(ratio >= 0.7 && ratio <= 3.2, `aspect ${d.width.toFixed(0)}x${d.height.toFixed(0)}, not a strip`);
    assert.deepEqual(throughNodes(d), []);
    assert.equal(crossings(d.lines), 0);
  });
});
