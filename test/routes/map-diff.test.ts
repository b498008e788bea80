// GET /api/v1/output/map/{id}/diff/{svg|png}/?from=N&to=M (docs/api.md:
// Diffs): a map's change drawn on one frame - layers added and removed,
// circuits added, removed and changed - its routers shared by layers once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pictureBoxes } from '../render/picture-geometry.ts';
import { activeContent } from '../render/svg-check.ts';
import { body, start, type Started } from './fixtures.ts';

const AT: Record<string, [number, number]> = { HAM1: [53.55, 10], BER1: [52.52, 13.4], FRA1: [50.11, 8.68], MUC1: [48.14, 11.58] };
/** An inline layer of circuits [name, a, b, capacity]. */
const layer = (name: string, circuits: [string, string, string, number][]) => {
  const names = [...new Set(circuits.flatMap(([, a, b]) => [a, b]))];
  return { name, mapjson: JSON.stringify({
    name, layer: name, pathLayout: { type: 'curveCardinal' },
    nodes: names.map((n) => ({ name: n, coordinate: AT[n], meta: {} })),
    edges: circuits.map(([e, a, b, capacity]) => ({ name: e, coordinates: [AT[a], AT[b]], meta: { capacity, endpoint_identifiers: { names: [a, b] } } })),
  }) };
};
const HOSTILE = '<script>alert(1)</script>';

let t: Started;
let id: string;
before(async () => {
  t = await start();
  // Version 1: core and a layer named HOSTILE. Version 2: core with ham-ber upgraded, fra-muc removed, ber-muc added; HOSTILE gone, access added.
  const v1 = { name: 'DE', configuration: { layers: [
    layer('core', [['ham-ber', 'HAM1', 'BER1', 100], ['ham-fra', 'HAM1', 'FRA1', 100], ['fra-muc', 'FRA1', 'MUC1', 100]]),
    layer(HOSTILE, [['x', 'BER1', 'FRA1', 10]]),
  ] }, overrides: {} };
  const v2 = { name: 'DE', configuration: { layers: [
    layer('core', [['ham-ber', 'HAM1', 'BER1', 400], ['ham-fra', 'HAM1', 'FRA1', 100], ['ber-muc', 'BER1', 'MUC1', 100]]),
    layer('access', [['ham-ber', 'HAM1', 'BER1', 10]]),
  ] }, overrides: {} };
  const created = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: v1 });
  assert.equal(created.status, 201, await created.clone().text());
  id = (await body(created)).mapId;
  assert.equal((await t.request(`/api/v1/map/id/${id}/`, { method: 'PUT', token: t.write, json: v2 })).status, 200);
});
after(async () => { await t.close(); });

const get = (query: string, format = 'svg') => t.request(`/api/v1/output/map/${id}/diff/${format}/${query}`, { token: t.read });

describe('GET /api/v1/output/map/{id}/diff/{svg|png}/', () => {
  it('draws the change: circuits by layer and name, each router once, layers added and removed in the legend', async () => {
    const res = await get('?from=1&to=2');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    const svg = await res.text();
    assert.deepEqual(activeContent(svg), []);
    const p = pictureBoxes(svg);
    assert.deepEqual(p.nodes.map((n) => n.name).sort(), ['BER1', 'FRA1', 'HAM1', 'MUC1'], 'each router once');
    const status = (title: string) => {
      const el = Array.from(p.doc.getElementsByTagName('title')).find((x) => x.textContent?.startsWith(`${title} (`))?.parentNode as unknown as Element | undefined;
      let g = el;
      while (g && !g.getAttribute?.('data-diff')) g = g.parentNode as unknown as Element | undefined;
      return g?.getAttribute('data-diff');
    };
    assert.deepEqual(['core / ham-ber', 'core / ham-fra', 'core / fra-muc', 'core / ber-muc', 'access / ham-ber', `${HOSTILE} / x`].map(status),
      ['changed', 'unchanged', 'removed', 'added', 'added', 'removed']);
    const legend = Array.from(p.doc.getElementsByTagName('g')).find((g) => g.getAttribute('class') === 'legend')!;
    const rows = Array.from(legend.getElementsByTagName('text')).map((x) => x.textContent);
    assert.deepEqual(rows, ['added: 0 nodes, 2 edges', 'removed: 0 nodes, 2 edges', 'changed: 0 nodes, 1 edge', 'unchanged: 4 nodes, 1 edge',
      'layer added: access', `layer removed: ${HOSTILE}`]);
  });

  it('defaults to the latest version against the one before, and has a PNG twin', async () => {
    assert.equal(await (await get('')).text(), await (await get('?from=1&to=2')).text());
    const png = await get('?from=1&to=2', 'png');
    assert.equal(png.status, 200);
    assert.equal(png.headers.get('content-type'), 'image/png');
  });

  it('is 404 for an unknown map or version, 401 without a token', async () => {
    assert.equal((await t.request('/api/v1/output/map/zzzzzzz/diff/svg/', { token: t.read })).status, 404);
    assert.equal((await get('?from=1&to=9')).status, 404);
    assert.equal((await t.request(`/api/v1/output/map/${id}/diff/svg/`)).status, 401);
  });
});
