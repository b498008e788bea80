// Output routes through HTTP (docs/api.md: Output): dataset output in all its
// path forms, authenticated and public map output with the visibility rules,
// the unsaved preview, the SVG variants with their headers, and conditional
// GETs on the ETag of each output's bytes.
import { DOMParser } from '@xmldom/xmldom';
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, start, type Started } from './fixtures.ts';

// Four circuits; CHIC and NEWY each appear twice, so 4 distinct nodes and
// two parallel circuits between CHIC and NEWY.
const CSV = `${[
  'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude',
  'c1,CHIC-NEWY 1,CHIC,NEWY,100,41.88,-87.63,40.71,-74.01',
  'c2,CHIC-NEWY 2,CHIC,NEWY,100,41.88,-87.63,40.71,-74.01',
  'c3,CHIC-DENV,CHIC,DENV,40,41.88,-87.63,39.74,-104.99',
  'c4,"ATLA <&> ""HQ""",ATLA,NEWY,10,33.75,-84.39,40.71,-74.01',
].join('\n')}\n`;

const endpoint = (sheet: string) => `spreadsheet?${new URLSearchParams({ sheet_id: sheet, sheet_name: sheet })}`;
const revision = (filters: unknown[], sheet = 'circuits') => ({
  name: 'Circuits',
  query: { endpoint: endpoint(sheet), filters, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null },
});
const ALL = [{ field: 'capacity', operator: 'not_equal', value: ['0'] }];

let t: Started;
let sheetFile: string;
let executed: string; // dataset with results at v2
let unexecuted: string; // dataset created only (no results)
let template: string;

before(async () => {
  t = await start();
  const sheets = t.settings.datasources.spreadsheet.dir;
  await mkdir(sheets, { recursive: true });
  sheetFile = path.join(sheets, 'circuits.csv');
  await writeFile(sheetFile, CSV);
  const a = await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision([]) }));
  const put = await t.request(`/api/v1/dataset/id/${a.datasetId}/`, { method: 'PUT', token: t.write, json: revision(ALL) });
  assert.equal(put.status, 200);
  executed = a.datasetId;
  unexecuted = (await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision([]) }))).datasetId;
  template = (await body(await t.request('/api/v1/template/', {
    method: 'POST', token: t.write,
    json: { name: 'Marked', template: '<g data-width="12" data-height="12"><circle r="6" class="marked-node"/><text>{{ name }}</text></g>' },
  }))).templateId;
});
after(async () => { await t.close(); });

const out = (id: string, layout: string, datatype: string, type: string, query = '') =>
  t.request(`/api/v1/output/dataset/${id}/${layout}/${datatype}/${type}/${query}`, { token: t.read });

function parseSvg(text: string) {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, msg) => { if (level !== 'warning') errors.push(msg); } })
    .parseFromString(text, 'image/svg+xml');
  assert.deepEqual(errors, [], 'SVG parses as XML');
  assert.equal(doc.documentElement?.nodeName, 'svg');
  return doc;
}

function assertSvgHeaders(res: Response) {
  assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
  assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
}

