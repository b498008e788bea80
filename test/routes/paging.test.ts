// Version lists and histories are paged by default (docs/api.md: Paging): 100
// versions a page, X-Total-Count with their number, and a Link to the next
// page while there is one; following the Links gives every version once.
// Lists of latest versions stay whole unless a limit is asked for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, createMap, sampleMap, start, type Started } from './fixtures.ts';

const VERSIONS = 105;
let t: Started;
let mapId: string;

before(async () => {
  t = await start();
  mapId = (await createMap(t)).mapId;
  for (let v = 2; v <= VERSIONS; v++) {
    const res = await t.request(`/api/v1/map/id/${mapId}/`, { method: 'PUT', token: t.write, json: sampleMap(`Backbone ${v}`) });
    assert.equal(res.status, 200);
  }
});
after(async () => { await t.close(); });

/** Every page from `url` on, following Link rel="next". */
async function pages(url: string) {
  const seen: { items: Array<{ version: number }>; total: string | null; link: string | null }[] = [];
  for (let next: string | undefined = url; next;) {
    const res = await t.request(next, { token: t.read });
    assert.equal(res.status, 200);
    const link = res.headers.get('link');
    seen.push({ items: await body(res), total: res.headers.get('x-total-count'), link });
    next = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
    assert.ok(!link || next, `a Link of the right shape: ${link}`);
  }
  return seen;
}

describe('paged version lists and histories', () => {
  for (const [what, url, order] of [
    ['GET /api/v1/maps/?version=all', '/api/v1/maps/?version=all&fields=mapId,version', 1],
    ['GET …/history/', () => `/api/v1/map/id/${mapId}/history/`, -1],
  ] as const) {
    it(`${what}: 100 a page, X-Total-Count, a Link to the next page`, async () => {
      const got = await pages(typeof url === 'string' ? url : url());
      assert.deepEqual(got.map((p) => p.items.length), [100, VERSIONS - 100]);
      assert.deepEqual(got.map((p) => p.total), [String(VERSIONS), String(VERSIONS)]);
      assert.equal(got[1].link, null, 'no Link on the last page');
      const versions = got.flatMap((p) => p.items.map((i) => i.version));
      const expected = Array.from({ length: VERSIONS }, (_, i) => i + 1);
      assert.deepEqual(versions, order === 1 ? expected : expected.reverse());
    });
  }

  it('a limit asked for is kept in the Link; a list of latest versions stays whole', async () => {
    const res = await t.request(`/api/v1/map/id/${mapId}/history/?limit=10&offset=20`, { token: t.read });
    assert.equal(res.headers.get('link'), `</api/v1/map/id/${mapId}/history/?limit=10&offset=30>; rel="next"`);
    const latest = await t.request('/api/v1/maps/', { token: t.read });
    assert.equal(latest.headers.get('link'), null);
    assert.equal((await body(latest)).length, 1);
  });
});
