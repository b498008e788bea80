// The list routes' parameters, shown on the maps list (the datasets and
// templates lists share the code; their own tests check their filters).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, createMap, sampleMap, shownConfiguration, start, type Started } from './fixtures.ts';

let t: Started;
/** name -> mapId of the maps made in before(). */
const ids: Record<string, string> = {};

before(async () => {
  t = await start();
  for (const name of ['alpha', 'beta', 'gamma', 'delta']) ids[name] = (await createMap(t, name)).mapId;
  // beta: 3 versions, published at v2; gamma: 2 versions by another editor name (same admin user, so same name)
  await t.request(`/api/v1/map/id/${ids.beta}/publish/`, { method: 'POST', token: t.publish });
  await t.request(`/api/v1/map/id/${ids.beta}/`, { method: 'PUT', token: t.write, json: sampleMap('beta2') });
  await t.request(`/api/v1/map/id/${ids.gamma}/`, { method: 'PUT', token: t.write, json: sampleMap('gamma2') });
});
after(async () => { await t.close(); });

const list = async (query = '') => {
  const res = await t.request(`/api/v1/maps/${query}`, { token: t.read });
  return { res, status: res.status, total: res.headers.get('x-total-count'), items: await body(res) };
};
const sortedIds = () => Object.values(ids).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('GET /api/v1/maps/ defaults', () => {
  it('is a JSON array of the latest versions with the default fields, ordered by ID', async () => {
    const { status, total, items } = await list();
    assert.equal(status, 200);
    assert.equal(total, '4');
    assert.deepEqual(items.map((m: any) => m.mapId), sortedIds());
    for (const m of items) assert.deepEqual(Object.keys(m), ['mapId', 'name', 'version', 'lastUpdatedBy', 'lastUpdatedOn']);
    const beta = items.find((m: any) => m.mapId === ids.beta);
    assert.deepEqual([beta.name, beta.version], ['beta2', 3]);
  });

  it('works without the trailing slash and needs the read scope', async () => {
    assert.equal((await t.request('/api/v1/maps', { token: t.read })).status, 200);
    assert.equal((await t.request('/api/v1/maps/')).status, 401);
    assert.equal((await t.request('/api/v1/maps/', { token: t.write })).status, 403);
  });

  it('reflects a write at once (the cached list is dropped)', async () => {
    const before = await list();
    const m = await createMap(t, 'epsilon');
    const after = await list();
    assert.equal(Number(after.total), Number(before.total) + 1);
    assert.ok(after.items.some((x: any) => x.mapId === m.mapId));
    await t.request(`/api/v1/map/id/${m.mapId}/`, { method: 'PUT', token: t.write, json: sampleMap('epsilon2') });
    assert.equal((await list()).items.find((x: any) => x.mapId === m.mapId).name, 'epsilon2');
    ids.epsilon = m.mapId;
  });
});

describe('GET /api/v1/maps/ version', () => {
  it('all: every version, by ID then version', async () => {
    const { items, total } = await list('?version=all');
    const expected = sortedIds().flatMap((id) => {
      const n = id === ids.beta ? 3 : id === ids.gamma || id === ids.epsilon ? 2 : 1;
      return Array.from({ length: n }, (_, i) => `${id}:${i + 1}`);
    });
    assert.deepEqual(items.map((m: any) => `${m.mapId}:${m.version}`), expected);
    assert.equal(total, String(expected.length));
  });

  it('a number: that version of each map that has it', async () => {
    const { items } = await list('?version=2');
    assert.deepEqual(items.map((m: any) => m.mapId).sort(), [ids.beta, ids.gamma, ids.epsilon].sort());
    assert.ok(items.every((m: any) => m.version === 2));
    assert.deepEqual((await list('?version=99')).items, []);
  });

  for (const bad of ['0', '-1', '1.5', 'newest', '']) {
    it(`version=${bad} is 400`, async () => {
      const { status, items } = await list(`?version=${bad}`);
      assert.equal(status, 400);
      assert.match(items.detail, /version/);
    });
  }
});

describe('GET /api/v1/maps/ fields', () => {
  it('takes repeated and comma-separated names, in the order given', async () => {
    for (const q of ['?fields=name&fields=public', '?fields=name,public', '?fields=name,%20public,name']) {
      const { items } = await list(q);
      for (const m of items) assert.deepEqual(Object.keys(m), ['name', 'public']);
    }
  });

  it('can return the whole objects', async () => {
    const { items } = await list(`?fields=mapId,configuration,overrides,public&mapId=${ids.alpha}`);
    assert.deepEqual(items[0].configuration, shownConfiguration(t.settings.server.baseUrl));
    assert.equal(items[0].public, false);
  });

  it('an unknown field is 400 naming the valid ones', async () => {
    const { status, items } = await list('?fields=name,colour');
    assert.equal(status, 400);
    assert.match(items.detail, /colour/);
    for (const f of ['mapId', 'name', 'version', 'lastUpdatedBy', 'lastUpdatedOn', 'public', 'configuration', 'overrides']) {
      assert.ok(items.detail.includes(f), `detail names ${f}`);
    }
  });
});

