// The committed demo, as its users fetch it (the public map, each dataset's
// geographic and logical picture): no label overlaps another label, a node
// marker or the legend, no two markers overlap, text drawn by node templates
// (the routers' site captions) overlaps none of these and shows at 8 px or
// more on screen, and every node keeps its full name in a <title>
// (docs/render.md: Labels, Template text).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { makeDemoApp, type TestApp } from '../helpers/app.ts';
import { overlapsBetween, pictureBoxes, templateTextProblems } from './picture-geometry.ts';
import { activeContent } from './svg-check.ts';

let t: TestApp;
let token: string;
let mapId: string;
let datasets: { datasetId: string; name: string }[];

before(async () => {
  t = await makeDemoApp();
  token = await t.token();
  mapId = ((await (await t.request('/api/v1/public/maps/')).json()) as { mapId: string }[])[0].mapId;
  datasets = (await (await t.request('/api/v1/datasets/', { token })).json()) as typeof datasets;
  assert.ok(datasets.length >= 3);
});
after(() => t?.close(true));

async function get(url: string, auth = true) {
  const res = await t.request(url, auth ? { token } : {});
  assert.equal(res.status, 200, url);
  return res.text();
}

/** Names of the leaf nodes a topology JSON holds (group nodes are drawn faint behind, untitled in the check). */
const leafNames = (topology: { nodes: { name: string; children?: unknown }[] }) => topology.nodes.filter((n) => !n.children).map((n) => n.name);

function assertReadable(svg: string, names: string[], what: string) {
  const p = pictureBoxes(svg);
  // Node labels and the rate labels of live traffic alike.
  const labels = [...p.labels, ...p.rates];
  assert.deepEqual(overlapsBetween(labels), [], `${what}: label-label`);
  assert.deepEqual(overlapsBetween(labels, p.nodes), [], `${what}: label-node`);
  assert.deepEqual(overlapsBetween(p.nodes), [], `${what}: node-node`);
  assert.deepEqual([...overlapsBetween(p.groups, [...p.nodes, ...labels]), ...overlapsBetween(p.groups)], [], `${what}: faint group markers`);
  if (p.legend) assert.deepEqual(overlapsBetween([...labels, ...p.nodes, ...p.groups], [{ name: 'legend', box: p.legend }]), [], `${what}: label-legend, node-legend`);
  assert.deepEqual(templateTextProblems(p, 8), [], `${what}: template text`);
  assert.deepEqual([...p.titles].sort(), [...names].sort(), `${what}: every node titled with its full name`);
  assert.deepEqual(activeContent(svg), [], what);
  return p;
}

describe('The demo map picture', () => {
  for (const size of ['', '?width=600', '?width=600&height=400', '?width=400', '?width=300&height=300']) {
    it(`is readable${size ? ` at ${size}` : ''}: no overlaps, every node titled`, async () => {
      const svg = await get(`/api/v1/public/output/map/${mapId}/svg/${size}`, false);
      const map = JSON.parse(await get(`/api/v1/public/output/map/${mapId}/json/`, false)) as { configuration: { layers: { mapjson: string }[] } };
      // A router two layers list (BOST, NEWY) is one marker (docs/render.md: Routers shared by layers).
      const names = [...new Set(map.configuration.layers.flatMap((l) => leafNames(JSON.parse(l.mapjson))))];
      const p = assertReadable(svg, names, `demo map ${size}`);
      assert.ok(p.legend, 'the demo map shows its legend');
      assert.ok(p.labels.length >= (size ? 5 : 20), `labels placed: ${p.labels.length}`);
      // The North America routers' badges say their site at full size; too small to read below it, so left out.
      assert.equal(p.texts.length > 0, size === '', `template text shown: ${p.texts.length}`);
    });
  }
});

describe('The demo map\'s labelling at every size', () => {
  it('labels a node with the text its template shows at full size (its caption), else its name, at every size', async () => {
    const map = JSON.parse(await get(`/api/v1/public/output/map/${mapId}/json/`, false)) as { configuration: { layers: { mapjson: string }[] } };
    const nodes = map.configuration.layers.flatMap((l) => (JSON.parse(l.mapjson) as { nodes: { name: string; children?: unknown; meta: { svg?: string } }[] }).nodes)
      .filter((n) => !n.children);
    // What each node says: the text its template draws, else its name.
    const says = new Set(nodes.map((n) => [...String(n.meta.svg ?? '').matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].trim()).join(' ') || n.name));
    const captioned = nodes.filter((n) => String(n.meta.svg ?? '').includes('<text')).map((n) => n.name);
    assert.ok(captioned.length > 0, 'the demo has captioned routers');
    for (const size of ['', '?width=600', '?width=400']) {
      const p = pictureBoxes(await get(`/api/v1/public/output/map/${mapId}/svg/${size}`, false));
      const labels = p.labels.map((l) => l.name);
      assert.ok(labels.length >= 5, `${size}: ${labels}`);
      assert.deepEqual(labels.filter((x) => !says.has(x)), [], `${size}: labels saying what the node does not say at full size`);
      assert.deepEqual(labels.filter((x) => captioned.includes(x)), [], `${size}: a captioned router labelled by its name`);
    }
  });
});

describe('The demo datasets\' pictures', () => {
  for (const layout of ['geographic', 'logical']) {
    it(`are readable in the ${layout} layout, full size and 800 px wide`, async () => {
      for (const d of datasets) {
        const base = `/api/v1/output/dataset/${d.datasetId}/${layout}/snapshot`;
        const names = leafNames(JSON.parse(await get(`${base}/json/`)));
        for (const size of ['', '?width=800']) assertReadable(await get(`${base}/svg/${size}`), names, `${d.name} ${layout} ${size}`);
      }
    });
  }
});
