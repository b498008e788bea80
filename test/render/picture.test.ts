// Pictures as a person sees them (issue 5): the published demo map, fetched
// from the public SVG route of the real app over a copy of data/, is
// (a) rasterized with resvg and (b) opened in headless Chromium. Node
// positions are projected here with d3-geo from the map output JSON and the
// framing rule of docs/render.md (Leaflet scale, center of a 1200x700 frame),
// not with the renderer's own helpers.
import { serve } from '@hono/node-server';
import { Resvg } from '@resvg/resvg-js';
import { geoMercator } from 'd3-geo';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { skipWithout } from '../helpers/components.ts';
import { makeDemoApp, type TestApp } from '../helpers/app.ts';
import { pictureBoxes } from './picture-geometry.ts';

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = ['<script>alert(1)</script>', '" onload="alert(1)', "' onmouseover='alert(1)"];

type Rgb = [number, number, number];
/** `colour` is the node's marker; `anchor` the layer colour of the dot that marks a spread node's true position (docs/render.md). */
interface Spot { layer: string; node: string; x: number; y: number; colour: Rgb; anchor: Rgb }

const hex = (s: string): Rgb => [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16)) as Rgb;
const near = (a: number[], b: number[], tol: number) => a.every((v, i) => Math.abs(v - b[i]) <= tol);

/** RGBA pixels of an SVG (or of a PNG wrapped in an SVG <image>) as resvg draws them. */
function raster(svg: string) {
  const img = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: 'original' } }).render();
  const px = img.pixels;
  return {
    width: img.width,
    height: img.height,
    px,
    at(x: number, y: number): Rgb {
      const i = (Math.round(y) * img.width + Math.round(x)) * 4;
      return [px[i], px[i + 1], px[i + 2]];
    },
  };
}
type Raster = ReturnType<typeof raster>;

const pngRaster = (png: Buffer, w: number, h: number) => raster(
  `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${w}" height="${h}">` +
  `<image width="${w}" height="${h}" xlink:href="data:image/png;base64,${png.toString('base64')}"/></svg>`);

let t: TestApp;
let base: string; // the real app on 127.0.0.1
let server: ReturnType<typeof serve>;
let demoId: string;
let hostileId: string;
let demoSvg: string;
let demoJson: any;
let templates: Record<string, string>;