describe('GET /api/v1/maps/ filters', () => {
  it('values of one filter OR together', async () => {
    const { items } = await list(`?mapId=${ids.alpha}&mapId=${ids.delta}`);
    assert.deepEqual(items.map((m: any) => m.mapId).sort(), [ids.alpha, ids.delta].sort());
  });

  it('different filters AND together', async () => {
    assert.deepEqual((await list(`?mapId=${ids.alpha}&name=alpha`)).items.map((m: any) => m.mapId), [ids.alpha]);
    assert.deepEqual((await list(`?mapId=${ids.alpha}&name=beta2`)).items, []);
  });

  it('match the version shown (name of the latest; with version=all, of each version)', async () => {
    assert.deepEqual((await list('?name=beta')).items, []);
    const all = (await list('?name=beta&version=all')).items;
    assert.deepEqual(all.map((m: any) => m.version), [1, 2]);
  });

  it('public=true|false', async () => {
    assert.deepEqual((await list('?public=true')).items.map((m: any) => m.mapId), [ids.beta]);
    assert.ok(!(await list('?public=false')).items.some((m: any) => m.mapId === ids.beta));
    assert.equal((await list('?public=yes')).status, 400);
  });

  it('lastUpdatedBy', async () => {
    assert.equal((await list('?lastUpdatedBy=admin')).total, (await list()).total);
    assert.equal((await list('?lastUpdatedBy=nobody')).total, '0');
  });
});

describe('GET /api/v1/maps/ limit and offset', () => {
  it('page through the same order, with the total in X-Total-Count', async () => {
    const all = (await list()).items.map((m: any) => m.mapId);
    const pages: string[] = [];
    for (let offset = 0; offset < all.length; offset += 2) {
      const { items, total } = await list(`?limit=2&offset=${offset}`);
      assert.equal(total, String(all.length));
      pages.push(...items.map((m: any) => m.mapId));
    }
    assert.deepEqual(pages, all);
    assert.deepEqual((await list('?limit=0')).items, []);
    assert.deepEqual((await list(`?offset=${all.length}`)).items, []);
  });

  for (const q of ['limit=-1', 'limit=abc', 'offset=1.5', 'limit=1&limit=2']) {
    it(`${q} is 400`, async () => assert.equal((await list(`?${q}`)).status, 400));
  }
});

describe('GET /api/v1/maps/ unknown parameters', () => {
  // docs/api.md (Lists): clients add cache-busters (?t=…) and parameters of their own.
  it('are ignored', async () => {
    const plain = await list('');
    for (const q of ['?t=1732521600', '?feilds=name', '?t=1&t=2']) {
      const { status, items } = await list(q);
      assert.equal(status, 200, q);
      assert.deepEqual(items, plain.items, q);
    }
  });
});

describe('GET /api/v1/maps/ sort', () => {
  const names = (items: any[]) => items.map((m) => m.name);
  it('orders by a field, descending with "-", before limit and offset', async () => {
    const all = names((await list('?fields=name&sort=name')).items);
    assert.deepEqual(all, [...all].sort());
    assert.deepEqual(names((await list('?fields=name&sort=-name')).items), [...all].sort().reverse());
    const { items, total } = await list('?fields=name&sort=-name&limit=2&offset=1');
    assert.deepEqual(names(items), [...all].sort().reverse().slice(1, 3));
    assert.equal(total, String(all.length));
  });

  it('takes several keys, repeated or comma-separated; ties keep ID order', async () => {
    const bySort = (await list('?fields=mapId,version&sort=-version&sort=mapId')).items;
    const expected = [...bySort].sort((a: any, b: any) => b.version - a.version || (a.mapId < b.mapId ? -1 : 1));
    assert.deepEqual(bySort, expected);
    assert.deepEqual((await list('?fields=mapId,version&sort=-version,mapId')).items, bySort);
    const ties = (await list('?fields=mapId,lastUpdatedBy&sort=-lastUpdatedBy')).items.map((m: any) => m.mapId);
    assert.deepEqual(ties, sortedIds().filter((id) => ties.includes(id)), 'same lastUpdatedBy: ID order');
  });

  it('sorts every version too (version=all)', async () => {
    const { items } = await list('?version=all&fields=mapId,version&sort=-version&limit=3');
    assert.deepEqual(items.map((m: any) => m.version), [3, 2, 2]);
  });

  // Terranova's editor asks this on every page.
  it('answers the editor\'s ?sort=-lastUpdatedBy&offset=0&limit=3', async () => {
    const { status, items } = await list('?sort=-lastUpdatedBy&offset=0&limit=3');
    assert.equal(status, 200);
    assert.equal(items.length, 3);
  });

  for (const q of ['sort=nope', 'sort=-', 'sort=-%20']) {
    it(`?${q} is 400 naming the valid fields`, async () => {
      const { status, items } = await list(`?${q}`);
      assert.equal(status, 400, q);
      assert.match(items.detail, /sort/);
    });
  }
});
