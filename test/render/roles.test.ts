// Layers asked for by the dataset query (render/roles.ts, docs/api.md: The
// query), through HTTP: a dual-homed core/aggregation/access network with
// role_field draws every core router above every aggregation router above
// every access router (or left of, with layer_direction right), and a ring,
// which is not a hierarchy, is drawn in layers when a direction is asked.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { pictureBoxes } from './picture-geometry.ts';

// Access rows first and aggregation last: the data's order is not the layers' order.
const role = (n: string) => (n.startsWith('c') ? 'core' : n.startsWith('a') ? 'aggregation' : 'access');
const circuits: [string, string][] = [
  ...Array.from({ length: 8 }, (_, i) => [[`x${i}`, `a${Math.floor(i / 4) * 2}`], [`x${i}`, `a${Math.floor(i / 4) * 2 + 1}`]] as [string, string][]).flat(),
  ['c0', 'c1'],
  ...['a0', 'a1', 'a2', 'a3'].flatMap((a) => [[a, 'c0'], [a, 'c1']] as [string, string][]),
];
const HIERARCHY = `source,destination,source_role,destination_role\n${circuits.map(([a, b]) => `${a},${b},${role(a)},${role(b)}`).join('\n')}\n`;
// The same network as two map layers sharing the aggregation routers: core with aggregation, aggregation with access.
const sheet = (rows: [string, string][]) => `source,destination,source_role,destination_role\n${rows.map(([a, b]) => `${a},${b},${role(a)},${role(b)}`).join('\n')}\n`;
const UPPER = sheet(circuits.filter(([a, b]) => role(a) !== 'access' && role(b) !== 'access'));
const LOWER = sheet(circuits.filter(([a, b]) => role(a) === 'access' || role(b) === 'access'));
const RING = `source,destination\n${Array.from({ length: 6 }, (_, i) => `r${i},r${(i + 1) % 6}`).join('\n')}\n`;
const FLAT = `source,destination,source_role,destination_role\n${Array.from({ length: 6 }, (_, i) => `r${i},r${(i + 1) % 6},core,core`).join('\n')}\n`;

type Topology = { nodes: { name: string; coordinate: [number, number]; children?: string[] }[] };

let t: TestApp;
let token: string;
const save = (sheet: string, extra: Record<string, unknown>) => t.request('/api/v1/dataset/', {
  method: 'POST', token, json: { name: sheet, query: { endpoint: `spreadsheet?sheet_id=${sheet}&sheet_name=${sheet}`, filters: [], ...extra } },
});
async function drawn(sheet: string, extra: Record<string, unknown>): Promise<Map<string, [number, number]>> {
  const created = await save(sheet, extra);
  assert.equal(created.status, 201, await created.clone().text());
  const { datasetId } = (await created.json()) as { datasetId: string };
  const res = await t.request(`/api/v1/output/dataset/${datasetId}/logical/static/`, { token });
  assert.equal(res.status, 200);
  // Routers only: group nodes (with children) sit at their members' centre.
  return new Map(((await res.json()) as Topology).nodes.filter((n) => !n.children).map((n) => [n.name, n.coordinate]));
}
before(async () => {
  t = await makeTestApp();
  token = await t.token();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'campus.csv'), HIERARCHY);
  await writeFile(path.join(sheets, 'ring.csv'), RING);
  await writeFile(path.join(sheets, 'flat.csv'), FLAT);
  await writeFile(path.join(sheets, 'upper.csv'), UPPER);
  await writeFile(path.join(sheets, 'lower.csv'), LOWER);
});
after(() => t.close());

/** Every router of one role strictly before every router of the next, along `axis` (0: latitude, larger first; 1: longitude, smaller first). */
function assertLayers(at: Map<string, [number, number]>, axis: 0 | 1) {
  const along = (n: string) => (axis === 0 ? -at.get(n)![0] : at.get(n)![1]);
  const of = (r: string) => [...at.keys()].filter((n) => role(n) === r).map(along);
  assert.equal(at.size, 14);
  for (const [upper, lower] of [['core', 'aggregation'], ['aggregation', 'access']]) {
    assert.ok(Math.max(...of(upper)) < Math.min(...of(lower)), `${upper} ${of(upper)} before ${lower} ${of(lower)}`);
  }
}

