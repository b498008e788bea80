// How many circuits a picture draws (docs/api.md: Limits of the work a
// request may cause; output/picture-limit.ts): a dataset past
// output.pictureCircuits is refused with 422 naming the setting before its
// topology is built, in every picture that would draw it (the dataset's,
// a map's layer, a public map, a change), while its JSON output is served.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, createMap, start, type Started } from './fixtures.ts';

const HEADER = 'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude';
const sheet = (count: number, capacity = 10) => `${[HEADER, ...Array.from({ length: count }, (_, i) =>
  `c${i},A${i}-B${i},A${i},B${i},${capacity},${40 + i * 0.3},${-100 + i * 0.5},${35 + i * 0.4},${-90 + i * 0.3}`)].join('\n')}\n`;
const LIMIT = 4;

let t: Started;
/** Datasets by sheet, each stored with results twice (versions 2 and 3), and a public map over each. */
const made: Record<string, { datasetId: string; mapId: string }> = {};

before(async () => {
  t = await start({ settings: { output: { pictureCircuits: LIMIT } } });
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  for (const [name, count] of [['within', LIMIT], ['beyond', LIMIT + 1]] as const) {
    const revision = { name, query: { endpoint: `spreadsheet?sheet_id=${name}&sheet_name=${name}`, node_deduplication_field: null,
      node_group_criteria: null, node_group_layout: null, filters: [] } };
    const { datasetId } = await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision }));
    for (const capacity of [10, 100]) {
      await writeFile(path.join(sheets, `${name}.csv`), sheet(count, capacity));
      assert.equal((await t.request(`/api/v1/dataset/id/${datasetId}/`, { method: 'PUT', token: t.write, json: revision })).status, 200);
    }
    const { mapId } = await createMap(t, name, { configuration: { layers: [{ name: 'core', datasetId, layout: 'geographic' }] } });
    assert.equal((await t.request(`/api/v1/map/id/${mapId}/publish/`, { method: 'POST', token: t.publish })).status, 200);
    made[name] = { datasetId, mapId };
  }
});
after(async () => { await t.close(); });

const PICTURES: [string, (m: { datasetId: string; mapId: string }) => string][] = [
  ['the dataset\'s SVG', (m) => `/api/v1/output/dataset/${m.datasetId}/geographic/snapshot/svg/`],
  ['the dataset\'s PNG', (m) => `/api/v1/output/dataset/${m.datasetId}/logical/snapshot/png/`],
  ['a map\'s SVG', (m) => `/api/v1/output/map/${m.mapId}/svg/`],
  ['a public map\'s PNG', (m) => `/api/v1/public/output/map/${m.mapId}/png/`],
  ['the picture of a change', (m) => `/api/v1/output/dataset/${m.datasetId}/diff/geographic/svg/?from=2&to=3`],
];

describe('output.pictureCircuits', () => {
  for (const [what, url] of PICTURES) {
    it(`${what}: drawn within the limit, 422 naming the setting past it`, async () => {
      assert.equal((await t.request(url(made.within), { token: t.all })).status, 200);
      const res = await t.request(url(made.beyond), { token: t.all });
      assert.equal(res.status, 422);
      const { detail, code } = await body(res);
      assert.equal(code, 'validation_failed');
      assert.match(detail, new RegExp(`has ${LIMIT + 1} circuits; a picture draws at most ${LIMIT} \\(setting output.pictureCircuits\\)`));
    });
  }

  it('leaves the JSON outputs alone: the topology of every circuit', async () => {
    const res = await t.request(`/api/v1/output/dataset/${made.beyond.datasetId}/geographic/snapshot/json/`, { token: t.all });
    assert.equal(res.status, 200);
    assert.equal((await body(res)).edges.length, LIMIT + 1);
  });
});
