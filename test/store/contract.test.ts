// The storage contract (store/types.ts) as one suite, run against every
// adapter: memory and file. A future adapter (PostgreSQL) joins by adding one
// factory at the bottom.
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { canonicalJson } from '../../store/canonical-json.ts';
import { openFileStore } from '../../store/file.ts';
import { createMemoryStore } from '../../store/memory.ts';
import { COLLECTIONS, type Collection, type Store } from '../../store/types.ts';

interface Harness {
  store: Store;
  /** Closes the store and opens the same data again; absent for adapters without persistence. */
  restart?: () => Promise<Store>;
  dispose: () => Promise<void>;
}

type Doc = Record<string, unknown>;
const counter = (n: number) => (current: Doc | undefined) => ({ n: ((current?.n as number) ?? 0) + n });
const tick = () => new Promise((resolve) => setImmediate(resolve));

export function storeContract(name: string, makeHarness: () => Promise<Harness>) {
  describe(`store contract: ${name}`, () => {
    let h: Harness;
    let store: Store;
    beforeEach(async () => {
      h = await makeHarness();
      store = h.store;
    });
    afterEach(() => h.dispose());

    describe('get and update', () => {
      it('returns undefined for an absent document and the stored one after update', async () => {
        assert.equal(store.get('maps', 'abc1234'), undefined);
        const returned = await store.update('maps', 'abc1234', () => ({ name: 'Backbone', version: 1 }));
        assert.deepEqual(store.get('maps', 'abc1234'), { name: 'Backbone', version: 1 });
        assert.equal(store.get('maps', 'abc1234'), returned, 'update resolves with the stored object');
        assert.equal(store.get('datasets', 'abc1234'), undefined, 'collections are separate');
      });

      it('stores the canonical form: keys sorted at every level, undefined dropped', async () => {
        const stored = await store.update<Doc>('maps', 'm1', () => ({ z: 1, a: { y: [{ d: 1, c: undefined, b: 2 }], x: undefined } }));
        assert.equal(JSON.stringify(stored), '{"a":{"y":[{"b":2,"d":1}]},"z":1}');
      });

      it('gives fn the current document', async () => {
        await store.update('templates', 't', () => ({ n: 1 }));
        let seen: unknown;
        await store.update<Doc>('templates', 't', (current) => ((seen = current), { n: 2 }));
        assert.deepEqual(seen, { n: 1 });
      });

      it('keeps a document object stable until it is written, and replaces it on write', async () => {
        await store.update('maps', 'a', () => ({ n: 1 }));
        await store.update('maps', 'b', () => ({ n: 1 }));
        const a = store.get('maps', 'a');
        assert.equal(store.get('maps', 'a'), a);
        await store.update('maps', 'b', counter(1));
        assert.equal(store.get('maps', 'a'), a, 'a write to another key leaves it alone');
        await store.update('maps', 'a', counter(1));
        assert.notEqual(store.get('maps', 'a'), a);
        assert.deepEqual(a, { n: 1 }, 'the old object is not mutated');
      });

      it('freezes a written document: mutating it throws and changes nothing', async () => {
        const stored = await store.update<Doc>('maps', 'f', () => ({ list: [{ a: 1 }], nested: { b: 2 } }));
        assert.throws(() => { stored.extra = 1; }, TypeError);
        assert.throws(() => { (stored.list as Doc[]).push({}); }, TypeError);
        assert.throws(() => { ((stored.list as Doc[])[0]).a = 2; }, TypeError);
        assert.throws(() => { (stored.nested as Doc).b = 3; }, TypeError);
        assert.deepEqual(store.get('maps', 'f'), { list: [{ a: 1 }], nested: { b: 2 } });
      });

      it('stores what a JSON round trip gives: non-finite numbers null, -0 as 0, Dates as strings', async () => {
        const stored = await store.update<Doc>('maps', 'j', () => ({ nan: NaN, inf: -Infinity, zero: -0, on: new Date(0), list: [undefined, () => 1] }));
        assert.deepEqual(stored, { inf: null, list: [null, null], nan: null, on: '1970-01-01T00:00:00.000Z', zero: 0 });
        assert.ok(Object.is(stored.zero, 0));
      });

      it('accepts an async fn', async () => {
        const stored = await store.update('results', 'r', async () => (await tick(), [1, 2, 3]));
        assert.deepEqual(stored, [1, 2, 3]);
      });
    });

    describe('entries', () => {
      it('lists every document of one collection in code-unit key order', async () => {
        const keys = ['b', 'B', 'a', '0', 'a.b', 'a-b', 'a_b', 'Zz', 'aa'];
        for (const key of keys) await store.update('maps', key, () => ({ key }));
        await store.update('datasets', 'other', () => ({}));
        const listed = store.entries<Doc>('maps');
        const expected = [...keys].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
        assert.deepEqual(listed.map(([k]) => k), expected);
        for (const [key, doc] of listed) assert.equal(doc, store.get('maps', key));
      });

      it('reflects writes and deletes, and the shared array cannot be mutated', async () => {
        await store.update('maps', 'k2', () => ({ n: 2 }));
        const before = store.entries('maps');
        assert.ok(Object.isFrozen(before));
        assert.throws(() => (before as unknown as unknown[]).push(['x', {}]), TypeError);
        await store.update('maps', 'k1', () => ({ n: 1 }));
        assert.deepEqual(store.entries('maps'), [['k1', { n: 1 }], ['k2', { n: 2 }]]);
        await store.update('maps', 'k2', counter(1));
        assert.deepEqual(store.entries('maps'), [['k1', { n: 1 }], ['k2', { n: 3 }]]);
        await store.delete('maps', 'k1');
        assert.deepEqual(store.entries('maps'), [['k2', { n: 3 }]]);
        assert.deepEqual(before, [['k2', { n: 2 }]], 'an earlier listing is a snapshot');
      });

      it('is empty for a collection with no documents', () => {
        for (const c of COLLECTIONS) assert.deepEqual(store.entries(c), []);
      });
    });

    describe('serialization per key', () => {
      it('100 concurrent updates give 100 distinct consecutive values', async () => {
        const results = await Promise.all(Array.from({ length: 100 }, () =>
          store.update<Doc>('maps', 'hot', async (current) => {
            const n = ((current?.n as number) ?? 0) + 1;
            await tick(); // yield inside fn: a lost update would show here
            return { n };
          })));
        const values = results.map((doc) => doc.n as number).sort((a, b) => a - b);
        assert.deepEqual(values, Array.from({ length: 100 }, (_, i) => i + 1));
        assert.deepEqual(store.get('maps', 'hot'), { n: 100 });
      });

      it('does not make different keys wait for each other', async () => {
        let releaseA!: () => void;
        const gate = new Promise<void>((resolve) => (releaseA = resolve));
        const a = store.update('maps', 'a', async () => (await gate, { done: true }));
        await store.update('maps', 'b', () => ({ done: true })); // would hang if keys shared one queue
        releaseA();
        await a;
        assert.deepEqual(store.get('maps', 'a'), { done: true });
      });

      it('runs updates and deletes of one key in call order', async () => {
        const steps = [
          store.update('maps', 'k', () => ({ n: 1 })),
          store.delete('maps', 'k'),
          store.update<Doc>('maps', 'k', (current) => ({ n: 10, sawDeleted: current === undefined })),
        ];
        await Promise.all(steps);
        assert.deepEqual(store.get('maps', 'k'), { n: 10, sawDeleted: true });
      });
    });

    describe('a failing fn writes nothing', () => {
      const failures: Array<[string, () => unknown, RegExp | Function]> = [
        ['throws', () => { throw new Error('boom'); }, /boom/],
        ['rejects', async () => { await tick(); throw new Error('later boom'); }, /later boom/],
        ['returns undefined', () => undefined, TypeError],
        ['returns null', () => null, TypeError],
        ['returns a number', () => 42, TypeError],
        ['returns a string', () => 'text', TypeError],
      ];
      for (const [label, fn, expected] of failures) {
        it(`when fn ${label}`, async () => {
          const before = await store.update('maps', 'k', () => ({ n: 1 }));
          await assert.rejects(store.update('maps', 'k', fn as never), expected as RegExp);
          assert.equal(store.get('maps', 'k'), before);
          await store.update('maps', 'new', fn as never).catch(() => undefined);
          assert.equal(store.get('maps', 'new'), undefined);
          assert.deepEqual(store.entries('maps').map(([key]) => key), ['k']);
          // The key is not left locked.
          assert.deepEqual(await store.update('maps', 'k', counter(1)), { n: 2 });
          if (h.restart) {
            store = await h.restart();
            assert.deepEqual(store.get('maps', 'k'), { n: 2 });
            assert.equal(store.get('maps', 'new'), undefined);
          }
        });
      }
    });

    describe('keys and collections', () => {
      const bad = ['../x', 'a/b', 'a\\b', '..', '.', '.hidden', '__proto__', '', ' a', 'a b', 'a\0b', 'ä', 'x'.repeat(129), 'a\nb'];
      for (const key of bad) {
        it(`refuses the key ${JSON.stringify(key)}`, async () => {
          await assert.rejects(store.update('maps', key, () => ({ n: 1 })), /invalid store key/);
          await assert.rejects(store.delete('maps', key), /invalid store key/);
          assert.equal(store.get('maps', key), undefined);
          assert.deepEqual(store.entries('maps'), []);
        });
      }

      it('accepts the longest allowed key', async () => {
        const key = 'k'.repeat(128);
        await store.update('maps', key, () => ({ n: 1 }));
        assert.deepEqual(store.get('maps', key), { n: 1 });
      });

      it('refuses an unknown collection', async () => {
        await assert.rejects(store.update('../maps' as Collection, 'k', () => ({})), /unknown collection/);
        await assert.rejects(store.update('constructor' as Collection, 'k', () => ({})), /unknown collection/);
      });
    });

    describe('prototype pollution', () => {
      it('stores __proto__ and constructor keys as plain data', async () => {
        const body = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted2": true}},' +
          ' "nested": [{"__proto__": {"polluted3": true}}]}');
        const stored = await store.update<Doc>('maps', 'p', () => body);
        const check = (doc: Doc) => {
          assert.equal(Object.getPrototypeOf(doc), Object.prototype);
          assert.ok(Object.hasOwn(doc, '__proto__'));
          assert.deepEqual(Object.getOwnPropertyDescriptor(doc, '__proto__')?.value, { polluted: true });
          assert.deepEqual((doc.constructor as unknown as Doc).prototype, { polluted2: true });
          const nested = (doc.nested as Doc[])[0];
          assert.ok(Object.hasOwn(nested, '__proto__'));
          assert.equal(Object.getPrototypeOf(nested), Object.prototype);
        };
        check(stored);
        const plain = {} as Doc;
        assert.equal(plain.polluted, undefined);
        assert.equal(plain.polluted2, undefined);
        assert.equal(plain.polluted3, undefined);
        if (h.restart) {
          store = await h.restart();
          check(store.get<Doc>('maps', 'p')!);
          assert.equal(({} as Doc).polluted, undefined);
        }
      });
    });

    describe('delete', () => {
      it('removes a document; deleting an absent one is fine', async () => {
        await store.update('maps', 'gone', () => ({ n: 1 }));
        await store.delete('maps', 'gone');
        await store.delete('maps', 'never');
        assert.equal(store.get('maps', 'gone'), undefined);
        if (h.restart) {
          store = await h.restart();
          assert.equal(store.get('maps', 'gone'), undefined);
        }
      });
    });

    describe('close', () => {
      it('waits for pending updates and refuses writes afterwards', async () => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const pending = store.update('maps', 'slow', async () => (await gate, { n: 1 }));
        let closed = false;
        const closing = store.close().then(() => (closed = true));
        await tick();
        assert.equal(closed, false, 'close waits for the pending update');
        release();
        await pending;
        await closing;
        await assert.rejects(store.update('maps', 'slow', counter(1)), /closed/);
        await assert.rejects(store.delete('maps', 'slow'), /closed/);
        await store.close(); // idempotent
      });
    });

    describe('restart', () => {
      it('serves every document identically after a restart', async (t) => {
        if (!h.restart) return t.skip('this adapter keeps nothing across a restart');
        const written = new Map<string, string>();
        for (const c of COLLECTIONS) {
          for (let i = 0; i < 5; i++) {
            const doc = await store.update(c, `${c}-${i}`, () => ({ i, c, text: 'ünïcödé "quoted" \u2028', list: [i, { z: null, a: true }] }));
            written.set(`${c}/${c}-${i}`, JSON.stringify(doc));
          }
        }
        await store.delete('maps', 'maps-3');
        written.delete('maps/maps-3');
        const listing = COLLECTIONS.map((c) => JSON.stringify(store.entries(c)));
        store = await h.restart();
        assert.deepEqual(COLLECTIONS.map((c) => JSON.stringify(store.entries(c))), listing);
        for (const [id, json] of written) {
          const [c, key] = id.split('/') as [Collection, string];
          assert.equal(JSON.stringify(store.get(c, key)), json, id);
          assert.equal(canonicalJson(store.get(c, key)), canonicalJson(JSON.parse(json)), id);
        }
      });
    });
  });
}

storeContract('memory', async () => {
  const store = createMemoryStore();
  return { store, dispose: () => store.close() };
});

storeContract('file', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-store-contract-'));
  const silent = () => undefined;
  let store = await openFileStore(dir, { log: silent });
  return {
    store,
    restart: async () => {
      await store.close();
      store = await openFileStore(dir, { log: silent });
      return store;
    },
    dispose: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
