// Logical layers of one map are one diagram (render/logical-union.ts,
// docs/render.md: Routers shared by layers): the map picture lays out the
// union of its logical layers once, so a router two layers hold is one
// marker that every layer's circuits meet, and the layers no longer lie over
// each other; each layer's topology JSON keeps the shape it was built with.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTopology } from '../../render/topology.ts';
import type { Topology } from '../../render/types.ts';
import { body, start, type Started } from '../routes/fixtures.ts';
import { ep, rec } from './fixtures.ts';
import { pictureBoxes } from './picture-geometry.ts';

const ham1 = () => ep('HAM1', 53.55, 10.0, { site: 'HAM' }), ham2 = () => ep('HAM2', 53.55, 10.0, { site: 'HAM' });
const ber = () => ep('BER1', 52.52, 13.4, { site: 'BER' }), fra = () => ep('FRA1', 50.11, 8.68, { site: 'FRA' });
const muc = () => ep('MUC1', 48.14, 11.58, { site: 'MUC' });

type Pt = [number, number];
const centre = (b: { x0: number; y0: number; x1: number; y1: number }): Pt => [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2];
const near = (a: Pt, b: Pt) => Math.hypot(a[0] - b[0], a[1] - b[1]) < 0.6;

let t: Started;
let id: string;
let core: Topology, access: Topology;
before(async () => {
  t = await start();
  // Core and access share HAM1, BER1 and MUC1; HAM1-HAM2 is a circuit inside Hamburg.
  core = await buildTopology([rec('1', 'ham-ber', ham1(), ber()), rec('2', 'ham-fra', ham2(), fra()), rec('3', 'fra-muc', fra(), muc())],
    { name: 'core', layout: 'logical' });
  access = await buildTopology([rec('4', 'ham-ham', ham1(), ham2()), rec('5', 'ber-muc', ber(), muc())], { name: 'access', layout: 'logical' });
  const map = { name: 'DE', configuration: { layers: [
    { name: 'core', mapjson: JSON.stringify(core) }, { name: 'access', mapjson: JSON.stringify(access) },
  ] }, overrides: {} };
  const created = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: map });
  assert.equal(created.status, 201, await created.clone().text());
  id = (await body(created)).mapId;
});
after(async () => { await t.close(); });

async function picture() {
  const res = await t.request(`/api/v1/output/map/${id}/svg/`, { token: t.write });
  assert.equal(res.status, 200);
  return pictureBoxes(await res.text());
}

/** Every circuit drawn: its title and the first and last points of its path. */
function circuits(p: ReturnType<typeof pictureBoxes>) {
  return Array.from(p.doc.getElementsByTagName('path')).flatMap((path) => {
    const title = path.getElementsByTagName('title')[0]?.textContent;
    if (!title) return [];
    const nums = (path.getAttribute('d')?.match(/-?[\d.]+/g) ?? []).map(Number);
    return [{ title, first: [nums[0], nums[1]] as Pt, last: [nums[nums.length - 2], nums[nums.length - 1]] as Pt }];
  });
}

describe('GET /api/v1/output/map/{id}/svg/ of logical layers sharing routers', () => {
  it('draws each router once', async () => {
    assert.deepEqual((await picture()).nodes.map((n) => n.name).sort(), ['BER1', 'FRA1', 'HAM1', 'HAM2', 'MUC1']);
  });

  it('ends every layer\'s circuits on the one marker of each of their routers', async () => {
    const p = await picture();
    const at = new Map(p.nodes.map((n) => [n.name, centre(n.box)]));
    const ends: Record<string, [string, string]> = {
      'ham-ber': ['HAM1', 'BER1'], 'ham-fra': ['HAM2', 'FRA1'], 'fra-muc': ['FRA1', 'MUC1'], 'ham-ham': ['HAM1', 'HAM2'], 'ber-muc': ['BER1', 'MUC1'],
    };
    const drawn = circuits(p);
    assert.deepEqual(drawn.map((c) => c.title).sort(), Object.keys(ends).sort());
    for (const c of drawn) {
      const [a, b] = ends[c.title].map((n) => at.get(n)!);
      assert.ok((near(c.first, a) && near(c.last, b)) || (near(c.first, b) && near(c.last, a)), `${c.title}: ${c.first} ${c.last} between ${a} and ${b}`);
    }
  });

  it('draws the layers as one diagram, not over each other: no marker overlaps another', async () => {
    const { nodes } = await picture();
    for (const [i, a] of nodes.entries()) {
      for (const b of nodes.slice(i + 1)) {
        const apart = a.box.x1 <= b.box.x0 || b.box.x1 <= a.box.x0 || a.box.y1 <= b.box.y0 || b.box.y1 <= a.box.y0;
        assert.ok(apart, `${a.name} and ${b.name} overlap`);
      }
    }
  });

  it('keeps each layer\'s topology JSON as it was built', async () => {
    const res = await t.request(`/api/v1/output/map/${id}/json/`, { token: t.write });
    assert.equal(res.status, 200);
    const layers = (await body(res)).configuration.layers.map((l: { mapjson: string }) => JSON.parse(l.mapjson) as Topology);
    const shape = (x: Topology) => x.nodes.map((n) => [n.name, n.coordinate]);
    assert.deepEqual(layers.map(shape), [shape(core), shape(access)]);
  });
});
