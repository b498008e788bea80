// A trans-Pacific network through HTTP, as ESnet's map component reads it:
// the dataset's topology JSON uses one continuous longitude range for the
// layer, nodes and edges alike, so every edge starts and ends exactly at its
// nodes' coordinates and no step between points is 180 degrees or more.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

const CSV = `source,destination,source_latitude,source_longitude,destination_latitude,destination_longitude
TYO,LAX,35.68,139.69,34.05,-118.24
TYO,SEA,35.68,139.69,47.61,-122.33
TYO,SIN,35.68,139.69,1.35,103.82
SIN,SYD,1.35,103.82,-33.87,151.21
SYD,LAX,-33.87,151.21,34.05,-118.24
LAX,SEA,34.05,-118.24,47.61,-122.33
LAX,CHI,34.05,-118.24,41.88,-87.63
`;

type Topology = { nodes: { name: string; coordinate: [number, number] }[]; edges: { name: string; coordinates: [number, number][]; meta: { endpoint_identifiers: { names: string[] } } }[] };

let t: TestApp;
let token: string;
let datasetId: string;
before(async () => {
  t = await makeTestApp();
  token = await t.token();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'pacific.csv'), CSV);
  const revision = { name: 'Pacific', query: { endpoint: 'spreadsheet?sheet_id=pacific&sheet_name=pacific', filters: [] } };
  const created = await t.request('/api/v1/dataset/', { method: 'POST', token, json: revision });
  datasetId = ((await created.json()) as { datasetId: string }).datasetId;
  assert.equal((await t.request(`/api/v1/dataset/id/${datasetId}/`, { method: 'PUT', token, json: revision })).status, 200);
});
after(() => t.close());

describe('GET /api/v1/output/dataset/{id}/geographic/… across the antimeridian', () => {
  for (const datatype of ['static', 'live']) {
    it(`${datatype}: every edge meets its nodes on one continuous longitude range`, async () => {
      const res = await t.request(`/api/v1/output/dataset/${datasetId}/geographic/${datatype}/`, { token });
      assert.equal(res.status, 200);
      const topology = (await res.json()) as Topology;
      const at = new Map(topology.nodes.map((n) => [n.name, n.coordinate]));
      const lngs = topology.nodes.map((n) => n.coordinate[1]);
      assert.ok(Math.max(...lngs) - Math.min(...lngs) < 180, `one range, the short way over the Pacific: ${lngs}`);
      for (const e of topology.edges) {
        const [a, b] = e.meta.endpoint_identifiers.names;
        assert.deepEqual(e.coordinates[0], at.get(a), `${e.name} starts on ${a}`);
        assert.deepEqual(e.coordinates.at(-1), at.get(b), `${e.name} ends on ${b}`);
        for (let i = 1; i < e.coordinates.length; i++) assert.ok(Math.abs(e.coordinates[i][1] - e.coordinates[i - 1][1]) < 180, e.name);
      }
      // Tokyo's marker has all three of its edges, not only its Singapore one.
      assert.equal(topology.edges.filter((e) => e.coordinates.some((p) => p[1] === at.get('TYO')![1])).length, 3);
    });
  }

  it('draws the same network as a picture with every node and edge', async () => {
    const res = await t.request(`/api/v1/output/dataset/${datasetId}/geographic/static/svg/`, { token });
    assert.equal(res.status, 200);
    const svg = await res.text();
    assert.equal(svg.match(/<path [^>]*>\s*<title>/g)?.length, 7, 'one path per circuit');
  });
});