describe('GET /api/v1/output/dataset/{id}/{layout}/{datatype}/{output_type}/', () => {
  it('geographic snapshot JSON: one node per endpoint name, one edge per circuit, coordinates from the sheet', async () => {
    const res = await out(executed, 'geographic', 'snapshot', 'json');
    assert.equal(res.status, 200);
    const topo = await body(res);
    assert.equal(topo.name, 'Circuits');
    assert.deepEqual(topo.nodes.map((n: any) => n.name).sort(), ['ATLA', 'CHIC', 'DENV', 'NEWY']);
    assert.equal(topo.edges.length, 4);
    const chic = topo.nodes.find((n: any) => n.name === 'CHIC');
    assert.deepEqual(chic.coordinate, [41.88, -87.63]);
    assert.equal(typeof chic.meta.svg, 'string');
    const names = topo.edges.map((e: any) => e.name);
    assert.equal(new Set(names).size, 4, 'parallel circuits keep distinct names');
  });

  it('dynamic and its alias live query the sheet now; snapshot keeps the stored results', async () => {
    await writeFile(sheetFile, `${CSV}c5,DENV-SEAT,DENV,SEAT,100,39.74,-104.99,47.61,-122.33\n`);
    try {
      for (const datatype of ['dynamic', 'live']) {
        const topo = await body(await out(executed, 'geographic', datatype, 'json'));
        assert.equal(topo.edges.length, 5, datatype);
      }
      assert.equal((await body(await out(executed, 'geographic', 'snapshot', 'json'))).edges.length, 4);
    } finally {
      await writeFile(sheetFile, CSV);
    }
  });

  it('logical layout places every node inside a small lat/lng box, the same for the same input', async () => {
    const a = await body(await out(executed, 'logical', 'snapshot', 'json'));
    const b = await body(await out(executed, 'logical', 'snapshot', 'json'));
    assert.deepEqual(a, b);
    for (const n of a.nodes) {
      assert.ok(Math.abs(n.coordinate[0]) <= 90 && Math.abs(n.coordinate[1]) <= 180, n.name);
    }
  });

  it('svg: parses as XML, carries the headers, draws nodes and edges, escapes sheet values', async () => {
    const res = await out(executed, 'geographic', 'snapshot', 'svg');
    assert.equal(res.status, 200);
    assertSvgHeaders(res);
    const text = await res.text();
    const doc = parseSvg(text);
    assert.ok(doc.getElementsByTagName('path').length >= 4, 'edges drawn as paths');
    assert.ok(!text.includes('<&>'), 'raw markup characters never reach the SVG');
  });

  it('?template= renders nodes with that template; an unknown template is 404', async () => {
    const topo = await body(await out(executed, 'geographic', 'snapshot', 'json', `?template=${template}`));
    assert.ok(topo.nodes.every((n: any) => n.meta.svg.includes('marked-node')));
    const atla = topo.nodes.find((n: any) => n.name === 'ATLA');
    assert.ok(atla.meta.svg.includes('ATLA'));
    assert.equal((await out(executed, 'geographic', 'snapshot', 'json', '?template=Zz9Zz9Z')).status, 404);
  });

  it('?version= picks a version; a snapshot of a version without results runs that version\'s query live and says so', async () => {
    const v2 = await body(await out(executed, 'geographic', 'snapshot', 'json', '?version=2'));
    assert.equal(v2.warnings, undefined);
    // Version 1 was created with no filters: its own query (every row), not version 2's, run live.
    const v1 = await out(executed, 'geographic', 'snapshot', 'json', '?version=1');
    assert.equal(v1.status, 200);
    const live = await body(v1);
    assert.deepEqual(live.warnings, [`dataset ${executed} version 1 has no stored results (it was created, never updated): drawn from a live run of its query`]);
    const all = await body(await out(executed, 'geographic', 'dynamic', 'json', '?version=1'));
    assert.deepEqual(live.edges, all.edges);
    assert.equal((await out(executed, 'geographic', 'snapshot', 'json', '?version=9')).status, 404);
    const created = await out(unexecuted, 'geographic', 'static', 'svg');
    assert.equal(created.status, 200, 'a map layer on "Static Version 1" has a picture');
    assert.match(await created.text(), /^<svg /);
  });

  it('an empty ?template= or ?version= counts as absent, as it does in a layer\'s mapjsonUrl', async () => {
    const plain = await (await out(executed, 'geographic', 'snapshot', 'json')).text();
    for (const query of ['?template=', '?version=', '?template=&version=']) {
      const res = await out(executed, 'geographic', 'snapshot', 'json', query);
      assert.equal(res.status, 200, query);
      assert.equal(await res.text(), plain, query);
    }
  });

  const bad: Array<[string, string, number]> = [
    ['unknown layout', `${'x'}/circular/snapshot/json`, 404],
    ['unknown datatype', 'x/geographic/cached/json', 404],
    ['unknown output type', 'x/geographic/snapshot/gif', 404],
    ['unknown dataset', 'ZZZZZZ9/geographic/snapshot/json', 404],
    ['malformed dataset ID', '../../x/geographic/snapshot/json', 404],
    ['malformed known query parameter', 'x/geographic/snapshot/json?version=abc', 400],
  ];
  for (const [name, tail, status] of bad) {
    it(`${name} is ${status}`, async () => {
      const res = await t.request(`/api/v1/output/dataset/${tail.replace(/^x\//, `${executed}/`)}`, { token: t.read });
      assert.equal(res.status, status);
      assert.ok((await body(res)).detail);
    });
  }

  it('dynamic output while the sheet is missing is 503 naming the problem', async () => {
    await rm(sheetFile);
    try {
      const res = await out(executed, 'geographic', 'dynamic', 'json');
      assert.equal(res.status, 503);
      assert.ok((await body(res)).detail);
    } finally {
      await writeFile(sheetFile, CSV);
    }
  });

  it('needs the read scope', async () => {
    assert.equal((await t.request(`/api/v1/output/dataset/${executed}/geographic/snapshot/json/`)).status, 401);
    const res = await t.request(`/api/v1/output/dataset/${executed}/geographic/snapshot/json/`, { token: t.write });
    assert.equal(res.status, 403);
  });
});

