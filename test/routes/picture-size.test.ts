// ?width= and ?height= on every SVG route (docs/api.md: Picture size): the
// picture takes that size in px; a value that is not a whole number from 16
// to 8192, or one given twice, is 400 naming the parameter; other parameters
// stay ignored, and JSON outputs ignore these two. A side is drawn at the size
// step at or above it, so varying the size costs one render per step.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIZE_STEPS_PX } from '../../schema/picture.ts';
import { makeDemoApp, stepClock, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let token: string;
let routes: string[];
let mapId: string;

before(async () => {
  t = await makeDemoApp();
  token = await t.token();
  mapId = ((await (await t.request('/api/v1/public/maps/')).json()) as { mapId: string }[])[0].mapId;
  const datasetId = ((await (await t.request('/api/v1/datasets/', { token })).json()) as { datasetId: string }[])[0].datasetId;
  routes = [
    `/api/v1/output/map/${mapId}/svg/`,
    `/api/v1/public/output/map/${mapId}/svg/`,
    `/api/v1/output/dataset/${datasetId}/geographic/snapshot/svg/`,
    `/api/v1/output/dataset/${datasetId}/logical/static/svg/`,
    `/api/v1/output/dataset/${datasetId}/diff/geographic/svg/`,
  ];
});
after(() => t?.close(true));

const root = (svg: string) => {
  const tag = /^<svg[^>]*>/.exec(svg)![0];
  const get = (name: string) => new RegExp(` ${name}="([^"]*)"`).exec(tag)?.[1] ?? null;
  return { width: get('width'), height: get('height'), viewBox: get('viewBox')!.split(' ').map(Number) };
};
const get = (url: string) => t.request(url, { token });

describe('GET …/svg/?width=&height=', () => {
  it('answers a picture with a viewBox and its natural size without them, and other parameters ignored', async () => {
    for (const url of routes) {
      for (const query of ['', '?cachebuster=123', '?width=']) {
        const res = await get(`${url}${query}`);
        assert.equal(res.status, 200, `${url}${query}`);
        const r = root(await res.text());
        assert.equal(r.viewBox.length, 4);
        assert.deepEqual([r.width, r.height], [String(Math.round(r.viewBox[2])), String(Math.round(r.viewBox[3]))], url);
      }
    }
  });

  it('sizes the picture in px: one side keeps the aspect ratio, both widen the view to theirs', async () => {
    for (const url of routes) {
      const one = root(await (await get(`${url}?width=640`)).text());
      assert.equal(one.width, '640', url);
      assert.ok(Math.abs(640 / Number(one.height) - one.viewBox[2] / one.viewBox[3]) < 0.02, `${url}: ${one.height} ${one.viewBox}`);
      const both = root(await (await get(`${url}?width=300&height=300&version=latest`)).text());
      assert.deepEqual([both.width, both.height], ['300', '300'], url);
      assert.ok(Math.abs(both.viewBox[2] / both.viewBox[3] - 1) < 0.01, `${url}: ${both.viewBox}`);
    }
  });

  const bad: [string, string][] = [
    ['width=abc', 'width'], ['width=15', 'width'], ['width=8193', 'width'], ['width=1.5', 'width'], ['width=-20', 'width'],
    ['height=0', 'height'], ['height=99999999999', 'height'], ['width=100&width=200', 'width'],
  ];
  for (const [query, name] of bad) {
    it(`refuses ?${query} with 400 naming ${name}`, async () => {
      for (const url of routes) {
        const res = await get(`${url}?${query}`);
        assert.equal(res.status, 400, `${url}?${query}`);
        const body = (await res.json()) as { detail: string };
        assert.match(body.detail, new RegExp(`\\b${name}\\b`), body.detail);
      }
    });
  }

  it('is ignored by JSON outputs', async () => {
    const res = await get(`/api/v1/output/map/${mapId}/json/?width=abc`);
    assert.equal(res.status, 200);
  });
});

describe('size steps', () => {
  it('draws each size at the step at or above it: 100 distinct widths cost one render per step they fall in', async () => {
    const rendered: string[] = [];
    const s = await makeDemoApp({ now: stepClock(), onOutputRender: (key) => { if (key.startsWith('svg\n')) rendered.push(key); } });
    try {
      const widths = Array.from({ length: 100 }, (_, i) => 300 + 7 * i);
      const steps = new Set(widths.map((w) => SIZE_STEPS_PX.find((step) => step >= w)));
      for (const w of widths) {
        const res = await s.request(`/api/v1/public/output/map/${mapId}/svg/?width=${w}`);
        assert.equal(res.status, 200);
        const drawn = Number(root(await res.text()).width);
        assert.ok(drawn >= w && SIZE_STEPS_PX.includes(drawn), `width=${w} drawn at ${drawn}`);
      }
      assert.equal(rendered.length, steps.size, `${rendered.length} renders for ${steps.size} steps`);
    } finally {
      await s.close();
    }
  });
});