before(async () => {
  t = await makeDemoApp();
  const published = await (await t.request('/api/v1/public/maps/')).json() as { mapId: string }[];
  assert.equal(published.length, 1, 'the demo data publishes one map');
  demoId = published[0].mapId;

  const token = await t.token();
  const inline = JSON.stringify({
    name: HOSTILE[0], layer: HOSTILE[1],
    nodes: [
      ...HOSTILE.map((name, i) => ({ name, coordinate: [40 + i * 3, -100 + i * 10], meta: { endpoint_name: name, site: HOSTILE[1] } })),
      { name: 'svg-carrier', coordinate: [35, -90], meta: { svg: `<g onload="alert(2)"><script>alert(3)</script><circle r="5"/></g>` } },
    ],
    edges: [{ name: HOSTILE[1], coordinates: [[40, -100], [43, -90]], meta: { endpoint_identifiers: { names: [HOSTILE[0], HOSTILE[1]] } } }],
  });
  const created = await t.request('/api/v1/map/', { method: 'POST', token, json: {
    name: HOSTILE[0], configuration: { background: '#ffffff', showLegend: true,
      layers: [{ name: HOSTILE[1], color: '#d62728', mapjson: inline }] }, overrides: {},
  } });
  assert.equal(created.status, 201, await created.clone().text());
  hostileId = ((await created.json()) as { mapId: string }).mapId;
  const pub = await t.request(`/api/v1/map/id/${hostileId}/publish/`, { method: 'POST', token });
  assert.equal(pub.status, 200, await pub.clone().text());

  const res = await t.request(`/api/v1/public/output/map/${demoId}/svg/`);
  assert.equal(res.status, 200);
  demoSvg = await res.text();
  demoJson = await (await t.request(`/api/v1/public/output/map/${demoId}/json/`)).json();
  // A layer's nodes are drawn by its template; the expected colour is the template's first fill.
  templates = {};
  for (const l of demoJson.configuration.layers) {
    if (!l.templateId) continue;
    const tpl = await (await t.request(`/api/v1/template/id/${l.templateId}/`, { token })).json() as { template: string };
    templates[l.templateId] = /fill="(#[0-9a-f]{6})"/i.exec(tpl.template)![1];
  }

  await new Promise<void>((resolve) => {
    server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      base = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});
after(async () => {
  server?.close();
  await t?.close(true);
});

/**
 * For each layer, the drawn node (one with a template `svg`) farthest from every
 * other node, projected with Web Mercator at Leaflet's scale for the viewport's
 * zoom, centered in a width x height frame; clear of the legend box at the lower left.
 */
function knownSpots(width: number, height: number): Spot[] {
  const { center, zoom } = demoJson.configuration.viewport;
  const p = geoMercator().scale((256 * 2 ** zoom) / (2 * Math.PI)).translate([0, 0]);
  const [cx, cy] = p([center.lng, center.lat])!;
  p.translate([width / 2 - cx, height / 2 - cy]);
  const layers = demoJson.configuration.layers.map((l: any) => ({ l, nodes: JSON.parse(l.mapjson).nodes as any[] }));
  const all = layers.flatMap(({ nodes }: any) => nodes.map((n: any) => p([n.coordinate[1], n.coordinate[0]])!));
  return layers.map(({ l, nodes }: any) => {
    let best: Spot | null = null;
    let bestGap = 0;
    for (const n of nodes.filter((n: any) => n.meta?.svg)) {
      const [x, y] = p([n.coordinate[1], n.coordinate[0]])!;
      if (x < 20 || y < 20 || x > width - 20 || y > height - 20 || (x < 260 && y > height - 120)) continue;
      const gap = Math.min(...all.filter(([ax, ay]: number[]) => ax !== x || ay !== y).map(([ax, ay]: number[]) => Math.hypot(ax - x, ay - y)));
      if (gap > bestGap) {
        bestGap = gap;
        best = { layer: l.name, node: n.name, x, y, colour: hex(l.templateId ? templates[l.templateId] : l.color), anchor: hex(l.color) };
      }
    }
    assert.ok(best && bestGap > 8, `layer ${l.name} has a drawn node clear of the others`);
    return best!;
  });
}

/** An open-ocean spot (mid-Atlantic, south-east of Greenland) where the demo map draws nothing. */
function oceanSpot(width: number, height: number) {
  const { center, zoom } = demoJson.configuration.viewport;
  const p = geoMercator().scale((256 * 2 ** zoom) / (2 * Math.PI)).translate([0, 0]);
  const [cx, cy] = p([center.lng, center.lat])!;
  const [x, y] = p([-35, 52])!;
  return { x: x + width / 2 - cx, y: y + height / 2 - cy };
}

function assertPicture(img: Raster, width: number, height: number, what: string) {
  const spots = knownSpots(width, height);
  assert.equal(spots.length, 3);
  for (const s of spots) {
    assert.ok(near(img.at(s.x, s.y), s.colour, 45) || near(img.at(s.x, s.y), s.anchor, 45),
      `${what}: node ${s.node} (${s.layer}) at ${s.x.toFixed(1)},${s.y.toFixed(1)} is ${img.at(s.x, s.y)}, expected about ${s.colour} or its anchor ${s.anchor}`);
  }
  const o = oceanSpot(width, height);
  assert.ok(near(img.at(o.x, o.y), hex(demoJson.configuration.background), 3),
    `${what}: mid-Atlantic at ${o.x.toFixed(0)},${o.y.toFixed(0)} is the background, got ${img.at(o.x, o.y)}`);
}

describe('demo map rasterized with resvg', () => {
  it('has each layer\'s node colour at projected node positions and the background mid-Atlantic', () => {
    const img = raster(demoSvg);
    const [, , , w, h] = /viewBox="([\d.-]+) ([\d.-]+) ([\d.]+) ([\d.]+)"/.exec(demoSvg)!.map(Number);
    assert.deepEqual([img.width, img.height], [w, h]);
    assertPicture(img, w, h, 'resvg');
  });
});

describe('demo map in headless Chromium', { skip: skipWithout('Chromium', existsSync(CHROMIUM), `${CHROMIUM}: apt-get install chromium`) }, () => {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu',
      '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  });
  after(async () => { await browser?.close(); });

  /** Opens a public map SVG, recording every request, dialog, console message and page error. */
  async function open(mapId: string, viewport = { width: 1200, height: 700 }, query = '') {
    const page = await browser.newPage({ viewport });
    const seen = { requests: [] as string[], dialogs: [] as string[], errors: [] as string[], console: [] as string[] };
    page.on('request', (r) => seen.requests.push(r.url()));
    page.on('dialog', (d) => { seen.dialogs.push(d.message()); void d.dismiss(); });
    page.on('pageerror', (e) => seen.errors.push(String(e)));
    page.on('console', (m) => seen.console.push(m.text()));
    const url = `${base}/api/v1/public/output/map/${mapId}/svg/${query}`;
    const res = await page.goto(url, { waitUntil: 'load' });
    assert.equal(res?.status(), 200);
    assert.equal(res?.headers()['content-security-policy'], "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    await page.waitForTimeout(300); // let anything deferred (onload, timers) have its chance
    return { page, seen, url };
  }

  it('draws the demo map with only the SVG itself requested and no script', async () => {
    const { page, seen, url } = await open(demoId);
    try {
      assert.deepEqual(seen.requests, [url]);
      assert.ok(seen.requests.every((u) => new URL(u).hostname === '127.0.0.1'));
      assert.equal(await page.evaluate(() => document.documentElement.nodeName), 'svg');
      assert.equal(await page.evaluate(() => document.querySelectorAll('script, foreignObject').length), 0);
      assert.deepEqual([seen.dialogs, seen.errors], [[], []]);
      const shot = await page.screenshot({ type: 'png' });
      const img = pngRaster(shot, 1200, 700);
      const colours = new Set<number>();
      for (let i = 0; i < img.px.length; i += 4) colours.add((img.px[i] << 16) | (img.px[i + 1] << 8) | img.px[i + 2]);
      assert.ok(colours.size > 200, `a drawn picture, not a blank page: ${colours.size} distinct colours`);
      // The SVG's natural size is its viewBox's, 1200x700: it fills the window, so nodes are where resvg has them.
      assertPicture(img, 1200, 700, 'chromium');
    } finally {
      await page.close();
    }
  });

  it('scales to the size CSS gives an <img> of it: at 600x400 the whole map shows, at half size', async () => {
    const page = await browser.newPage({ viewport: { width: 600, height: 400 } });
    try {
      const src = `data:image/svg+xml;base64,${Buffer.from(demoSvg).toString('base64')}`;
      await page.setContent(`<body style="margin:0"><img style="display:block;width:600px;height:400px" src="${src}"></body>`, { waitUntil: 'load' });
      const img = pngRaster(await page.screenshot({ type: 'png' }), 600, 400);
      // The 1200x700 view fitted into 600x400: half size, centred vertically (25 px above and below).
      for (const s of knownSpots(1200, 700)) {
        const [x, y] = [s.x / 2, s.y / 2 + 25];
        assert.ok(near(img.at(x, y), s.colour, 60) || near(img.at(x, y), s.anchor, 60), `node ${s.node} at ${x.toFixed(1)},${y.toFixed(1)} is ${img.at(x, y)}, expected about ${s.colour}`);
      }
    } finally {
      await page.close();
    }
  });

  it('shows at its natural size in a bare <img>, and fills the width CSS gives it at its aspect ratio', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      const src = `data:image/svg+xml;base64,${Buffer.from(demoSvg).toString('base64')}`;
      await page.setContent(`<img id="bare" src="${src}"><div style="width:900px"><img id="map" style="width:100%" src="${src}"></div>`, { waitUntil: 'load' });
      const box = (id: string) => page.evaluate((el) => { const b = document.getElementById(el)!.getBoundingClientRect(); return [b.width, b.height]; }, id);
      assert.deepEqual(await box('bare'), [1200, 700], 'not a 300x150 thumbnail');
      assert.deepEqual(await box('map'), [900, 525]);
    } finally {
      await page.close();
    }
  });

  it('takes ?width= as the picture\'s size in px', async () => {
    const { page } = await open(demoId, { width: 1000, height: 800 }, '?width=480');
    try {
      const r = await page.evaluate(() => { const b = document.documentElement.getBoundingClientRect(); return [b.width, b.height]; });
      assert.deepEqual(r, [480, 280]);
    } finally {
      await page.close();
    }
  });

  it('draws each label, node and template text inside the box placement reserved for it', async () => {
    const { page } = await open(demoId);
    try {
      const drawn = await page.evaluate(() => {
        const labels = [...document.querySelectorAll('g.labels > text')].map((t) => {
          const b = (t as SVGGraphicsElement).getBBox();
          return { name: t.textContent, x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height };
        });
        const nodes = [...document.querySelectorAll('g.nodes > g')].map((g) => {
          const [x, y] = /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute('transform')!)!.slice(1).map(Number);
          const b = (g.children[1] as SVGGraphicsElement).getBBox();
          return { name: g.children[0].textContent, x0: x + b.x, y0: y + b.y, x1: x + b.x + b.width, y1: y + b.y + b.height };
        });
        // Text a template draws (the routers' site captions), in its node's frame.
        const texts = [...document.querySelectorAll('text')].filter((t) => !t.closest('g.labels, g.legend, g.cluster-titles, g.traffic-rates, g.traffic-frame')).map((t) => {
          const node = t.closest('g[transform]')!;
          const [x, y] = /translate\(([-\d.]+),([-\d.]+)\)/.exec(node.getAttribute('transform')!)!.slice(1).map(Number);
          const b = (t as SVGGraphicsElement).getBBox();
          return { name: t.textContent, x0: x + b.x, y0: y + b.y, x1: x + b.x + b.width, y1: y + b.y + b.height };
        });
        return { labels, nodes, texts };
      });
      const ours = pictureBoxes(demoSvg);
      assert.equal(drawn.labels.length, ours.labels.length);
      assert.ok(drawn.labels.length > 10);
      const within = (a: { x0: number; y0: number; x1: number; y1: number }, b: typeof a) =>
        a.x0 >= b.x0 - 0.5 && a.y0 >= b.y0 - 0.5 && a.x1 <= b.x1 + 0.5 && a.y1 <= b.y1 + 0.5;
      drawn.labels.forEach((l, i) => { assert.ok(within(l, ours.labels[i].box), `label ${l.name}: drawn ${JSON.stringify(l)}, reserved ${JSON.stringify(ours.labels[i].box)}`); });
      drawn.nodes.forEach((n, i) => { assert.ok(within(n, ours.nodes[i].box), `node ${n.name}: drawn ${JSON.stringify(n)}, reserved ${JSON.stringify(ours.nodes[i].box)}`); });
      assert.equal(drawn.texts.length, ours.texts.length);
      assert.ok(drawn.texts.length > 20, 'the routers\' captions');
      drawn.texts.forEach((x, i) => { assert.ok(within(x, ours.texts[i].box), `text ${x.name}: drawn ${JSON.stringify(x)}, estimated ${JSON.stringify(ours.texts[i].box)}`); });
    } finally {
      await page.close();
    }
  });

  it('shows hostile node names and markup as inert text: no dialog, no script, no handler', async () => {
    const { page, seen, url } = await open(hostileId);
    try {
      assert.deepEqual(seen.requests, [url]);
      assert.deepEqual([seen.dialogs, seen.errors], [[], []]);
      const found = await page.evaluate(() => ({
        scripts: document.querySelectorAll('script, foreignObject').length,
        handlers: [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].map((a) => a.name)).filter((n) => /^on/i.test(n)),
        text: document.documentElement.textContent ?? '',
      }));
      assert.equal(found.scripts, 0);
      assert.deepEqual(found.handlers, []);
      for (const s of HOSTILE) assert.ok(found.text.includes(s), `"${s}" is shown as text`);
    } finally {
      await page.close();
    }
  });
});