const mapBody = (overrides: Record<string, unknown> = {}, layers?: unknown[]) => ({
  name: 'Output map',
  configuration: {
    background: '#102030',
    showLegend: true,
    layers: layers ?? [
      { name: 'Core', color: '#ff0000', datasetId: executed, layout: 'geographic', datatype: 'snapshot' },
      { name: 'Inline', mapjson: JSON.stringify({ name: 'inline', nodes: [{ name: 'X', coordinate: [10, 10], meta: {} }], edges: [] }) },
    ],
    customKey: { kept: true },
  },
  overrides,
});

async function createMap(json: unknown) {
  const res = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json });
  assert.equal(res.status, 201);
  return (await body(res)).mapId as string;
}

describe('GET /api/v1/output/map/{mapId}/, /json/ and /svg/', () => {
  it('a layer on "Static Version 1" of a dataset only created is drawn from a live run, with a warning naming the layer', async () => {
    const id = await createMap(mapBody({}, [{ name: 'New', mapjsonUrl: `/api/v1/output/dataset/${unexecuted}/geographic/static/?version=1` }]));
    const map = await body(await t.request(`/api/v1/output/map/${id}/json/`, { token: t.write }));
    assert.ok(JSON.parse(map.configuration.layers[0].mapjson).edges.length > 0);
    assert.deepEqual(map.warnings, [`layer 1 ("New"): dataset ${unexecuted} version 1 has no stored results (it was created, never updated): drawn from a live run of its query`]);
    assert.equal((await t.request(`/api/v1/output/map/${id}/svg/`, { token: t.write })).status, 200);
  });

  it('the bare route answers the configuration, layers at the top level, with Terranova\'s defaults filled in; the stored map stays as sent', async () => {
    const id = await createMap(mapBody());
    const res = await t.request(`/api/v1/output/map/${id}/`, { token: t.write });
    assert.equal(res.status, 200);
    const config = await body(res);
    assert.equal(config.mapId, undefined);
    assert.equal(config.background, '#102030', 'a stored value wins');
    assert.deepEqual(config.customKey, { kept: true });
    assert.deepEqual(config.thresholds, []);
    assert.deepEqual(config.tileset, { geographic: null, boundaries: null, labels: null });
    assert.equal(config.layers.length, 2);
    for (const layer of config.layers) {
      assert.equal(typeof layer.mapjson, 'string');
      for (const field of ['visible', 'nodeWidth', 'edgeWidth', 'pathOffset', 'color', 'endpointId']) assert.notEqual(layer[field], undefined, field);
    }
    assert.equal(config.layers[0].color, '#ff0000', 'a stored layer value wins');
    assert.equal(config.layers[0].visible, true);
    assert.equal(config.layers[0].endpointId, 'names');
    const stored = await body(await t.request(`/api/v1/map/id/${id}/`, { token: t.read }));
    assert.equal(stored.configuration.thresholds, undefined);
    assert.equal(stored.configuration.layers[0].visible, undefined);
  });

  it('json/ resolves each layer into mapjson (a JSON string) and keeps unknown configuration keys', async () => {
    const id = await createMap(mapBody());
    const res = await t.request(`/api/v1/output/map/${id}/json/`, { token: t.write });
    assert.equal(res.status, 200);
    const m = await body(res);
    assert.equal(m.mapId, id);
    assert.deepEqual(m.configuration.customKey, { kept: true });
    const [core, inline] = m.configuration.layers.map((l: any) => JSON.parse(l.mapjson));
    assert.equal(core.edges.length, 4);
    assert.deepEqual(inline.nodes.map((n: any) => n.name), ['X']);
  });

  // Terranova's rules: nodes and edges are overridden by name independently
  // (deleting a node leaves circuits that name it; delete those by edge name).
  it('applies overrides: delete removes a node or an edge, add adds one, render:false is inactive', async () => {
    const id = await createMap(mapBody({
      [executed]: {
        nodes: {
          DENV: { operation: 'delete' },
          ATLA: { operation: 'delete', render: false },
          SEAT: { operation: 'add', state: { name: 'SEAT', coordinate: [47.61, -122.33], meta: {} } },
        },
        edges: { 'CHIC-DENV': { operation: 'delete' } },
      },
    }));
    const m = await body(await t.request(`/api/v1/output/map/${id}/json/`, { token: t.write }));
    const core = JSON.parse(m.configuration.layers[0].mapjson);
    assert.deepEqual(core.nodes.map((n: any) => n.name).sort(), ['ATLA', 'CHIC', 'NEWY', 'SEAT']);
    // The added node has no markup of its own: it gets the layer's marker like the others.
    const seat = core.nodes.find((n: any) => n.name === 'SEAT');
    const chic = core.nodes.find((n: any) => n.name === 'CHIC');
    assert.equal(typeof seat.meta.svg, 'string');
    assert.equal(seat.meta.svg.replaceAll('SEAT', 'CHIC'), chic.meta.svg);
    assert.deepEqual(core.edges.map((e: any) => e.name).sort(), ['ATLA <&> "HQ"', 'CHIC-NEWY 1', 'CHIC-NEWY 2']);
  });

  it('?version= renders that version of the map', async () => {
    const id = await createMap(mapBody());
    await t.request(`/api/v1/map/id/${id}/`, { method: 'PUT', token: t.write, json: { ...mapBody(), name: 'Renamed' } });
    assert.equal((await body(await t.request(`/api/v1/output/map/${id}/json/?version=1`, { token: t.write }))).name, 'Output map');
    assert.equal((await body(await t.request(`/api/v1/output/map/${id}/json/`, { token: t.write }))).name, 'Renamed');
  });

  it('svg: a picture with the background, a legend and the layer colour', async () => {
    const id = await createMap(mapBody());
    const res = await t.request(`/api/v1/output/map/${id}/svg/`, { token: t.write });
    assert.equal(res.status, 200);
    assertSvgHeaders(res);
    const text = await res.text();
    parseSvg(text);
    assert.match(text, /#102030/i);
    assert.match(text, /#ff0000/i);
    assert.match(text, />Core</);
  });

  // Terranova's editor: picking a stored version writes …/static/?version=N; a new layer has no data yet.
  it('takes the editor\'s mapjsonUrl (static, version) and a layer with no data (mapjson null, a warning)', async () => {
    const url = `https://editor.example/api/v1/output/dataset/${executed}/geographic/static/?version=2`;
    const id = await createMap(mapBody({}, [{ name: 'Picked', datasetId: 'Stale12', mapjsonUrl: url }, { name: 'New layer' }]));
    for (const path of [`/api/v1/output/map/${id}/`, `/api/v1/output/map/${id}/json/`]) {
      const res = await t.request(path, { token: t.write });
      assert.equal(res.status, 200, path);
      const out = await body(res);
      const layers = (out.layers ?? out.configuration.layers);
      assert.equal(JSON.parse(layers[0].mapjson).edges.length, 4, 'the URL wins over a datasetId naming another dataset');
      assert.equal(layers[0].mapjsonUrl, url);
      assert.equal(layers[1].mapjson, null);
      assert.match(out.warnings[0], /layer 2 \("New layer"\) names no data yet/);
    }
    assert.equal((await t.request(`/api/v1/output/map/${id}/svg/`, { token: t.write })).status, 200);
    const direct = await t.request(`/api/v1/output/dataset/${executed}/geographic/static/?version=2`, { token: t.read });
    assert.equal(direct.status, 200, 'the URL the editor fetches itself');
    assert.equal((await body(direct)).edges.length, 4);
  });

  it('adds the equivalent mapjsonUrl to a datasetId layer, absolute from server.baseUrl', async () => {
    const id = await createMap(mapBody());
    const config = await body(await t.request(`/api/v1/output/map/${id}/`, { token: t.write }));
    assert.equal(config.layers[0].mapjsonUrl, `${t.settings.server.baseUrl}/api/v1/output/dataset/${executed}/geographic/static/`);
    assert.equal(config.layers[1].mapjsonUrl, undefined, 'an inline layer gets none');
  });

  it('svg: a map without a viewport is fitted to its content, not framed by the defaults clients get', async () => {
    const fitted = await createMap(mapBody());
    const framed = await createMap({ ...mapBody(), configuration: { ...mapBody().configuration, initialViewStrategy: 'static', viewport: { center: { lat: 39, lng: -98 }, zoom: 3 } } });
    const picture = async (id: string) => (await t.request(`/api/v1/output/map/${id}/svg/`, { token: t.write })).text();
    const viewBox = (svg: string) => /viewBox="([^"]+)"/.exec(svg)?.[1];
    assert.notEqual(viewBox(await picture(fitted)), viewBox(await picture(framed)));
  });

  it('a layer whose dataset is unknown is 404 naming the layer, not a 500', async () => {
    const id = await createMap(mapBody({}, [{ name: 'Ghost', datasetId: 'Gh0st00' }]));
    const res = await t.request(`/api/v1/output/map/${id}/`, { token: t.write });
    assert.equal(res.status, 404);
    assert.match((await body(res)).detail, /layer 1 \("Ghost"\)/);
  });

  it('a layer over an unreadable sheet with dynamic data is 503 naming the layer', async () => {
    const id = await createMap(mapBody({}, [{ name: 'Live', datasetId: executed, datatype: 'dynamic' }]));
    await rm(sheetFile);
    try {
      const res = await t.request(`/api/v1/output/map/${id}/svg/`, { token: t.write });
      assert.equal(res.status, 503);
      assert.match((await body(res)).detail, /layer 1 \("Live"\)/);
    } finally {
      await writeFile(sheetFile, CSV);
    }
  });

  it('needs the write scope', async () => {
    const id = await createMap(mapBody());
    assert.equal((await t.request(`/api/v1/output/map/${id}/`, { token: t.read })).status, 403);
    assert.equal((await t.request(`/api/v1/output/map/${id}/svg/`)).status, 401);
  });
});

