// Terranova's editor reads a layer's data only from its `mapjsonUrl`: a layer
// without one gets the editor's defaults (first dataset, geographic, live,
// first template) and is saved so. These tests replay what its
// MapLayerOptionsPanel does on open and save, against the service, and check
// that every layer's output is the same before and after.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeDemoApp, type TestApp } from '../helpers/app.ts';

type Json = any;

let t: TestApp;
let token: string;
before(async () => {
  t = await makeDemoApp();
  token = await t.token();
});
after(async () => { await t.close(); });

const get = async (url: string) => {
  const res = await t.request(url, { token });
  assert.equal(res.status, 200, `${url}: ${res.status}`);
  return (await res.json()) as Json;
};

/** The URL the editor writes for a layer from what it parsed (or defaulted), with its API_URL prefix. */
function editorUrl(api: string, s: { dataset: string; mode: string; liveOrStatic: string; version: string; template?: string }): string {
  const vars = [];
  if (s.liveOrStatic === 'static' && s.version !== 'latest') vars.push(`version=${s.version}`);
  if (s.template) vars.push(`template=${s.template}`);
  return `${api}/output/dataset/${s.dataset}/${s.mode}/${s.liveOrStatic}/${vars.length ? `?${vars.join('&')}` : ''}`;
}

/** Opens the map as the editor does (parse each layer's mapjsonUrl, else its defaults) and saves it back. */
async function openAndSave(mapId: string) {
  const map = await get(`/api/v1/map/id/${mapId}/`);
  const [datasets, templates] = [await get('/api/v1/datasets/'), await get('/api/v1/templates/')];
  const api = `${t.settings.server.baseUrl}/api/v1`;
  for (const layer of map.configuration.layers as Json[]) {
    const state = { dataset: datasets[0].datasetId, mode: 'geographic', liveOrStatic: 'live', version: 'latest', template: templates[0].templateId };
    if (layer.mapjsonUrl) {
      const tail = String(layer.mapjsonUrl).split('/output/dataset/')[1];
      const vars = Object.fromEntries((tail.split('?')[1] ?? '').split('&').filter(Boolean).map((pair) => pair.split('=')));
      const [dataset, mode, liveOrStatic] = tail.split('/');
      Object.assign(state, { dataset, mode, liveOrStatic, version: vars.version ?? 'latest', template: vars.template || undefined });
    }
    layer.mapjsonUrl = editorUrl(api, state);
  }
  const res = await t.request(`/api/v1/map/id/${mapId}/`, { method: 'PUT', token, json: map });
  assert.equal(res.status, 200, await res.clone().text());
  return map;
}

/** Each layer's drawn topology (the map's JSON output). */
async function layerOutputs(mapId: string): Promise<unknown[]> {
  const out = await get(`/api/v1/output/map/${mapId}/json/`);
  return (out.configuration.layers as Json[]).map((layer) => JSON.parse(layer.mapjson));
}

describe('a map opened and saved in Terranova\'s editor', () => {
  it('draws the demo map\'s three datasets as before, each layer its own', async () => {
    const [demo] = await get('/api/v1/maps/');
    const before = await layerOutputs(demo.mapId);
    assert.equal(new Set(before.map((l) => JSON.stringify(l))).size, 3, 'the demo draws three different layers');
    await openAndSave(demo.mapId);
    assert.deepEqual(await layerOutputs(demo.mapId), before);
  });

  it('keeps every layer of a map created through the API with datasetId layers', async () => {
    const datasets = await get('/api/v1/datasets/');
    const templates = await get('/api/v1/templates/');
    const custom = templates.find((x: Json) => x.name === 'Router badge').templateId;
    const layers = [
      { name: 'last dataset, pinned version, its template', datasetId: datasets[2].datasetId, datasetVersion: 2, templateId: custom },
      { name: 'second, logical, no template', datasetId: datasets[1].datasetId, layout: 'logical' },
      { name: 'second again, live', datasetId: datasets[1].datasetId, datatype: 'dynamic' },
    ];
    const res = await t.request('/api/v1/map/', { method: 'POST', token, json: { name: 'API map', configuration: { layers } } });
    assert.equal(res.status, 201);
    const { mapId } = (await res.json()) as Json;
    const shown = await get(`/api/v1/map/id/${mapId}/`);
    const base = `${t.settings.server.baseUrl}/api/v1/output/dataset`;
    assert.deepEqual(shown.configuration.layers.map((l: Json) => l.mapjsonUrl), [
      `${base}/${datasets[2].datasetId}/geographic/static/?version=2&template=${custom}`,
      `${base}/${datasets[1].datasetId}/logical/static/`,
      `${base}/${datasets[1].datasetId}/geographic/live/`,
    ]);
    const before = await layerOutputs(mapId);
    await openAndSave(mapId);
    assert.deepEqual(await layerOutputs(mapId), before);
  });
});

describe('GET /api/v1/maps/?version=all with the configuration', () => {
  it('shows the mapjsonUrl of every datasetId layer in every version', async () => {
    const datasets = await get('/api/v1/datasets/');
    const res = await t.request('/api/v1/map/', { method: 'POST', token, json: { name: 'Listed', configuration: { layers: [{ datasetId: datasets[0].datasetId }] } } });
    const { mapId } = (await res.json()) as Json;
    const versions = await get(`/api/v1/maps/?version=all&mapId=${mapId}&fields=version,configuration`);
    assert.equal(versions.length, 1);
    assert.equal(versions[0].configuration.layers[0].mapjsonUrl,
      `${t.settings.server.baseUrl}/api/v1/output/dataset/${datasets[0].datasetId}/geographic/static/`);
    const stored = await t.store.read('maps', mapId, 1) as Json;
    assert.equal(stored?.configuration.layers[0].mapjsonUrl, undefined, 'shown, not stored');
  });
});
