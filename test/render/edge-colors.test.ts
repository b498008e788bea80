// A layer's `edgeColorBy` (docs/api.md: Map layers): circuits coloured by a
// field's values, a legend entry per value, through the map picture route.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { parseSvg, activeContent } from './svg-check.ts';

let t: TestApp;
let token: string;
before(async () => { t = await makeTestApp(); token = await t.token(); });
after(() => t?.close(true));

const HOSTILE = '<script>alert(1)</script>';
const edge = (name: string, a: string, b: string, meta: Record<string, unknown>) => ({
  name, coordinates: [] as number[][], meta: { ...meta, endpoint_identifiers: { names: [a, b] } },
});
const at: Record<string, [number, number]> = { A: [50, 5], B: [50, 12], C: [45, 8], D: [46, 14] };

/** A published map of one inline layer coloured by `kind`: two dwdm circuits, one dark fibre, one hostile value, one without. */
async function picture(layer: Record<string, unknown>) {
  const edges = [edge('ab', 'A', 'B', { kind: 'dwdm' }), edge('bc', 'B', 'C', { kind: 'dwdm' }), edge('cd', 'C', 'D', { kind: 'dark fibre' }),
    edge('da', 'D', 'A', { kind: HOSTILE }), edge('ac', 'A', 'C', {})];
  for (const e of edges) e.coordinates = e.meta.endpoint_identifiers.names.map((n) => at[n]);
  const mapjson = JSON.stringify({ name: 'l', layer: 'l', pathLayout: { type: 'curveLinear' },
    nodes: Object.entries(at).map(([name, coordinate]) => ({ name, coordinate, meta: {} })), edges });
  const created = await t.request('/api/v1/map/', { method: 'POST', token, json: {
    name: 'Kinds', configuration: { showLegend: true, layers: [{ name: 'core', color: '#000000', mapjson, ...layer }] }, overrides: {} } });
  assert.equal(created.status, 201, await created.clone().text());
  const { mapId } = (await created.json()) as { mapId: string };
  const res = await t.request(`/api/v1/output/map/${mapId}/svg/`, { token });
  assert.equal(res.status, 200);
  return res.text();
}
const strokeOf = (doc: ReturnType<typeof parseSvg>, title: string) => {
  const path = Array.from(doc.getElementsByTagName('title')).find((x) => x.textContent?.startsWith(`${title} `) || x.textContent === title)!.parentNode as unknown as Element;
  return path.getAttribute('stroke') ?? (path.parentNode as unknown as Element).getAttribute('stroke');
};

describe('edgeColorBy on a map layer', () => {
  it('colours circuits by the field\'s value, the same value alike, those without it in the layer\'s colour', async () => {
    const doc = parseSvg(await picture({ edgeColorBy: 'kind' }));
    const [ab, bc, cd, ac] = ['ab', 'bc', 'cd', 'ac'].map((n) => strokeOf(doc, n));
    assert.equal(ab, bc);
    assert.notEqual(ab, cd);
    assert.notEqual(ab, '#000000');
    assert.equal(ac, '#000000');
  });

  it('gives the legend an entry per value, in its colour, the hostile value as text', async () => {
    const svg = await picture({ edgeColorBy: 'kind' });
    const doc = parseSvg(svg);
    const legend = Array.from(doc.getElementsByTagName('g')).find((g) => g.getAttribute('class') === 'legend')!;
    const texts = Array.from(legend.getElementsByTagName('text')).map((x) => x.textContent);
    // The most circuits first (dwdm: 2), then by name ('<' sorts before 'd').
    assert.deepEqual(texts, ['core by kind', 'dwdm', HOSTILE, 'dark fibre']);
    const lines = Array.from(legend.getElementsByTagName('line'));
    assert.equal(lines[texts.indexOf('dwdm')].getAttribute('stroke'), strokeOf(doc, 'ab'));
    assert.equal(lines[texts.indexOf('dark fibre')].getAttribute('stroke'), strokeOf(doc, 'cd'));
    assert.deepEqual(activeContent(svg), []);
  });

  it('is one entry for the layer without edgeColorBy', async () => {
    const doc = parseSvg(await picture({}));
    const legend = Array.from(doc.getElementsByTagName('g')).find((g) => g.getAttribute('class') === 'legend')!;
    assert.deepEqual(Array.from(legend.getElementsByTagName('text')).map((x) => x.textContent), ['core']);
    assert.equal(strokeOf(doc, 'ab'), '#000000');
  });

  it('is 422 naming the field when it is not a string', async () => {
    const res = await t.request('/api/v1/map/', { method: 'POST', token, json: { name: 'x', configuration: { layers: [{ name: 'l', edgeColorBy: 5 }] } } });
    assert.equal(res.status, 422);
    const err = (await res.json()) as { detail: string; errors: { path: string }[] };
    assert.deepEqual(err.errors.map((e) => e.path), ['configuration.layers.0.edgeColorBy']);
  });
});
