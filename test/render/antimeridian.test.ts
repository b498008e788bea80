// Content across the antimeridian: Tokyo and Los Angeles are neighbours over
// the Pacific, not the two ends of the world, in the topology JSON and in
// the pictures.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology } from '../../render/topology.ts';
import { renderMapSvg, renderTopologySvg } from '../../render/svg.ts';
import type { Topology } from '../../render/types.ts';
import { ep, rec } from './fixtures.ts';
import { parseSvg } from './svg-check.ts';

const TYO = () => ep('TYO', 35.7, 139.7);
const LAX = () => ep('LAX', 34.05, -118.24);
/** Longitude degrees between two longitudes the short way round. */
const apart = (a: number, b: number) => Math.abs(((((a - b) % 360) + 540) % 360) - 180);

const viewBox = (svg: string) => String(parseSvg(svg).documentElement!.getAttribute('viewBox')).split(' ').map(Number);
/** Each drawn edge path's title and its first and last points. */
function edgePaths(svg: string) {
  return Array.from(parseSvg(svg).getElementsByTagName('path')).flatMap((p) => {
    const title = p.getElementsByTagName('title')[0]?.textContent;
    if (!title) return []; // the land
    const xy = [...p.getAttribute('d')!.matchAll(/(-?[\d.]+) (-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    return [{ title, first: xy[0], last: xy[xy.length - 1] }];
  });
}
/** Where each node is drawn (its group's translate). */
function nodeAt(svg: string): Map<string, number[]> {
  const at = new Map<string, number[]>();
  for (const g of Array.from(parseSvg(svg).getElementsByTagName('g'))) {
    const m = /^translate\((-?[\d.]+),(-?[\d.]+)\)$/.exec(g.getAttribute('transform') ?? '');
    const title = g.getElementsByTagName('title')[0]?.textContent;
    if (m && title) at.set(title, [Number(m[1]), Number(m[2])]);
  }
  return at;
}
const near = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1]) < 0.5;

describe('topology JSON across the antimeridian', () => {
  it('bends parallel circuits over the Pacific, not over Europe', async () => {
    const t = await buildTopology([rec('1', 'a', TYO(), LAX()), rec('2', 'b', TYO(), LAX()), rec('3', 'c', LAX(), TYO())], { name: 'd', layout: 'geographic' });
    for (const e of t.edges) {
      const [, [, bend]] = e.coordinates;
      assert.ok(apart(bend, 180) < 30, `${e.name} bends at longitude ${bend}`);
    }
  });

  // A Leaflet-based client (ESnet's map component) joins the points as given: consecutive
  // longitudes less than 180 degrees apart make it draw the short way, across the Pacific.
  it('gives each edge consecutive longitudes less than 180 degrees apart, its ends on its nodes', async () => {
    const t = await buildTopology([rec('1', 'a', TYO(), LAX()), rec('2', 'b', LAX(), TYO()), rec('3', 'c', TYO(), LAX()), rec('4', 'd', TYO(), LAX())], { name: 'd', layout: 'geographic' });
    const at = new Map(t.nodes.map((n) => [n.name, n.coordinate]));
    for (const e of t.edges) {
      for (let i = 1; i < e.coordinates.length; i++) {
        const step = Math.abs(e.coordinates[i][1] - e.coordinates[i - 1][1]);
        assert.ok(step < 180, `${e.name}: ${e.coordinates[i - 1][1]} to ${e.coordinates[i][1]}`);
      }
      const names = e.meta.endpoint_identifiers.names as string[];
      for (const [point, name] of [[e.coordinates[0], names[0]], [e.coordinates.at(-1)!, names[1]]] as const) {
        assert.equal(point[0], at.get(name)![0]);
        assert.equal(apart(point[1], at.get(name)![1]), 0, `${e.name} ends on ${name}`);
      }
    }
  });

  it('puts a group of routers either side of 180 at 180, and spreads them without leaving [-180, 180]', async () => {
    const fiji = (name: string, lng: number) => ep(name, -17.7, lng, { site: 'SUV' });
    const records = [rec('1', 'a', fiji('R1', 179.9), fiji('R2', -179.9)), rec('2', 'b', fiji('R3', 179.8), fiji('R1', 179.9))];
    const grouped = await buildTopology(records, { name: 'd', layout: 'geographic', query: { node_group_criteria: ['site'] } });
    const group = grouped.nodes.find((n) => n.children)!;
    assert.ok(apart(group.coordinate[1], 180) < 0.2, `group at ${group.coordinate[1]}`);
    for (const layout of ['circle', 'grid'] as const) {
      const t = await buildTopology(records, { name: 'd', layout: 'geographic', query: { node_group_criteria: ['site'], node_group_layout: layout } });
      for (const n of t.nodes) {
        assert.ok(Math.abs(n.coordinate[1]) <= 180, `${layout}: ${n.name} at ${n.coordinate[1]}`);
        assert.ok(apart(n.coordinate[1], 180) < 2, `${layout}: ${n.name} stays by its site (${n.coordinate[1]})`);
      }
    }
  });
});

describe('pictures across the antimeridian', () => {
  it('draws Tokyo-Los Angeles as wide as any pair as far apart, the circuit between them', async () => {
    const across = renderTopologySvg(await buildTopology([rec('1', 'pacific', TYO(), LAX())], { name: 'd', layout: 'geographic' }));
    const shift = 180; // the same two places, moved half a world round
    const same = renderTopologySvg(await buildTopology([rec('1', 'pacific', ep('TYO', 35.7, 139.7 - shift), ep('LAX', 34.05, -118.24 + shift))], { name: 'd', layout: 'geographic' }));
    assert.ok(Math.abs(viewBox(across)[2] - viewBox(same)[2]) < 1, `${viewBox(across)} vs ${viewBox(same)}`);
    const [edge, ...more] = edgePaths(across);
    assert.equal(more.length, 0);
    const at = nodeAt(across);
    assert.ok(near(edge.first, at.get('TYO')!) && near(edge.last, at.get('LAX')!), 'the circuit runs from node to node');
    assert.ok(at.get('TYO')![0] < at.get('LAX')![0], 'Tokyo west of Los Angeles, the Pacific between');
  });

  it('draws a circuit that crosses the picture\'s edge as two pieces, each from its node off the picture', async () => {
    // Around the world: whichever meridian the picture is cut at, one circuit crosses it.
    const sites = [ep('LAX', 34, -118), ep('NYC', 40.7, -74), ep('LON', 51.5, 0), ep('FRA', 50.1, 8.7), ep('SIN', 1.3, 103.8), TYO()];
    const ring = sites.map((a, i) => rec(String(i), `${a.name}-${sites[(i + 1) % sites.length].name}`, a, sites[(i + 1) % sites.length]));
    const svg = renderTopologySvg(await buildTopology(ring, { name: 'ring', layout: 'geographic' }));
    const [x, , w] = viewBox(svg);
    const at = nodeAt(svg);
    const inside = (p: number[]) => p[0] >= x && p[0] <= x + w;
    const paths = edgePaths(svg);
    const crossing = paths.filter((p) => !inside(p.first) || !inside(p.last));
    assert.equal(paths.length, sites.length + 1);
    assert.deepEqual(crossing.map((p) => p.title), ['TYO-LAX', 'TYO-LAX']);
    for (const p of crossing) {
      const end = inside(p.first) ? p.first : p.last;
      assert.ok(near(end, at.get('TYO')!) || near(end, at.get('LAX')!), 'one end at a node');
    }
  });

  it('draws a circuit from a node at exactly -180 as one piece between its nodes', async () => {
    const records = [rec('1', 'edge', ep('W180', 10, -180), ep('W170', 10, -170)), rec('2', 'far', ep('A', 10, 0), ep('B', 10, 10))];
    const svg = renderTopologySvg(await buildTopology(records, { name: 'd', layout: 'geographic' }));
    const at = nodeAt(svg);
    const edge = edgePaths(svg).filter((p) => p.title === 'edge');
    assert.equal(edge.length, 1);
    assert.ok(near(edge[0].first, at.get('W180')!) && near(edge[0].last, at.get('W170')!), JSON.stringify(edge));
  });

  it('draws the land beyond 180 in a view centred on the antimeridian', () => {
    const topology: Topology = { name: 'fiji', layer: 'tail', pathLayout: { type: 'curveCardinal' }, nodes: [], edges: [] };
    const svg = renderMapSvg({ name: 'Pacific', configuration: { layers: [{ name: 'x', mapjson: JSON.stringify(topology) }], viewport: { center: { lat: -20, lng: 180 }, zoom: 3 } } });
    const land = Array.from(parseSvg(svg).getElementsByTagName('path')).find((p) => !p.getElementsByTagName('title').length)!;
    const xs = [...land.getAttribute('d')!.matchAll(/(-?[\d.]+),-?[\d.]+/g)].map((m) => Number(m[1]));
    assert.ok(xs.some((v) => v < 500), 'Australia, west of the centre');
    assert.ok(xs.some((v) => v > 700 && v <= 1202), 'the Americas side, east of the centre');
  });

  it('looks at Leaflet bounds that run past 180 from their middle', async () => {
    const t = await buildTopology([rec('1', 'x', ep('A', -17, 178), ep('B', -14, -172))], { name: 'd', layout: 'geographic' });
    const svg = renderMapSvg({ name: 'm', configuration: { layers: [{ name: 'x', mapjson: JSON.stringify(t) }], viewport: { top: 0, bottom: -30, left: 160, right: 200 } } }, [t]);
    const at = nodeAt(svg);
    for (const name of ['A', 'B']) {
      const [px, py] = at.get(name)!;
      assert.ok(px > 0 && px < 1200 && py > 0 && py < 700, `${name} at ${px},${py}, inside the 1200x700 frame`);
    }
    assert.ok(at.get('A')![0] < at.get('B')![0], 'A west of B');
  });
});
