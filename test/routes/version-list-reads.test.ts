// Filtered lists of older versions read only their page (docs/api.md,
// Paging): filters, counts and sort keys are judged on what the service
// keeps in memory of each version, so X-Total-Count over a long history
// costs no version file read. Reads are counted at the file system.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spyFs } from '../store/fs-spy.ts';
import { body, createMap, sampleMap, start, type Started } from './fixtures.ts';

const VERSIONS = 60;
/** Versions 2..60: every third is named "Core", the others "Edge"; version 1 is "Backbone". */
const nameOf = (v: number) => (v === 1 ? 'Backbone' : v % 3 === 0 ? 'Core' : 'Edge');
const CORE = Array.from({ length: VERSIONS }, (_, i) => i + 1).filter((v) => nameOf(v) === 'Core');

let t: Started;
let mapId: string;
const versionReads: string[] = [];
/** A file system that notes every version file read. */
const counting = () => spyFs((op, file) => {
  if (op === 'readFile' && /^v\d+\.json$/.test(path.basename(file))) versionReads.push(file);
}).fs;

before(async () => {
  t = await start({ storeOptions: { fs: counting() } });
  mapId = (await createMap(t, nameOf(1))).mapId;
  for (let v = 2; v <= VERSIONS; v++) {
    const res = await t.request(`/api/v1/map/id/${mapId}/`, { method: 'PUT', token: t.write, json: sampleMap(nameOf(v)) });
    assert.equal(res.status, 200);
  }
});
after(async () => { await t.close(true); });

describe('GET /api/v1/maps/?version=all with filters', () => {
  for (const [query, expected] of [
    ['name=Core&limit=5', CORE.slice(0, 5)],
    ['name=Core&limit=5&offset=5', CORE.slice(5, 10)],
    ['name=Core&sort=-version&limit=4', [...CORE].reverse().slice(0, 4)],
    ['name=Core&name=Backbone&limit=3', [1, ...CORE].slice(0, 3)],
    [`lastUpdatedBy=nobody&limit=5`, []],
  ] as const) {
    it(`${query}: the right count and page, reading at most the page's versions`, async () => {
      versionReads.length = 0;
      const res = await t.request(`/api/v1/maps/?version=all&fields=version,name&${query}`, { token: t.read });
      assert.equal(res.status, 200);
      const items = await body<Array<{ version: number; name: string }>>(res);
      const total = query.startsWith('lastUpdatedBy') ? 0 : query.includes('Backbone') ? CORE.length + 1 : CORE.length;
      assert.equal(res.headers.get('x-total-count'), String(total));
      assert.deepEqual(items.map((i) => i.version), expected);
      assert.ok(items.every((i) => i.name === nameOf(i.version)));
      assert.ok(versionReads.length <= expected.length, `${versionReads.length} version files read for a page of ${expected.length}`);
    });
  }
});

describe('after a restart', () => {
  it('the first filtered list reads each older version once (what lists judge on is kept in memory only), then pages right', async () => {
    await t.close(false);
    t = await start({ dir: t.dir, storeOptions: { fs: counting() } });
    const url = '/api/v1/maps/?version=all&fields=version&name=Core&limit=5';
    versionReads.length = 0;
    const first = await t.request(url, { token: t.read });
    assert.equal(first.headers.get('x-total-count'), String(CORE.length));
    assert.deepEqual((await body(first)).map((i: { version: number }) => i.version), CORE.slice(0, 5));
    assert.equal(new Set(versionReads).size, VERSIONS - 1, 'every version but the latest, which is in memory, read once');
    const next = await t.request(`${url}&offset=5`, { token: t.read });
    assert.equal(next.headers.get('x-total-count'), String(CORE.length));
    assert.deepEqual((await body(next)).map((i: { version: number }) => i.version), CORE.slice(5, 10));
  });
});