describe('public map output', () => {
  it('404 while unpublished, 200 once published, 404 again after unpublish', async () => {
    const id = await createMap(mapBody());
    const urls = [`/api/v1/public/output/map/${id}/`, `/api/v1/public/output/map/${id}/svg/`, `/api/v1/public/output/map/${id}/json/`];
    for (const url of urls) assert.equal((await t.request(url)).status, 404, url);
    await t.request(`/api/v1/map/id/${id}/publish/`, { method: 'POST', token: t.publish });
    const json = await t.request(urls[0]);
    assert.equal(json.status, 200);
    assert.equal(JSON.parse((await body(json)).layers[0].mapjson).edges.length, 4);
    const whole = await body(await t.request(urls[2]));
    assert.deepEqual([whole.mapId, whole.version, whole.public], [id, 2, true]);
    assert.equal(whole.change, undefined, 'history stamps stay out of outputs');
    assert.equal(JSON.parse(whole.configuration.layers[0].mapjson).edges.length, 4);
    const svg = await t.request(urls[1]);
    assert.equal(svg.status, 200);
    assertSvgHeaders(svg);
    parseSvg(await svg.text());
    await t.request(`/api/v1/map/id/${id}/unpublish/`, { method: 'POST', token: t.publish });
    for (const url of urls) assert.equal((await t.request(url)).status, 404, url);
  });

  it('shows only versions stored as public', async () => {
    const id = await createMap(mapBody()); // v1 private
    await t.request(`/api/v1/map/id/${id}/publish/`, { method: 'POST', token: t.publish }); // v2 public
    assert.equal((await t.request(`/api/v1/public/output/map/${id}/?version=2`)).status, 200);
    assert.equal((await t.request(`/api/v1/public/output/map/${id}/?version=1`)).status, 404);
  });

  it('unknown and malformed IDs are 404', async () => {
    assert.equal((await t.request('/api/v1/public/output/map/Nope000/')).status, 404);
    assert.equal((await t.request('/api/v1/public/output/map/%2e%2e%2fx/svg/')).status, 404);
  });
});

