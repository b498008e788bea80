// resources/versioned-resource.ts: an update given the version its caller has
// just looked up (a PUT route, for its 404 before reading the body) reads
// nothing more before its write turn; the summary of the change is worked
// out before the turn, and again inside it only when another write came
// between. If-Match is still judged inside the turn against the real latest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../errors.ts';
import { describeChange } from '../../resources/changes.ts';
import { contentOf } from '../../resources/collection.ts';
import { createMaps } from '../../resources/maps.ts';
import { createMemoryStore } from '../../store/memory.ts';
import type { Store } from '../../store/types.ts';
import * as v from 'valibot';
import { MapRevisionSchema } from '../../schema/map.ts';

const NOW = new Date('2026-11-28T12:00:00.000Z');
const revision = (name: string, zoom = 3) => v.parse(MapRevisionSchema, { name, configuration: { layers: [], viewport: { zoom } } });

/** A memory store that counts the latest-version look-ups made through it. */
function countingStore() {
  const store = createMemoryStore();
  const counted = { heads: 0 };
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'head' && typeof value === 'function') return (...args: unknown[]) => { counted.heads++; return value.apply(target, args); };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Store;
  return { store: proxy, counted };
}

describe('versionedResource update', () => {
  it('looks nothing up before its write turn when given the version just seen', async () => {
    const { store, counted } = countingStore();
    const maps = createMaps(store, () => NOW);
    const id = String((await maps.create('ann', revision('A'))).mapId);
    const seen = maps.get(id);
    counted.heads = 0;
    const v2 = await maps.update(id, 'ann', revision('B'), undefined, seen);
    assert.equal(v2.version, 2);
    assert.equal(counted.heads, 0, 'no look-up beyond the write turn');
    counted.heads = 0;
    await maps.update(id, 'ann', revision('C'));
    assert.equal(counted.heads, 1, 'without it, one look-up (the 404 before the turn)');
  });

  it('stores the summary of the change against the version it replaced', async () => {
    const maps = createMaps(createMemoryStore(), () => NOW);
    const id = String((await maps.create('ann', revision('A'))).mapId);
    const seen = maps.get(id);
    const v2 = await maps.update(id, 'ann', revision('B', 5), undefined, seen);
    assert.equal(v2.change, await describeChange('maps', createMemoryStore(), seen, contentOf(v2)));
    assert.notEqual(v2.change, '');
  });

  it('works the summary out again when another write came between, and still refuses a stale If-Match', async () => {
    const maps = createMaps(createMemoryStore(), () => NOW);
    const id = String((await maps.create('ann', revision('A'))).mapId);
    const seen = maps.get(id);
    const between = await maps.update(id, 'bob', revision('B', 5));
    const v3 = await maps.update(id, 'ann', revision('B', 5), undefined, seen);
    assert.equal(v3.version, 3);
    assert.equal(v3.change, await describeChange('maps', createMemoryStore(), between, contentOf(v3)), 'against version 2, not the one seen');
    assert.notEqual(v3.change, await describeChange('maps', createMemoryStore(), seen, contentOf(v3)));
    await assert.rejects(maps.update(id, 'ann', revision('C'), maps.collection.etag(seen), seen),
      (e: unknown) => e instanceof ServiceError && e.code === 'precondition_failed');
    assert.equal(maps.get(id).version, 3, 'the refused write stored nothing');
  });
});