describe('query.role_field: layers by role', () => {
  it('draws core above aggregation above access, in role_order', async () => {
    assertLayers(await drawn('campus', { role_field: 'role', role_order: ['core', 'aggregation', 'access'] }), 0);
  });

  it('draws them left to right with layer_direction right', async () => {
    assertLayers(await drawn('campus', { role_field: 'role', role_order: ['core', 'aggregation', 'access'], layer_direction: 'right' }), 1);
  });

  it('keeps the layers with the routers grouped (groups oriented by role)', async () => {
    assertLayers(await drawn('campus', { role_field: 'role', role_order: ['core', 'aggregation', 'access'], node_group_criteria: ['role'] }), 0);
  });

  it('asks for nothing when every router has one role: the ring is drawn as without role_field', async () => {
    assert.deepEqual(await drawn('flat', { role_field: 'role' }), await drawn('ring', {}));
  });

  it('reverses the layers when role_order does', async () => {
    const at = await drawn('campus', { role_field: 'role', role_order: ['access', 'aggregation', 'core'] });
    assert.ok(Math.max(...['c0', 'c1'].map((n) => at.get(n)![0])) < Math.min(...['x0', 'x7'].map((n) => at.get(n)![0])), 'core below access');
  });
});

describe('GET /api/v1/output/map/{id}/svg/ of two logical layers with role_field', () => {
  it('draws the layers\' routers once each, core above aggregation above access', async () => {
    const layers = [];
    for (const name of ['upper', 'lower']) {
      const created = await save(name, { role_field: 'role', role_order: ['core', 'aggregation', 'access'] });
      layers.push({ name, datasetId: ((await created.json()) as { datasetId: string }).datasetId, layout: 'logical' });
    }
    const map = await t.request('/api/v1/map/', { method: 'POST', token, json: { name: 'campus', configuration: { layers } } });
    assert.equal(map.status, 201);
    const { mapId } = (await map.json()) as { mapId: string };
    const res = await t.request(`/api/v1/output/map/${mapId}/svg/`, { token });
    assert.equal(res.status, 200);
    // Marker centres in picture pixels: y grows downwards, so "above" is a smaller y, the reverse of latitude.
    const at = new Map(pictureBoxes(await res.text()).nodes.map((n) => [n.name, [-(n.box.y0 + n.box.y1) / 2, 0] as [number, number]]));
    assertLayers(at, 0);
  });
});

describe('query.layer_direction: a layered drawing of any graph', () => {
  const levels = (at: Map<string, [number, number]>, axis: 0 | 1) => new Set([...at.values()].map((c) => c[axis].toFixed(3))).size;
  it('draws a 6-router ring in 4 layers top to bottom (down) or left to right (right)', async () => {
    // A ring is not a hierarchy: without a direction it is drawn round (stress), with one in BFS layers 1-2-2-1.
    const down = await drawn('ring', { layer_direction: 'down' });
    assert.equal(levels(down, 0), 4, `latitudes: ${[...down.values()].map((c) => c[0])}`);
    const right = await drawn('ring', { layer_direction: 'right' });
    assert.equal(levels(right, 1), 4, `longitudes: ${[...right.values()].map((c) => c[1])}`);
  });
});

describe('POST /api/v1/dataset/ with hierarchy options', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a role order without a role field', { role_order: ['core'] }, /role_order needs a role_field/],
    ['a repeated role value', { role_field: 'role', role_order: ['core', 'core'] }, /each role value once/],
    ['an unknown direction', { layer_direction: 'up' }, /expected null, down or right/],
  ];
  for (const [what, extra, detail] of cases) {
    it(`answers 422 naming ${what}`, async () => {
      const res = await save('campus', extra);
      assert.equal(res.status, 422);
      assert.match(((await res.json()) as { detail: string }).detail, detail);
    });
  }
});

describe('PUT /api/v1/dataset/id/{id}/ with an unknown role field', () => {
  it('is listed as a problem on create and answers 422 naming the field on save', async () => {
    const unknown = /query\.role_field: no endpoint field "tier".*available: .*role/;
    const created = await save('campus', { role_field: 'tier' });
    assert.equal(created.status, 201);
    const { datasetId, problems, name, query } = (await created.json()) as { datasetId: string; name: string; query: unknown; problems: { message: string }[] };
    assert.ok(problems.some((p) => unknown.test(p.message)), JSON.stringify(problems));
    const res = await t.request(`/api/v1/dataset/id/${datasetId}/`, { method: 'PUT', token, json: { name, query } });
    assert.equal(res.status, 422);
    assert.match(((await res.json()) as { detail: string }).detail, unknown);
  });
});
