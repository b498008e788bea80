// Bodies carrying __proto__ / constructor.prototype keys change nothing
// outside the stored document: Object.prototype stays clean, other
// documents stay as they were, and the stored document has no such keys.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, createMap, sampleMap, start, type Started } from './fixtures.ts';

let t: Started;
before(async () => { t = await start(); });
after(async () => { await t.close(); });

const hostile = (name: string) => `{
  "name": "${name}",
  "__proto__": { "polluted": "yes", "public": true, "isAdmin": true },
  "constructor": { "prototype": { "polluted": "yes" } },
  "configuration": {
    "__proto__": { "polluted": "yes" },
    "constructor": { "prototype": { "polluted": "yes" } },
    "layers": [ { "name": "l", "__proto__": { "polluted": "yes" }, "constructor": { "prototype": { "polluted": "yes" } } } ],
    "extra": { "__proto__": { "polluted": "yes" } }
  },
  "overrides": { "__proto__": { "nodes": {} }, "AbCdEf1": { "nodes": { "__proto__": { "operation": "delete" } }, "edges": {} } }
}`;

const clean = () => {
  assert.equal(({} as any).polluted, undefined);
  assert.equal(({} as any).isAdmin, undefined);
  assert.equal((Object.prototype as any).polluted, undefined);
  assert.equal(Object.keys(Object.prototype).length, 0);
};

describe('prototype pollution through request bodies', () => {
  const cases: Array<[string, string, (text: string) => Promise<Response>]> = [
    ['map create', 'POST /api/v1/map/', (text) => t.request('/api/v1/map/', { method: 'POST', token: t.write, body: text, headers: { 'Content-Type': 'application/json' } })],
    ['template create', 'POST /api/v1/template/', (text) => t.request('/api/v1/template/', {
      method: 'POST', token: t.write, headers: { 'Content-Type': 'application/json' },
      body: text.replace('"configuration"', '"template": "<g/>", "configuration"'),
    })],
  ];

  for (const [what, , send] of cases) {
    it(`${what}: nothing outside the stored document changes`, async () => {
      const bystander = await createMap(t, 'bystander');
      const bystanderBefore = JSON.stringify(t.store.head('maps', bystander.mapId));
      const res = await send(hostile('hostile'));
      clean();
      assert.ok(res.status === 201 || res.status === 422, `status ${res.status}`);
      assert.equal(JSON.stringify(t.store.head('maps', bystander.mapId)), bystanderBefore);
      if (res.status === 201) {
        const created = await body(res);
        const stored = JSON.stringify(t.store.head(what.startsWith('map') ? 'maps' : 'templates', created.mapId ?? created.templateId));
        assert.doesNotMatch(stored, /polluted|__proto__|isAdmin/);
        assert.equal(created.public === true, false);
        assert.equal(Object.getPrototypeOf(created), Object.prototype);
      }
    });
  }

  it('map update: the new version holds no polluting keys and the old version is untouched', async () => {
    const map = await createMap(t, 'target');
    const v1 = JSON.stringify(await t.store.read<any>('maps', map.mapId, 1));
    const res = await t.request(`/api/v1/map/id/${map.mapId}/`, {
      method: 'PUT', token: t.write, body: hostile('target v2'), headers: { 'Content-Type': 'application/json' },
    });
    clean();
    assert.equal(res.status, 200);
    assert.equal(JSON.stringify(await t.store.read<any>('maps', map.mapId, 1)), v1);
    const v2 = await t.store.read<any>('maps', map.mapId, 2);
    assert.doesNotMatch(JSON.stringify(v2), /polluted|__proto__|isAdmin/);
    assert.equal(v2.public, false);
    const listed = await body(await t.request(`/api/v1/maps/?mapId=${map.mapId}&fields=public,name`, { token: t.read }));
    assert.deepEqual(listed, [{ public: false, name: 'target v2' }]);
  });

  it('map update: the same keys spelled with \\u escapes are dropped too', async () => {
    const map = await createMap(t, 'escaped');
    const escaped = hostile('escaped v2').replaceAll('__proto__', '\\u005f_pr\\u006fto__')
      .replaceAll('constructor', 'c\\u006fnstructor').replaceAll('prototype', 'pr\\u006ftotype');
    assert.doesNotMatch(escaped, /proto|constructor/); // only the escapes spell them
    const res = await t.request(`/api/v1/map/id/${map.mapId}/`, {
      method: 'PUT', token: t.write, body: escaped, headers: { 'Content-Type': 'application/json' },
    });
    clean();
    assert.equal(res.status, 200);
    const stored = await t.store.read<any>('maps', map.mapId, 2);
    assert.doesNotMatch(JSON.stringify(stored), /polluted|__proto__|isAdmin|constructor/);
    assert.equal(stored.public, false);
  });

  it('dataset create: polluting keys are refused (the dataset schema is strict)', async () => {
    const res = await t.request('/api/v1/dataset/', {
      method: 'POST', token: t.write, headers: { 'Content-Type': 'application/json' },
      body: '{"name":"d","query":{"endpoint":"spreadsheet?sheet_id=a&sheet_name=a","filters":[],"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}',
    });
    clean();
    assert.ok([201, 422].includes(res.status), `status ${res.status}`);
    if (res.status === 201) assert.doesNotMatch(JSON.stringify(await body(res)), /polluted/);
  });

  it('query strings named __proto__ or constructor are plain unknown parameters (ignored), and as fields 400', async () => {
    for (const q of ['__proto__=1', '__proto__[polluted]=yes', 'constructor[prototype][polluted]=yes']) {
      const res = await t.request(`/api/v1/maps/?${q}`, { token: t.read });
      assert.equal(res.status, 200, q);
    }
    for (const q of ['fields=__proto__', 'fields=constructor', 'sort=__proto__', 'sort=-constructor']) {
      const res = await t.request(`/api/v1/maps/?${q}`, { token: t.read });
      assert.equal(res.status, 400, q);
    }
    clean();
  });

  it('lists still show every map as before', async () => {
    const items = await body(await t.request('/api/v1/maps/?fields=name,public', { token: t.read }));
    assert.ok(items.every((m: any) => m.public === false && Object.keys(m).join() === 'name,public'));
    assert.equal((await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: sampleMap() })).status, 201);
  });
});
