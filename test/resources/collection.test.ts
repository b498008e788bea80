// resources/collection.ts and resources/usage.ts: the versioning rules over a
// store's logs, without HTTP. A resource is created as version 1 under a fresh
// ID with its stamps; each append is latest+1 inside the write turn; If-Match
// is compared with the latest; a deleted resource is 404 unless allowed; a
// malformed ID never reaches the store; a misfiled entry is unavailable, not
// served under the wrong ID; a map uses a dataset by ID or by output URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../errors.ts';
import { VersionedCollection } from '../../resources/collection.ts';
import { MAP_DESCRIPTOR } from '../../resources/maps.ts';
import { mapsUsing } from '../../resources/usage.ts';
import { createMemoryStore } from '../../store/memory.ts';
import type { Json } from '../../store/types.ts';

const NOW = new Date('2026-11-28T12:00:00.000Z');
const maps = () => new VersionedCollection(createMemoryStore(), MAP_DESCRIPTOR, () => NOW);
const code = (want: string) => (error: unknown) => error instanceof ServiceError && error.code === want;

describe('VersionedCollection create and append', () => {
  it('creates version 1 under a fresh 7-character ID, stamped, and appends 2, 3 in turn', async () => {
    const col = maps();
    const v1 = await col.create('ann', { name: 'Backbone' });
    assert.match(String(v1.mapId), /^[A-Za-z0-9]{7}$/);
    assert.deepEqual({ ...v1 }, { name: 'Backbone', mapId: v1.mapId, version: 1, lastUpdatedBy: 'ann', lastUpdatedOn: NOW.toISOString(), change: 'created' });
    const id = String(v1.mapId);
    const [a, b] = await Promise.all([1, 2].map((n) => col.append(id, 'bob', (_latest, next) => ({ content: { name: `v${next}`, n }, change: 'renamed' }))));
    assert.deepEqual([a.version, b.version].sort(), [2, 3], 'concurrent appends get consecutive numbers');
    assert.equal(col.get(id).version, 3);
    assert.deepEqual(col.versionNumbers(id), [1, 2, 3]);
  });

  it('checks If-Match against the latest version: its ETag or * passes, an older one is 412', async () => {
    const col = maps();
    const id = String((await col.create('ann', { name: 'A' })).mapId);
    const first = col.etag(col.get(id));
    await col.append(id, 'ann', () => ({ content: { name: 'B' }, change: 'x' }), { ifMatch: first });
    await col.append(id, 'ann', () => ({ content: { name: 'C' }, change: 'x' }), { ifMatch: '*' });
    await assert.rejects(col.append(id, 'ann', () => ({ content: { name: 'D' }, change: 'x' }), { ifMatch: first }), code('precondition_failed'));
    assert.equal(col.get(id).name, 'C', 'the refused write stored nothing');
  });

  it('answers 404 for a deleted resource, naming the deletion, unless the append allows it', async () => {
    const col = maps();
    const id = String((await col.create('ann', { name: 'A' })).mapId);
    await col.append(id, 'ann', (latest) => ({ content: { ...latest }, change: 'deleted', deleted: true }));
    assert.equal(col.exists(id), false);
    assert.throws(() => col.get(id), (e: unknown) => code('not_found')(e) && /was deleted \(version 2\)/.test((e as Error).message));
    await assert.rejects(col.append(id, 'ann', () => ({ content: { name: 'B' }, change: 'x' })), code('not_found'));
    const restored = await col.append(id, 'ann', () => ({ content: { name: 'A' }, change: 'restored' }), { whenDeleted: true });
    assert.equal(restored.version, 3);
    assert.equal(col.exists(id), true);
  });

  const malformed = ['', 'short', 'toolong12', '../etc1', 'a b c d'];
  for (const id of malformed) {
    it(`never asks the store about the malformed ID ${JSON.stringify(id)}`, () => {
      const store = createMemoryStore();
      const asked: string[] = [];
      const spy = { ...store, head: ((c, key) => (asked.push(key), store.head(c, key))) as typeof store.head };
      const col = new VersionedCollection(spy, MAP_DESCRIPTOR, () => NOW);
      assert.equal(col.head(id), undefined);
      assert.throws(() => col.get(id), code('not_found'));
      assert.deepEqual(asked, []);
    });
  }

  it('refuses to serve an entry filed under another ID (resource_unavailable)', async () => {
    const store = createMemoryStore();
    await store.append('maps', 'Misfile', () => ({ version: 1, mapId: 'Other00', name: 'x' }));
    const col = new VersionedCollection(store, MAP_DESCRIPTOR, () => NOW);
    assert.throws(() => col.head('Misfile'), code('resource_unavailable'));
  });
});

describe('mapsUsing', () => {
  it('finds the live maps whose layers name a dataset or template by ID or output URL', async () => {
    const col = maps();
    const layer = (l: { [key: string]: Json }) => ({ name: 'uses', configuration: { layers: [null, 'junk', l] } });
    const byId = String((await col.create('ann', layer({ datasetId: 'Data001', templateId: 'Tpl0001' }))).mapId);
    const byUrl = String((await col.create('ann', layer({ mapjsonUrl: '/api/v1/output/dataset/Data001/logical/live/?template=Tpl0002' }))).mapId);
    const badUrl = String((await col.create('ann', layer({ mapjsonUrl: '/api/v1/output/dataset/Data001/logical/live/?version=x' }))).mapId);
    const gone = String((await col.create('ann', layer({ datasetId: 'Data001' }))).mapId);
    await col.append(gone, 'ann', (latest) => ({ content: { ...latest }, change: 'deleted', deleted: true }));
    assert.deepEqual(mapsUsing(col, 'dataset', 'Data001').sort(), [byId, byUrl].sort());
    assert.deepEqual(mapsUsing(col, 'template', 'Tpl0002'), [byUrl]);
    assert.deepEqual(mapsUsing(col, 'template', 'Tpl0001'), [byId]);
    assert.deepEqual(mapsUsing(col, 'dataset', 'Data002'), []);
    assert.ok(!mapsUsing(col, 'dataset', 'Data001').includes(badUrl), 'a URL with a problem uses nothing');
  });
});
