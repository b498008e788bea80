// PNG twins of the SVG routes (docs/api.md: PNG pictures): every `…/svg/`
// route has a `…/png/` with the same parameters, answering the same picture
// rasterized (its bytes are those of the SVG route's body through resvg with
// the shipped font), with the PNG headers, ETag and 304, and a 422 naming
// the size beyond the PNG limits. Spreadsheet values of the XSS corpus reach
// the PNG only through the sanitized SVG.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderPng } from '../../render/png.ts';
import { makeTestApp } from '../helpers/app.ts';
import { activeContent } from '../render/svg-check.ts';
import { body, createMap, start, type Started } from './fixtures.ts';

const CSV = `${[
  'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude',
  'c1,CHIC-NEWY,CHIC,NEWY,100,41.88,-87.63,40.71,-74.01',
  'c2,CHIC-DENV,CHIC,DENV,40,41.88,-87.63,39.74,-104.99',
  'c3,"<script>alert(1)</script>","<script>alert(1)</script>","x"" onload=""alert(1)",10,33.75,-84.39,40.71,-74.01',
  'c4,javascript:alert(1),<image href=file:///etc/passwd/>,"<foreignObject><div onclick=alert(1)>x</div></foreignObject>",10,47.6,-122.3,37.8,-122.4',
].join('\n')}\n`;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const LIMITS = { maxSide: 8192, maxPixels: 16_777_216 };

const revision = (capacityAbove: string) => ({
  name: 'Circuits',
  query: {
    endpoint: 'spreadsheet?sheet_id=circuits&sheet_name=circuits', node_deduplication_field: null, node_group_criteria: null, node_group_layout: null,
    filters: [{ field: 'capacity', operator: 'not_equal', value: [capacityAbove] }],
  },
});

let t: Started;
let dataset: string;
let mapId: string;

before(async () => {
  t = await start();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  await writeFile(path.join(sheets, 'circuits.csv'), CSV);
  dataset = (await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision('0') }))).datasetId;
  for (const v of ['0', '40']) {
    assert.equal((await t.request(`/api/v1/dataset/id/${dataset}/`, { method: 'PUT', token: t.write, json: revision(v) })).status, 200);
  }
  mapId = (await createMap(t, 'Backbone', { configuration: { background: '#eeeeee', showLegend: true,
    layers: [{ name: 'core', datasetId: dataset, layout: 'geographic' }, { name: 'live', datasetId: dataset, datatype: 'dynamic', layout: 'geographic' }] } })).mapId;
  assert.equal((await t.request(`/api/v1/map/id/${mapId}/publish/`, { method: 'POST', token: t.publish })).status, 200);
});
after(async () => { await t.close(); });

/** Width and height from the PNG's IHDR chunk, after checking the signature. */
function pngSize(png: Buffer) {
  assert.deepEqual(png.subarray(0, 8), SIGNATURE, 'PNG signature');
  assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The SVG's size in pixels: its root's width and height when it has them, else its viewBox's, rounded as resvg rounds. */
const svgSize = (svg: string) => {
  const root = /<svg\b[^>]*>/.exec(svg)![0];
  const box = / viewBox="([^"]+)"/.exec(root)![1].split(/[\s,]+/).map(Number);
  const side = (name: string, fromBox: number) => Number(new RegExp(` ${name}="(\\d+)"`).exec(root)?.[1] ?? Math.round(fromBox));
  return { width: side('width', box[2]), height: side('height', box[3]) };
};

