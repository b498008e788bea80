// Live traffic's routes without Prometheus: bindings checked at save (422
// naming the field or the missing unit), the sources list, and the
// synthetic `demo` source drawing a bound map (what `npm start` shows).
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, start, type Started } from './fixtures.ts';

let t: Started;
let datasetId: string;
before(async () => {
  t = await start();
  await mkdir(path.join(t.dir, 'sheets'), { recursive: true });
  await writeFile(path.join(t.dir, 'sheets', 'links.csv'),
    'id,name,source,destination,a_router,a_port,z_router,z_port,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude\n' +
    'L1,AMS-FRA,ams,fra,ams-cr1,et-1/0/0,fra-cr1,et-2/0/0,100,52.37,4.9,50.11,8.68\n' +
    'L2,FRA-PRG,fra,prg,fra-cr1,et-3/0/0,,,,50.11,8.68,50.08,14.44\n');
  const dataset = { name: 'Links', query: { endpoint: 'spreadsheet?sheet_id=links&sheet_name=links', filters: [] } };
  const created = await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: dataset }));
  datasetId = created.datasetId;
  assert.equal((await t.request(`/api/v1/dataset/id/${datasetId}/`, { method: 'PUT', token: t.write, json: dataset })).status, 200);
});
after(() => t.close());

const binding = (more: object = {}) => ({
  source: 'demo', a: { instance: '{a_router}', ifName: '{a_port}' }, z: { instance: '{z_router}', ifName: '{z_port}' }, capacity: '{capacity} Gbps', ...more,
});
const mapWith = (traffic: unknown, more: object = {}) => ({
  name: 'Live', configuration: { ...more, layers: [{ name: 'Links', datasetId, layout: 'geographic', traffic }] },
});

describe('PUT and POST /api/v1/map/: the traffic binding', () => {
  const refused: [string, unknown, string, string][] = [
    ['a capacity without a unit', binding({ capacity: '{capacity}' }), 'configuration.layers.0.traffic.capacity', 'with a unit'],
    ['an unknown unit', binding({ capacityAtoZ: '{capacity} Gbit' }), 'configuration.layers.0.traffic.capacityAtoZ', 'with a unit'],
    ['a field the records lack', binding({ a: { instance: '{a_router}', ifName: '{a_interface}' } }), 'configuration.layers.0.traffic.a.ifName', '{a_interface}'],
    ['an unknown source', binding({ source: 'nowhere' }), 'configuration.layers.0.traffic.source', 'no metrics source named nowhere'],
    ['no end bound', { source: 'demo', capacity: '10 Gbps' }, 'configuration.layers.0.traffic', 'at least one end'],
    ['an unknown key', binding({ capacityAToZ: '10 Gbps' }), 'configuration.layers.0.traffic.capacityAToZ', ''],
  ];
  for (const [what, traffic, where, words] of refused) {
    it(`refuses ${what}: 422 naming ${where}`, async () => {
      const res = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: mapWith(traffic) });
      assert.equal(res.status, 422);
      const b = await body(res);
      assert.ok(b.errors.some((e: { path: string; message: string }) => e.path === where && e.message.includes(words)), JSON.stringify(b));
    });
  }

  it('accepts a binding whose fields the records have (header case ignored), and keeps it as sent', async () => {
    const traffic = binding({ a: { instance: '{A_Router}', ifName: '{a_port}' } });
    const res = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: mapWith(traffic) });
    assert.equal(res.status, 201, await res.clone().text());
    const b = await body(res);
    assert.deepEqual(b.configuration.layers[0].traffic, traffic);
    assert.equal(b.warnings, undefined);
  });

  it('refuses a trafficScale out of order', async () => {
    const res = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: mapWith(binding(), { trafficScale: [{ upTo: 50, color: '#00ff00' }, { upTo: 10, color: '#ff0000' }] }) });
    assert.equal(res.status, 422);
    assert.ok((await body(res)).errors.some((e: { path: string }) => e.path === 'configuration.trafficScale'));
  });
});

describe('GET /api/v1/traffic/sources/', () => {
  it('lists the built-in demo source as synthetic and healthy', async () => {
    const res = await t.request('/api/v1/traffic/sources/', { token: t.read });
    assert.equal(res.status, 200);
    assert.deepEqual(await body(res), [{ name: 'demo', kind: 'synthetic', synthetic: true, step: '60s', status: 'ok' }]);
    assert.equal((await t.request('/api/v1/traffic/sources/')).status, 401);
  });
});

describe('the picture of a map bound to the demo source', () => {
  it('draws half-edges, says the traffic is synthetic, and refreshes per bucket', async () => {
    const created = await body(await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: mapWith(binding(), { trafficScale: 'colorblind' }) }));
    const res = await t.request(`/api/v1/output/map/${created.mapId}/svg/`, { token: t.write });
    assert.equal(res.status, 200);
    const svg = await res.text();
    assert.match(res.headers.get('cache-control') ?? '', /^private, max-age=\d+$/);
    assert.match(res.headers.get('etag') ?? '', /^"t[\w-]+"$/);
    assert.equal((svg.match(/class="traffic aToZ"/g) ?? []).length, 2);
    assert.match(svg, /source demo \(synthetic traffic, not measured\)/);
    // L2's far end has empty cells: one-sided, still both directions, from its one end.
    assert.match(svg, /FRA-PRG: Z→A: /);
    // The colour-blind-safe scale: viridis's first band is in the legend.
    assert.ok(svg.includes('#440154'));
  });
});