describe('PATCH /api/v1/output/map/', () => {
  it('renders an unsaved MapRevision and stores nothing', async () => {
    const before = (await t.request('/api/v1/maps/', { token: t.read })).headers.get('x-total-count');
    const res = await t.request('/api/v1/output/map/', { method: 'PATCH', token: t.write, json: mapBody() });
    assert.equal(res.status, 200);
    const m = await body(res);
    assert.equal(m.name, 'Output map');
    assert.equal(JSON.parse(m.configuration.layers[0].mapjson).edges.length, 4);
    const after = (await t.request('/api/v1/maps/', { token: t.read })).headers.get('x-total-count');
    assert.equal(after, before);
  });

  it('an invalid revision is 422 with errors[]', async () => {
    const res = await t.request('/api/v1/output/map/', { method: 'PATCH', token: t.write, json: { configuration: { background: 'url(javascript:x)' } } });
    assert.equal(res.status, 422);
    assert.ok((await body(res)).errors.length > 0);
  });

  it('needs the write scope', async () => {
    assert.equal((await t.request('/api/v1/output/map/', { method: 'PATCH', token: t.read, json: mapBody() })).status, 403);
  });
});

// Pollers revalidate outputs: a strong ETag of the bytes, Cache-Control: no-cache, 304 on a match.
describe('conditional GETs of outputs', () => {
  // Resources of their own, over a sheet of their own: the changes below leave the tests above alone.
  const SHEET = 'etag';
  let sheet: string;
  before(async () => {
    sheet = path.join(t.settings.datasources.spreadsheet.dir, `${SHEET}.csv`);
    await writeFile(sheet, CSV);
  });

  const newDataset = async () => {
    const a = await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision([], SHEET) }));
    await t.request(`/api/v1/dataset/id/${a.datasetId}/`, { method: 'PUT', token: t.write, json: revision(ALL, SHEET) });
    return a.datasetId as string;
  };
  // A new dataset version whose stored results lack the ATLA circuit.
  const newDatasetVersion = (id: string) => async () => {
    const fewer = [{ field: 'capacity', operator: 'not_equal', value: ['10'] }];
    assert.equal((await t.request(`/api/v1/dataset/id/${id}/`, { method: 'PUT', token: t.write, json: revision(fewer, SHEET) })).status, 200);
  };
  const newMap = async (publish = false) => {
    const id = await createMap(mapBody({}, [{ name: 'Core', color: '#ff0000', datasetId: await newDataset(), layout: 'geographic', datatype: 'snapshot' }]));
    if (publish) await t.request(`/api/v1/map/id/${id}/publish/`, { method: 'POST', token: t.publish });
    return id;
  };
  // A new map version (it stays public if it was) with another name and background.
  const newMapVersion = (id: string) => async () => {
    const json = { name: 'Repainted', configuration: { background: '#203040', layers: [] }, overrides: {} };
    assert.equal((await t.request(`/api/v1/map/id/${id}/`, { method: 'PUT', token: t.write, json })).status, 200);
  };

  interface Case { url: string; token?: string; svg: boolean; change: () => Promise<unknown> }
  const cases: Array<[string, () => Promise<Case>]> = [
    ['dataset json', async () => {
      const id = await newDataset();
      return { url: `/api/v1/output/dataset/${id}/geographic/snapshot/json/`, token: t.read, svg: false, change: newDatasetVersion(id) };
    }],
    ['dataset svg', async () => {
      const id = await newDataset();
      return { url: `/api/v1/output/dataset/${id}/logical/snapshot/svg/`, token: t.read, svg: true, change: newDatasetVersion(id) };
    }],
    ['dynamic dataset json', async () => {
      const id = await newDataset();
      const change = () => writeFile(sheet, `${CSV}c5,DENV-SEAT,DENV,SEAT,100,39.74,-104.99,47.61,-122.33\n`);
      return { url: `/api/v1/output/dataset/${id}/geographic/dynamic/json/`, token: t.read, svg: false, change };
    }],
    ['map json', async () => {
      const id = await newMap();
      return { url: `/api/v1/output/map/${id}/`, token: t.write, svg: false, change: newMapVersion(id) };
    }],
    ['map svg', async () => {
      const id = await newMap();
      return { url: `/api/v1/output/map/${id}/svg/`, token: t.write, svg: true, change: newMapVersion(id) };
    }],
    ['public map json', async () => {
      const id = await newMap(true);
      return { url: `/api/v1/public/output/map/${id}/`, svg: false, change: newMapVersion(id) };
    }],
    ['public map svg', async () => {
      const id = await newMap(true);
      return { url: `/api/v1/public/output/map/${id}/svg/`, svg: true, change: newMapVersion(id) };
    }],
  ];

  for (const [name, setup] of cases) {
    describe(name, () => {
      let c: Case;
      before(async () => {
        await writeFile(sheet, CSV);
        c = await setup();
      });
      const get = (ifNoneMatch?: string, method = 'GET') =>
        t.request(c.url, { method, token: c.token, headers: ifNoneMatch === undefined ? {} : { 'If-None-Match': ifNoneMatch } });
      const current = async () => {
        const res = await get();
        assert.equal(res.status, 200);
        const etag = res.headers.get('etag') ?? '';
        assert.match(etag, /^"[\w-]{22}"$/, 'a strong ETag');
        assert.equal(res.headers.get('cache-control'), 'no-cache');
        if (c.svg) assertSvgHeaders(res);
        return { etag, text: await res.text() };
      };

      it('200 carries an ETag of the bytes and Cache-Control: no-cache; the same bytes, the same ETag', async () => {
        const a = await current();
        const b = await current();
        assert.equal(b.text, a.text);
        assert.equal(b.etag, a.etag);
      });

      it('If-None-Match with the ETag (alone, weak, in a list, or *) is 304 with no body, the ETag and Cache-Control', async () => {
        const { etag } = await current();
        for (const [header, method] of [[etag, 'GET'], [`W/${etag}`, 'GET'], [`"other", ${etag}`, 'GET'], [' * ', 'GET'], [etag, 'HEAD']]) {
          const res = await get(header, method);
          assert.equal(res.status, 304, header);
          assert.equal(await res.text(), '', header);
          // RFC 9110 15.4.5: what a 200 would carry of ETag, Cache-Control, Content-Location, Date, Expires, Vary.
          assert.equal(res.headers.get('etag'), etag, header);
          assert.equal(res.headers.get('cache-control'), 'no-cache', header);
        }
      });

      it('a stale or different ETag is 200 with the body and the current ETag', async () => {
        const { etag, text } = await current();
        for (const header of ['"stale"', `W/"x", ${etag.slice(0, -2)}"`, etag.slice(1, -1)]) {
          const res = await get(header);
          assert.equal(res.status, 200, header);
          assert.equal(res.headers.get('etag'), etag, header);
          assert.equal(await res.text(), text, header);
        }
      });

      it('after a change the ETag changes: the old one is 200, the new one 304', async () => {
        const before = await current();
        await c.change();
        const res = await get(before.etag);
        assert.equal(res.status, 200);
        const etag = res.headers.get('etag') ?? '';
        assert.match(etag, /^"[\w-]{22}"$/);
        assert.notEqual(etag, before.etag);
        assert.notEqual(await res.text(), before.text);
        assert.equal((await get(etag)).status, 304);
      });
    });
  }

  it('errors carry no ETag and are never 304: a missing sheet is 503 even to If-None-Match *', async () => {
    await writeFile(sheet, CSV);
    const url = `/api/v1/output/dataset/${await newDataset()}/geographic/dynamic/json/`;
    const ok = await t.request(url, { token: t.read });
    assert.match(ok.headers.get('etag') ?? '', /^"[\w-]{22}"$/);
    await rm(sheet);
    try {
      for (const header of [ok.headers.get('etag')!, '*']) {
        const res = await t.request(url, { token: t.read, headers: { 'If-None-Match': header } });
        assert.equal(res.status, 503);
        assert.equal(res.headers.get('etag'), null);
        assert.equal(res.headers.get('cache-control'), null);
      }
    } finally {
      await writeFile(sheet, CSV);
    }
    const hidden = await t.request('/api/v1/public/output/map/Nope000/svg/', { headers: { 'If-None-Match': '*' } });
    assert.equal(hidden.status, 404);
    assert.equal(hidden.headers.get('etag'), null);
  });
});