describe('GET …/png/: the SVG route\'s picture as PNG', () => {
  const routes = (): Array<[string, string, string | undefined]> => [
    ['dataset output, geographic snapshot', `/api/v1/output/dataset/${dataset}/geographic/snapshot/{f}/`, t.read],
    ['dataset output, logical live (alias)', `/api/v1/output/dataset/${dataset}/logical/live/{f}/?version=2`, t.read],
    ['map output', `/api/v1/output/map/${mapId}/{f}/`, t.write],
    ['public map output, no token', `/api/v1/public/output/map/${mapId}/{f}/`, undefined],
    ['diff picture', `/api/v1/output/dataset/${dataset}/diff/geographic/{f}/?from=2&to=3`, t.read],
    ['diff picture, logical, defaults', `/api/v1/output/dataset/${dataset}/diff/logical/{f}`, t.read],
  ];
  for (const [name, index] of ['dataset output, geographic snapshot', 'dataset output, logical live (alias)', 'map output',
    'public map output, no token', 'diff picture', 'diff picture, logical, defaults'].map((n, i) => [n, i] as const)) {
    it(`${name}: a PNG of the SVG's size, the SVG rasterized, with PNG headers`, async () => {
      const [, url, token] = routes()[index];
      const svgRes = await t.request(url.replace('{f}', 'svg'), { token });
      assert.equal(svgRes.status, 200, await svgRes.clone().text());
      const svg = await svgRes.text();
      const res = await t.request(url.replace('{f}', 'png'), { token });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get('content-type'), 'image/png');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assert.match(res.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{22}"$/);
      const png = Buffer.from(await res.arrayBuffer());
      assert.deepEqual(pngSize(png), svgSize(svg));
      assert.ok(png.equals(await renderPng(svg, LIMITS)), 'the PNG is the served SVG rasterized');
    });
  }

  it('If-None-Match with the PNG\'s ETag: 304 with the same ETag and no body; another tag: 200', async () => {
    const url = `/api/v1/public/output/map/${mapId}/png/`;
    const first = await t.request(url);
    const etag = first.headers.get('etag')!;
    const again = await t.request(url, { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('etag'), etag);
    assert.equal(again.headers.get('cache-control'), 'no-cache');
    assert.equal((await again.arrayBuffer()).byteLength, 0);
    assert.notEqual(etag, (await t.request(url.replace('png', 'svg'))).headers.get('etag'), 'PNG and SVG have their own tags');
    assert.equal((await t.request(url, { headers: { 'If-None-Match': '"other"' } })).status, 200);
  });

  it('the same failures as the SVG route: unknown map 404 for both, no token 401, unknown format 404', async () => {
    for (const f of ['svg', 'png']) {
      assert.equal((await t.request(`/api/v1/public/output/map/Nope000/${f}/`)).status, 404);
      assert.equal((await t.request(`/api/v1/output/map/${mapId}/${f}/`)).status, 401);
      assert.equal((await t.request(`/api/v1/output/dataset/${dataset}/diff/geographic/${f}/?from=x`, { token: t.read })).status, 400);
    }
    assert.equal((await t.request(`/api/v1/output/dataset/${dataset}/geographic/snapshot/gif/`, { token: t.read })).status, 404);
  });

  it('hostile spreadsheet values are in the picture only as sanitized SVG text', async () => {
    const svg = await (await t.request(`/api/v1/output/dataset/${dataset}/geographic/snapshot/svg/?version=2`, { token: t.read })).text();
    assert.deepEqual(activeContent(svg), []);
    assert.match(svg, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, 'the value is there, as text');
    const png = Buffer.from(await (await t.request(`/api/v1/output/dataset/${dataset}/geographic/snapshot/png/?version=2`, { token: t.read })).arrayBuffer());
    assert.ok(png.equals(await renderPng(svg, LIMITS)));
  });
});

describe('PNG size limits (output.pngMaxSide, output.pngMaxPixels)', () => {
  const cases: Array<[string, Record<string, number>, RegExp]> = [
    ['wider than pngMaxSide', { pngMaxSide: 1000 }, /1200 x 700 px: a PNG is at most 1000 px on a side/],
    ['more pixels than pngMaxPixels', { pngMaxPixels: 800_000 }, /1200 x 700 px \(840000 px\): a PNG is at most 800000 px in all/],
  ];
  for (const [name, output, detail] of cases) {
    it(`${name}: 422 naming the size and the limit; the SVG is still served`, async () => {
      const small = await makeTestApp({ settings: { output } });
      try {
        const token = await small.token();
        // A viewport frames the picture at 1200 x 700 px.
        const created = await small.request('/api/v1/map/', { method: 'POST', token,
          json: { name: 'Viewport map', configuration: { viewport: { center: { lat: 45, lng: 0 }, zoom: 4 }, layers: [] } } });
        const id = (await body(created)).mapId;
        const res = await small.request(`/api/v1/output/map/${id}/png/`, { token });
        assert.equal(res.status, 422);
        const problem = await body(res);
        assert.equal(problem.code, 'validation_failed');
        assert.match(problem.detail, detail);
        assert.equal((await small.request(`/api/v1/output/map/${id}/svg/`, { token })).status, 200);
      } finally {
        await small.close();
      }
    });
  }
});
