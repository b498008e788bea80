// The storage contract (store/types.ts) as one suite, run against every
// adapter: memory, file and PostgreSQL (a throwaway cluster, a database per
// test; skipped, saying so, where initdb cannot be found). Three kinds of data: documents (`private`, read-
// modify-write whole), logs (`maps`, `datasets`, `templates`: append-only
// numbered entries) and blobs (`results`: stored by the hash of their content).
import { describe, it, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { canonicalJson } from '../../store/canonical-json.ts';
import { openFileStore } from '../../store/file.ts';
import { createMemoryStore } from '../../store/memory.ts';
import { openPostgresStore } from '../../store/postgres/adapter.ts';
import { emptyDatabase, noPostgres, startCluster, type Cluster } from '../helpers/postgres.ts';
import { MemoryEntries } from '../../auth/oidc/memory-entries.ts';
import {
  DOC_COLLECTIONS, LOG_COLLECTIONS, type Entry, type Json, type LogCollection, type Outline, type SharedEntries, type Store,
} from '../../store/types.ts';

interface Harness {
  store: Store;
  /** Closes the store and opens the same data again; absent for adapters without persistence. */
  restart?: () => Promise<Store>;
  dispose: () => Promise<void>;
}

type Doc = Record<string, unknown>;
const counter = (n: number) => (current: Doc | undefined) => ({ n: ((current?.n as number) ?? 0) + n });
const tick = () => new Promise((resolve) => setImmediate(resolve));
/** The next entry after `head`, with `fields`. */
const next = (fields: Record<string, Json> = {}) => (head: Entry | undefined): Entry => ({ ...fields, version: (head?.version ?? 0) + 1 });
const byCodeUnit = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** Keys that must never reach a file name. */
const BAD_KEYS = ['../x', 'a/b', 'a\\b', '..', '.', '.hidden', '__proto__', '', ' a', 'a b', 'a\0b', 'ä', 'x'.repeat(129), 'a\nb'];

/** Asserts `value` and everything in it is frozen: a stored value is shared by every reader. */
function assertDeepFrozen(value: unknown, where = 'value') {
  if (value === null || typeof value !== 'object') return;
  assert.ok(Object.isFrozen(value), `${where} is frozen`);
  for (const [k, v] of Object.entries(value)) assertDeepFrozen(v, `${where}.${k}`);
}

/** `persistent`: the adapter keeps data across a restart (its harness has `restart`). */
export function storeContract(name: string, makeHarness: () => Promise<Harness>, { persistent }: { persistent: boolean }) {
  describe(`store contract: ${name}`, () => {
    let h: Harness;
    let store: Store;
    beforeEach(async () => {
      h = await makeHarness();
      store = h.store;
    });
    afterEach(() => h.dispose());

    describe('documents: get and update', () => {
      it('returns undefined for an absent document and the stored one after update', async () => {
        assert.equal(store.get('private', 'users'), undefined);
        const returned = await store.update('private', 'users', () => ({ users: [{ name: 'admin' }] }));
        assert.deepEqual(store.get('private', 'users'), { users: [{ name: 'admin' }] });
        assert.equal(store.get('private', 'users'), returned, 'update resolves with the stored object');
        assert.equal(store.get('private', 'keys'), undefined, 'keys are separate');
      });

      it('stores the canonical form: keys sorted at every level, undefined dropped', async () => {
        const stored = await store.update<Doc>('private', 'm1', () => ({ z: 1, a: { y: [{ d: 1, c: undefined, b: 2 }], x: undefined } }));
        assert.equal(JSON.stringify(stored), '{"a":{"y":[{"b":2,"d":1}]},"z":1}');
      });

      it('gives fn the current document', async () => {
        await store.update('private', 't', () => ({ n: 1 }));
        let seen: unknown;
        await store.update<Doc>('private', 't', (current) => ((seen = current), { n: 2 }));
        assert.deepEqual(seen, { n: 1 });
      });

      it('keeps a document object stable until it is written, and replaces it on write', async () => {
        await store.update('private', 'a', () => ({ n: 1 }));
        await store.update('private', 'b', () => ({ n: 1 }));
        const a = store.get('private', 'a');
        assert.equal(store.get('private', 'a'), a);
        await store.update('private', 'b', counter(1));
        assert.equal(store.get('private', 'a'), a, 'a write to another key leaves it alone');
        await store.update('private', 'a', counter(1));
        assert.notEqual(store.get('private', 'a'), a);
        assert.deepEqual(a, { n: 1 }, 'the old object is not mutated');
      });

      it('freezes a written document: mutating it throws and changes nothing', async () => {
        const stored = await store.update<Doc>('private', 'f', () => ({ list: [{ a: 1 }], nested: { b: 2 } }));
        assert.throws(() => { stored.extra = 1; }, TypeError);
        assert.throws(() => { (stored.list as Doc[]).push({}); }, TypeError);
        assert.throws(() => { ((stored.list as Doc[])[0]).a = 2; }, TypeError);
        assert.throws(() => { (stored.nested as Doc).b = 3; }, TypeError);
        assert.deepEqual(store.get('private', 'f'), { list: [{ a: 1 }], nested: { b: 2 } });
      });

      it('stores what a JSON round trip gives: non-finite numbers null, -0 as 0, Dates as strings', async () => {
        const stored = await store.update<Doc>('private', 'j', () => ({ nan: NaN, inf: -Infinity, zero: -0, on: new Date(0), list: [undefined, () => 1] }));
        assert.deepEqual(stored, { inf: null, list: [null, null], nan: null, on: '1970-01-01T00:00:00.000Z', zero: 0 });
        assert.ok(Object.is(stored.zero, 0));
      });

      it('accepts an async fn and an array document', async () => {
        const stored = await store.update('private', 'r', async () => (await tick(), [1, 2, 3]));
        assert.deepEqual(stored, [1, 2, 3]);
      });
    });

    describe('documents: entries', () => {
      it('lists every document in code-unit key order', async () => {
        const keys = ['b', 'B', 'a', '0', 'a.b', 'a-b', 'a_b', 'Zz', 'aa'];
        for (const key of keys) await store.update('private', key, () => ({ key }));
        const listed = store.entries<Doc>('private');
        assert.deepEqual(listed.map(([k]) => k), [...keys].sort(byCodeUnit));
        for (const [key, doc] of listed) assert.equal(doc, store.get('private', key));
      });

      it('reflects writes and deletes, and the shared array cannot be mutated', async () => {
        await store.update('private', 'k2', () => ({ n: 2 }));
        const before = store.entries('private');
        assert.ok(Object.isFrozen(before));
        assert.throws(() => (before as unknown as unknown[]).push(['x', {}]), TypeError);
        await store.update('private', 'k1', () => ({ n: 1 }));
        assert.deepEqual(store.entries('private'), [['k1', { n: 1 }], ['k2', { n: 2 }]]);
        await store.update('private', 'k2', counter(1));
        assert.deepEqual(store.entries('private'), [['k1', { n: 1 }], ['k2', { n: 3 }]]);
        await store.delete('private', 'k1');
        assert.deepEqual(store.entries('private'), [['k2', { n: 3 }]]);
        assert.deepEqual(before, [['k2', { n: 2 }]], 'an earlier listing is a snapshot');
      });

      it('is empty in a new store, as is every log collection and the blobs', () => {
        for (const c of DOC_COLLECTIONS) assert.deepEqual(store.entries(c), []);
        for (const c of LOG_COLLECTIONS) assert.deepEqual(store.heads(c), []);
        assert.deepEqual(store.blobKeys(), []);
        assert.deepEqual(store.problems(), []);
      });
    });

    describe('documents: serialization per key', () => {
      it('100 concurrent updates give 100 distinct consecutive values', async () => {
        const results = await Promise.all(Array.from({ length: 100 }, () =>
          store.update<Doc>('private', 'hot', async (current) => {
            const n = ((current?.n as number) ?? 0) + 1;
            await tick(); // yield inside fn: a lost update would show here
            return { n };
          })));
        const values = results.map((doc) => doc.n as number).sort((a, b) => a - b);
        assert.deepEqual(values, Array.from({ length: 100 }, (_, i) => i + 1));
        assert.deepEqual(store.get('private', 'hot'), { n: 100 });
      });

      it('does not make different keys wait for each other', async () => {
        let releaseA!: () => void;
        const gate = new Promise<void>((resolve) => (releaseA = resolve));
        const a = store.update('private', 'a', async () => (await gate, { done: true }));
        await store.update('private', 'b', () => ({ done: true })); // would hang if keys shared one queue
        releaseA();
        await a;
        assert.deepEqual(store.get('private', 'a'), { done: true });
      });

      it('runs updates and deletes of one key in call order', async () => {
        const steps = [
          store.update('private', 'k', () => ({ n: 1 })),
          store.delete('private', 'k'),
          store.update<Doc>('private', 'k', (current) => ({ n: 10, sawDeleted: current === undefined })),
        ];
        await Promise.all(steps);
        assert.deepEqual(store.get('private', 'k'), { n: 10, sawDeleted: true });
      });
    });

    describe('documents: a failing fn writes nothing', () => {
      const failures: Array<[string, () => unknown, RegExp | (new (...args: never[]) => Error)]> = [
        ['throws', () => { throw new Error('boom'); }, /boom/],
        ['rejects', async () => { await tick(); throw new Error('later boom'); }, /later boom/],
        ['returns undefined', () => undefined, TypeError],
        ['returns null', () => null, TypeError],
        ['returns a number', () => 42, TypeError],
        ['returns a string', () => 'text', TypeError],
      ];
      for (const [label, fn, expected] of failures) {
        it(`when fn ${label}`, async () => {
          const before = await store.update('private', 'k', () => ({ n: 1 }));
          await assert.rejects(store.update('private', 'k', fn as never), expected as RegExp);
          assert.equal(store.get('private', 'k'), before);
          await assert.rejects(store.update('private', 'new', fn as never));
          assert.equal(store.get('private', 'new'), undefined);
          assert.deepEqual(store.entries('private').map(([key]) => key), ['k']);
          // The key is not left locked.
          assert.deepEqual(await store.update('private', 'k', counter(1)), { n: 2 });
          if (h.restart) {
            store = await h.restart();
            assert.deepEqual(store.get('private', 'k'), { n: 2 });
            assert.equal(store.get('private', 'new'), undefined);
          }
        });
      }
    });

    describe('documents: delete', () => {
      it('removes a document; deleting an absent one is fine', async () => {
        await store.update('private', 'gone', () => ({ n: 1 }));
        await store.delete('private', 'gone');
        await store.delete('private', 'never');
        assert.equal(store.get('private', 'gone'), undefined);
        if (h.restart) {
          store = await h.restart();
          assert.equal(store.get('private', 'gone'), undefined);
        }
      });
    });

    describe('logs: head, heads, versions, read', () => {
      it('knows nothing of a log never appended to', async () => {
        assert.equal(store.head('maps', 'none'), undefined);
        assert.deepEqual(store.versions('maps', 'none'), []);
        assert.equal(await store.read('maps', 'none', 1), undefined);
      });

      it('append resolves with the stored entry, which becomes the head; versions grow', async () => {
        const v1 = await store.append('maps', 'm', next({ name: 'first' }));
        assert.deepEqual(v1, { name: 'first', version: 1 });
        assert.equal(store.head('maps', 'm'), v1, 'the head is the object append resolved with');
        const v2 = await store.append('maps', 'm', next({ name: 'second' }));
        assert.equal(store.head('maps', 'm'), v2);
        assert.deepEqual(store.versions('maps', 'm'), [1, 2]);
        assert.equal(store.head('datasets', 'm'), undefined, 'collections are separate');
        assert.deepEqual(store.versions('datasets', 'm'), []);
      });

      it('gives fn the head, and accepts an async fn', async () => {
        await store.append('templates', 't', next({ n: 1 }));
        let seen: unknown;
        await store.append('templates', 't', async (head) => (seen = head, await tick(), next({ n: 2 })(head)));
        assert.deepEqual(seen, { n: 1, version: 1 });
      });

      it('stores the canonical form of an entry, as a JSON round trip gives it', async () => {
        const stored = await store.append<Entry>('maps', 'c', () => ({ z: 1, version: 1, a: { y: [{ d: 1, c: undefined, b: 2 }] }, nan: NaN, on: new Date(0) } as never));
        assert.equal(JSON.stringify(stored), '{"a":{"y":[{"b":2,"d":1}]},"nan":null,"on":"1970-01-01T00:00:00.000Z","version":1,"z":1}');
      });

      it('accepts versions that skip numbers and lists exactly the ones stored', async () => {
        for (const version of [1, 2, 5, 9]) await store.append('datasets', 'gaps', () => ({ version }));
        assert.deepEqual(store.versions('datasets', 'gaps'), [1, 2, 5, 9]);
        assert.equal(await store.read('datasets', 'gaps', 3), undefined);
        assert.deepEqual(await store.read('datasets', 'gaps', 5), { version: 5 });
      });

      it('reads every older entry back exactly as appended, and undefined for versions it does not hold', async () => {
        const appended: Entry[] = [];
        for (let i = 1; i <= 12; i++) {
          appended.push(await store.append('maps', 'hist', next({ text: `ünïcödé ${i} "quoted" \u2028`, list: [i, { z: null, a: true }] })));
        }
        for (const entry of appended) {
          const read = await store.read('maps', 'hist', entry.version);
          assert.deepEqual(read, entry, `version ${entry.version}`);
          assert.equal(canonicalJson(read), canonicalJson(entry));
        }
        for (const absent of [0, 13, 1.5, -1]) assert.equal(await store.read('maps', 'hist', absent), undefined, `version ${absent}`);
      });

      it('freezes entries: the one append resolves with, the head, and an older one read back', async () => {
        const first = await store.append<Entry>('maps', 'f', next({ list: [{ a: 1 }], nested: { b: 2 } }));
        await store.append('maps', 'f', next());
        assertDeepFrozen(first, 'appended');
        assertDeepFrozen(store.head('maps', 'f'), 'head');
        const old = await store.read<Entry>('maps', 'f', 1);
        assertDeepFrozen(old, 'read');
        assert.throws(() => { (old!.list as Doc[]).push({}); }, TypeError);
        assert.deepEqual(await store.read('maps', 'f', 1), { list: [{ a: 1 }], nested: { b: 2 }, version: 1 });
      });

      it('lists heads in code-unit key order, one per log, each the latest entry', async () => {
        const keys = ['b', 'B', 'a', '0', 'a.b', 'a-b', 'a_b', 'Zz', 'aa'];
        for (const key of keys) {
          await store.append('maps', key, next({ key }));
          await store.append('maps', key, next({ key }));
        }
        await store.append('datasets', 'other', next());
        const listed = store.heads('maps');
        assert.deepEqual(listed.map(([k]) => k), [...keys].sort(byCodeUnit));
        for (const [key, head] of listed) {
          assert.equal(head, store.head('maps', key));
          assert.deepEqual(head, { key, version: 2 });
        }
        assert.deepEqual(store.heads('datasets').map(([k]) => k), ['other']);
        assert.deepEqual(store.heads('templates'), []);
      });

      it('heads is a frozen snapshot', async () => {
        await store.append('maps', 'k2', next());
        const before = store.heads('maps');
        assert.ok(Object.isFrozen(before));
        assert.throws(() => (before as unknown as unknown[]).push(['x', {}]), TypeError);
        await store.append('maps', 'k1', next());
        await store.append('maps', 'k2', next());
        assert.deepEqual(store.heads('maps'), [['k1', { version: 1 }], ['k2', { version: 2 }]]);
        assert.deepEqual(before, [['k2', { version: 1 }]], 'an earlier listing is a snapshot');
      });
    });

    describe('logs: append refuses what is not a next entry, and writes nothing', () => {
      // [label, fn (given a head at version 2), what the rejection is, whether it is refused as a first entry too]
      const returns = (value: unknown) => () => value;
      const refused: Array<[string, () => unknown, RegExp | (new (...args: never[]) => Error), boolean?]> = [
        ['returns the head\'s own version', returns({ version: 2 }), TypeError, false],
        ['returns a lower version', returns({ version: 1 }), TypeError, false],
        ['returns version 0', returns({ version: 0 }), TypeError],
        ['returns a negative version', returns({ version: -3 }), TypeError],
        ['returns a fractional version', returns({ version: 2.5 }), TypeError],
        ['returns a version as a string', returns({ version: '3' }), TypeError],
        ['returns no version', returns({ name: 'x' }), TypeError],
        ['returns an unsafe integer', returns({ version: 2 ** 53 }), TypeError],
        ['returns an array', returns([{ version: 3 }]), TypeError],
        ['returns null', returns(null), TypeError],
        ['returns undefined', returns(undefined), TypeError],
        ['returns a number', returns(3), TypeError],
        ['returns a string', returns('v3'), TypeError],
        ['throws', () => { throw new Error('boom'); }, /boom/],
        ['rejects', async () => { await tick(); throw new Error('later boom'); }, /later boom/],
      ];
      for (const [label, fn, expected, firstToo = true] of refused) {
        it(`when fn ${label}`, async () => {
          await store.append('maps', 'k', next());
          const head = await store.append('maps', 'k', next());
          await assert.rejects(store.append('maps', 'k', fn as never), expected as RegExp);
          assert.equal(store.head('maps', 'k'), head);
          assert.deepEqual(store.versions('maps', 'k'), [1, 2]);
          if (firstToo) {
            // A log that does not exist yet is not created by a refused first entry.
            await assert.rejects(store.append('maps', 'new', fn as never));
            assert.equal(store.head('maps', 'new'), undefined);
            assert.deepEqual(store.versions('maps', 'new'), []);
          }
          assert.deepEqual(store.heads('maps').map(([key]) => key), ['k']);
          // The key is not left locked.
          assert.equal((await store.append('maps', 'k', next())).version, 3);
          if (h.restart) {
            store = await h.restart();
            assert.deepEqual(store.versions('maps', 'k'), [1, 2, 3]);
            assert.deepEqual(store.versions('maps', 'new'), []);
          }
        });
      }
    });

    describe('logs: serialization per key', () => {
      it('100 concurrent appends on one key give 100 consecutive versions, each holding its own content', async () => {
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) =>
          store.append('maps', 'hot', async (head) => {
            const version = (head?.version ?? 0) + 1;
            await tick(); // yield inside fn: two appends seeing one head would show here
            return { version, writer: i };
          })));
        assert.deepEqual(results.map((e) => e.version).sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => i + 1));
        assert.deepEqual(results.map((e) => e.writer), Array.from({ length: 100 }, (_, i) => i), 'appends run in call order');
        assert.deepEqual(store.versions('maps', 'hot'), Array.from({ length: 100 }, (_, i) => i + 1));
        assert.deepEqual(store.head('maps', 'hot'), { version: 100, writer: 99 });
        for (const entry of results) assert.deepEqual(await store.read('maps', 'hot', entry.version), entry);
      });

      it('does not make different keys wait for each other', async () => {
        let releaseA!: () => void;
        const gate = new Promise<void>((resolve) => (releaseA = resolve));
        const a = store.append('maps', 'a', async (head) => (await gate, next()(head)));
        await store.append('maps', 'b', next()); // would hang if keys shared one queue
        releaseA();
        await a;
        assert.deepEqual(store.head('maps', 'a'), { version: 1 });
      });
    });

    describe('logs: drop', () => {
      it('removes a whole log; dropping an absent one is fine; the key can start again at 1', async () => {
        for (let i = 0; i < 3; i++) await store.append('maps', 'gone', next());
        await store.append('maps', 'kept', next());
        await store.drop('maps', 'gone');
        await store.drop('maps', 'never');
        assert.equal(store.head('maps', 'gone'), undefined);
        assert.deepEqual(store.versions('maps', 'gone'), []);
        assert.equal(await store.read('maps', 'gone', 1), undefined);
        assert.deepEqual(store.heads('maps').map(([key]) => key), ['kept']);
        if (h.restart) {
          store = await h.restart();
          assert.equal(store.head('maps', 'gone'), undefined);
          assert.deepEqual(store.versions('maps', 'gone'), []);
          assert.deepEqual(store.heads('maps').map(([key]) => key), ['kept']);
        }
        assert.deepEqual(await store.append('maps', 'gone', next({ again: true })), { again: true, version: 1 });
        assert.deepEqual(await store.read('maps', 'gone', 1), { again: true, version: 1 });
      });
    });

    describe('logs: outlines', () => {
      /** An outline as plain data (its fields have no prototype, so a field named `constructor` is the entry's own). */
      const plain = (outline: Outline | undefined) => outline && { fields: { ...outline.fields }, omitted: [...outline.omitted] };
      /** A log's outlines as plain data, by entry number. */
      const listed = async (c: LogCollection, key: string) => [...(await store.outlines(c, key))].sort(([a], [b]) => a - b).map(([n, o]) => [n, plain(o)]);
      const full = { name: 'Core', n: 2.5, on: true, none: null, constructor: 'own', long: 'x'.repeat(300), obj: { a: 1 }, list: [1] };

      it('holds each entry\'s short top-level scalars and the names of its other fields, by entry number', async () => {
        assert.equal((await store.outlines('maps', 'never')).size, 0, 'an unknown log has none');
        await store.append('maps', 'k', next(full));
        await store.append('maps', 'k', next({ name: 'Edge', skipped: undefined as unknown as Json }));
        const outlines = await store.outlines('maps', 'k');
        assert.deepEqual([...outlines.keys()].sort(), [1, 2]);
        assert.deepEqual(plain(outlines.get(1)), {
          fields: { constructor: 'own', n: 2.5, name: 'Core', none: null, on: true, version: 1 }, omitted: ['list', 'long', 'obj'],
        });
        assert.deepEqual(plain(outlines.get(2)), { fields: { name: 'Edge', version: 2 }, omitted: [] }, 'an undefined field is not stored');
        assertDeepFrozen(outlines.get(1));
        await store.append('maps', 'k', next({ name: 'Third' }));
        assert.deepEqual(plain((await store.outlines('maps', 'k')).get(3)), { fields: { name: 'Third', version: 3 }, omitted: [] });
      });

      it('a failed append stores no outline', async () => {
        await store.append('maps', 'f', next({ name: 'one' }));
        await assert.rejects(store.append('maps', 'f', () => { throw new Error('no'); }));
        await assert.rejects(store.append('maps', 'f', () => ({ version: 1, name: 'again' })));
        const outlines = await store.outlines('maps', 'f');
        assert.deepEqual([...outlines.keys()], [1]);
        assert.equal(outlines.get(1)?.fields.name, 'one');
      });

      it('are kept across a restart and go with their log', async () => {
        for (let i = 0; i < 3; i++) await store.append('templates', 't', next({ ...full, i }));
        await store.append('templates', 'gone', next({ name: 'gone' }));
        const before = await listed('templates', 't');
        if (h.restart) store = await h.restart();
        assert.deepEqual(await listed('templates', 't'), before);
        await store.drop('templates', 'gone');
        assert.equal((await store.outlines('templates', 'gone')).size, 0);
        await store.append('templates', 'gone', next({ name: 'again' }));
        if (h.restart) store = await h.restart();
        assert.deepEqual(await listed('templates', 'gone'), [[1, { fields: { name: 'again', version: 1 }, omitted: [] }]], 'a log started again has its own outlines only');
      });
    });

    describe('blobs', () => {
      it('put resolves with the SHA-256 of the canonical bytes; fetch gives the content back', async () => {
        const value = { z: [1, { b: 2, a: 'ünïcödé' }], a: null };
        const key = await store.put(value);
        assert.equal(key, sha256(canonicalJson(value)));
        assert.match(key, /^[0-9a-f]{64}$/);
        const fetched = await store.fetch(key);
        assert.deepEqual(fetched, value);
        assert.equal(JSON.stringify(fetched), '{"a":null,"z":[1,{"a":"ünïcödé","b":2}]}', 'in canonical form');
        assertDeepFrozen(fetched, 'fetched');
        assert.deepEqual(store.blobKeys(), [key]);
      });

      it('equal content, in any key order and at once, is stored once under one key', async () => {
        const keys = await Promise.all([
          store.put({ a: 1, b: [1, 2] }),
          store.put({ b: [1, 2], a: 1 }),
          store.put(JSON.parse('{"b":[1,2],"a":1}')),
        ]);
        assert.equal(new Set(keys).size, 1);
        assert.equal(await store.put({ a: 1, b: [1, 2] }), keys[0]);
        assert.deepEqual(store.blobKeys(), [keys[0]]);
        const other = await store.put({ a: 2, b: [1, 2] });
        assert.notEqual(other, keys[0]);
        assert.deepEqual(store.blobKeys(), [keys[0], other].sort(byCodeUnit));
      });

      it('stores any JSON value, arrays and scalars included', async () => {
        for (const value of [[1, 'two', null], 'text', 42, null, true] as Json[]) {
          const key = await store.put(value);
          assert.deepEqual(await store.fetch(key), value, JSON.stringify(value));
        }
        assert.equal(store.blobKeys().length, 5);
      });

      it('fetch of an unknown key is undefined', async () => {
        assert.equal(await store.fetch(sha256('nothing')), undefined);
        assert.equal(await store.fetch('../private/users'), undefined);
      });

      it('blobBytes gives the stored bytes: the canonical JSON in UTF-8, the same before and after a restart', async () => {
        const value = { z: [1, { b: 2, a: 'ünïcödé \u2028 "q"' }], a: null };
        const key = await store.put(value);
        const canonical = Buffer.from(canonicalJson(value), 'utf8');
        const bytes = await store.blobBytes(key);
        assert.ok(bytes instanceof Uint8Array);
        assert.deepEqual(Buffer.from(bytes), canonical);
        assert.equal(sha256(Buffer.from(bytes).toString('utf8')), key, 'the bytes are what the key names');
        bytes.fill(0);
        assert.deepEqual(Buffer.from(await store.blobBytes(key) as Uint8Array), canonical, 'each caller has its own bytes');
        assert.deepEqual(await store.fetch(key), value, 'fetch is unaffected');
        if (h.restart) {
          store = await h.restart();
          assert.deepEqual(Buffer.from(await store.blobBytes(key) as Uint8Array), canonical);
        }
      });

      it('blobBytes of an unknown, forgotten or malformed key is undefined', async () => {
        assert.equal(await store.blobBytes(sha256('nothing')), undefined);
        for (const bad of BAD_KEYS) assert.equal(await store.blobBytes(bad), undefined, JSON.stringify(bad));
        const key = await store.put({ n: 1 });
        await store.forget(key);
        assert.equal(await store.blobBytes(key), undefined);
      });

      it('forget removes a blob; forgetting an absent one is fine; the content can be put again', async () => {
        const key = await store.put({ n: 1 });
        const kept = await store.put({ n: 2 });
        await store.forget(key);
        await store.forget(sha256('never stored'));
        assert.equal(await store.fetch(key), undefined);
        assert.deepEqual(store.blobKeys(), [kept]);
        if (h.restart) {
          store = await h.restart();
          assert.deepEqual(store.blobKeys(), [kept]);
          assert.equal(await store.fetch(key), undefined);
        }
        assert.equal(await store.put({ n: 1 }), key);
        assert.deepEqual(await store.fetch(key), { n: 1 });
      });
    });

    describe('keys and collections', () => {
      for (const key of BAD_KEYS) {
        it(`refuses the key ${JSON.stringify(key)} everywhere, with a rejection`, async () => {
          // Rejections, not synchronous throws: callers chain .catch() on these promises.
          const calls: Array<[string, () => Promise<unknown>]> = [
            ['update', () => store.update('private', key, () => ({ n: 1 }))],
            ['delete', () => store.delete('private', key)],
            ['append', () => store.append('maps', key, () => ({ version: 1 }))],
            ['drop', () => store.drop('maps', key)],
            ['forget', () => store.forget(key)],
          ];
          for (const [label, call] of calls) {
            let promise: Promise<unknown> | undefined;
            assert.doesNotThrow(() => { promise = call(); }, `${label} throws instead of rejecting`);
            await assert.rejects(promise!, /invalid store key/, label);
          }
          assert.equal(store.get('private', key), undefined);
          assert.equal(store.head('maps', key), undefined);
          assert.deepEqual(store.entries('private'), []);
          assert.deepEqual(store.heads('maps'), []);
          assert.equal(await store.fetch(key), undefined);
        });
      }

      it('accepts the longest allowed key', async () => {
        const key = 'k'.repeat(128);
        await store.update('private', key, () => ({ n: 1 }));
        await store.append('templates', key, next());
        assert.deepEqual(store.get('private', key), { n: 1 });
        assert.deepEqual(store.head('templates', key), { version: 1 });
      });

      it('refuses an unknown collection', async () => {
        await assert.rejects(store.update('../private' as never, 'k', () => ({})), /unknown collection/);
        await assert.rejects(store.update('constructor' as never, 'k', () => ({})), /unknown collection/);
        await assert.rejects(store.append('../maps' as never, 'k', () => ({ version: 1 })), /unknown collection/);
      });

      it('refuses a collection of the other kind (untyped callers): documents only in private, logs only in maps, datasets, templates', async () => {
        // A document written into maps/ would be a file the next start takes for an old-layout one.
        for (const c of [...LOG_COLLECTIONS, 'results']) {
          await assert.rejects(store.update(c as never, 'k', () => ({ version: 1 })), /is not one of private/, c);
          await assert.rejects(store.delete(c as never, 'k'), /is not one of private/, c);
        }
        for (const c of [...DOC_COLLECTIONS, 'results']) {
          await assert.rejects(store.append(c as never, 'k', () => ({ version: 1 })), /is not one of maps, datasets, templates/, c);
          await assert.rejects(store.drop(c as never, 'k'), /is not one of maps/, c);
        }
        assert.deepEqual(store.entries('private'), []);
        for (const c of LOG_COLLECTIONS) assert.deepEqual(store.heads(c), []);
        if (h.restart) {
          store = await h.restart();
          assert.deepEqual(store.problems(), [], 'nothing was written that the next start would trip on');
        }
      });
    });

    describe('prototype pollution', () => {
      const body = () => JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted2": true}},' +
        ' "nested": [{"__proto__": {"polluted3": true}}], "version": 1}');
      const check = (doc: Doc) => {
        assert.equal(Object.getPrototypeOf(doc), Object.prototype);
        assert.ok(Object.hasOwn(doc, '__proto__'));
        assert.deepEqual(Object.getOwnPropertyDescriptor(doc, '__proto__')?.value, { polluted: true });
        assert.deepEqual((doc.constructor as unknown as Doc).prototype, { polluted2: true });
        const nested = (doc.nested as Doc[])[0];
        assert.ok(Object.hasOwn(nested, '__proto__'));
        assert.equal(Object.getPrototypeOf(nested), Object.prototype);
        const plain = {} as Doc;
        assert.equal(plain.polluted, undefined);
        assert.equal(plain.polluted2, undefined);
        assert.equal(plain.polluted3, undefined);
      };

      it('stores __proto__ and constructor keys as plain data in documents, log entries and blobs', async () => {
        check(await store.update<Doc>('private', 'p', body));
        check(await store.append('maps', 'p', body) as Doc);
        await store.append('maps', 'p', next());
        check(await store.read('maps', 'p', 1) as Doc);
        const key = await store.put(body());
        check(await store.fetch<Doc>(key) as Doc);
        if (h.restart) {
          store = await h.restart();
          check(store.get<Doc>('private', 'p')!);
          check(await store.read('maps', 'p', 1) as Doc);
          check(await store.fetch<Doc>(key) as Doc);
        }
      });
    });

    describe('close', () => {
      it('waits for pending writes and refuses writes afterwards', async () => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const pendingDoc = store.update('private', 'slow', async () => (await gate, { n: 1 }));
        const pendingEntry = store.append('maps', 'slow', async () => (await gate, { version: 1 }));
        let closed = false;
        const closing = store.close().then(() => (closed = true));
        await tick();
        assert.equal(closed, false, 'close waits for the pending writes');
        release();
        assert.deepEqual(await pendingDoc, { n: 1 });
        assert.deepEqual(await pendingEntry, { version: 1 });
        await closing;
        await assert.rejects(store.update('private', 'slow', counter(1)), /closed/);
        await assert.rejects(store.delete('private', 'slow'), /closed/);
        await assert.rejects(store.append('maps', 'slow', next()), /closed/);
        await assert.rejects(store.drop('maps', 'slow'), /closed/);
        await assert.rejects(store.put({ new: 'content' }), /closed/);
        await store.close(); // idempotent
      });
    });

    if (persistent) describe('restart', () => {
      it('serves every document, head, version, older entry and blob identically after a restart', async () => {
        const text = 'ünïcödé "quoted" \u2028';
        for (let i = 0; i < 5; i++) await store.update('private', `doc-${i}`, () => ({ i, text, list: [i, { z: null, a: true }] }));
        await store.delete('private', 'doc-3');
        const logs: Array<[LogCollection, string]> = [];
        for (const c of LOG_COLLECTIONS) {
          for (let i = 0; i < 4; i++) {
            const key = `${c}-${i}`;
            logs.push([c, key]);
            for (let n = 0; n <= i; n++) await store.append(c, key, next({ c, i, n, text }));
          }
        }
        await store.drop('maps', 'maps-2');
        const blobs = await Promise.all([1, 2, 3].map((i) => store.put({ i, text })));
        await store.forget(blobs[1]);

        const snapshot = async (s: Store) => ({
          docs: DOC_COLLECTIONS.map((c) => JSON.stringify(s.entries(c))),
          heads: LOG_COLLECTIONS.map((c) => JSON.stringify(s.heads(c))),
          versions: logs.map(([c, key]) => [c, key, s.versions(c, key)]),
          entries: await Promise.all(logs.map(async ([c, key]) =>
            Promise.all(s.versions(c, key).map(async (v) => JSON.stringify(await s.read(c, key, v)))))),
          blobKeys: [...s.blobKeys()],
          blobs: await Promise.all(s.blobKeys().map(async (key) => JSON.stringify(await s.fetch(key)))),
          problems: [...s.problems()],
        });
        const before = await snapshot(store);
        assert.equal(before.versions.find(([, key]) => key === 'templates-3')![2].length, 4, 'the snapshot holds histories');
        store = await h.restart!();
        assert.deepEqual(await snapshot(store), before);
        assert.deepEqual(store.problems(), []);
      });
    });
  });
}

storeContract('memory', async () => {
  const store = createMemoryStore();
  return { store, dispose: () => store.close() };
}, { persistent: false });

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
}, { persistent: true });


/**
 * Short-lived entries shared by replicas (SharedEntries): the PostgreSQL
 * store's table, and the memory the built-in provider uses without one
 * (auth/oidc/memory-entries.ts), behave alike. Lookup names are the
 * writer's: these tests choose their own, the provider chooses others.
 */
export function sharedEntriesContract(name: string, make: () => Promise<{ entries: SharedEntries; dispose: () => Promise<void> }>) {
  describe(`shared entries contract: ${name}`, () => {
    let entries: SharedEntries;
    let dispose: () => Promise<void>;
    beforeEach(async () => ({ entries, dispose } = await make()));
    afterEach(() => dispose());
    const later = () => Math.floor(Date.now() / 1000) + 600;

    it('sets, gets, overwrites and deletes an entry by kind and ID; kinds do not mix', async () => {
      assert.equal(await entries.get('Ticket', 'i1'), undefined);
      await entries.set('Ticket', 'i1', { payload: { n: 1 }, lookup: { holder: 'u1' }, exp: later() });
      await entries.set('Visit', 'i1', { payload: { n: 2 } });
      assert.deepEqual((await entries.get('Ticket', 'i1'))?.payload, { n: 1 });
      assert.deepEqual((await entries.get('Ticket', 'i1'))?.lookup, { holder: 'u1' });
      assert.deepEqual(await entries.get('Visit', 'i1'), { payload: { n: 2 } });
      await entries.set('Ticket', 'i1', { payload: { n: 3 }, lookup: { holder: 'u2' }, exp: later() });
      assert.deepEqual((await entries.get('Ticket', 'i1'))?.payload, { n: 3 });
      assert.equal(await entries.findBy('Ticket', 'holder', 'u1'), undefined, 'the old value no longer finds it');
      assert.equal((await entries.findBy('Ticket', 'holder', 'u2'))?.payload.n, 3);
      await entries.delete('Ticket', 'i1');
      assert.equal(await entries.get('Ticket', 'i1'), undefined);
      assert.ok(await entries.get('Visit', 'i1'));
    });

    it('finds an entry by each lookup value its writer chose, under that name and of its kind only', async () => {
      const lookup = { holder: 'h9', code: 'UC-9', batch: 'b9', "it's \"odd\"": 'x\'; DROP TABLE shared_entries; --' };
      await entries.set('Visit', 's9', { payload: { n: 9 }, lookup, exp: later() });
      for (const [key, value] of Object.entries(lookup)) {
        assert.deepEqual((await entries.findBy('Visit', key, value))?.payload, { n: 9 }, key);
        assert.equal(await entries.findBy('Ticket', key, value), undefined, `${key} in another kind`);
      }
      assert.equal(await entries.findBy('Visit', 'code', 'h9'), undefined, 'a value under another name');
      assert.equal(await entries.findBy('Visit', 'payload', 'anything'), undefined, 'a name nobody gave');
      assert.equal(await entries.findBy('Visit', 'constructor', 'x'), undefined);
    });

    it('never returns an expired entry', async () => {
      await entries.set('Code', 'old', { payload: {}, lookup: { batch: 'gx' }, exp: Math.floor(Date.now() / 1000) - 1 });
      assert.equal(await entries.get('Code', 'old'), undefined);
      assert.equal(await entries.findBy('Code', 'batch', 'gx'), undefined);
      assert.equal(await entries.consume('Code', 'old', 1), 'missing');
    });

    it('consumes an entry once: of parallel consumptions exactly one, the rest are reuse; a missing one is missing', async () => {
      await entries.set('Code', 'c1', { payload: { n: 1 }, lookup: { batch: 'g1' }, exp: later() });
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => entries.consume('Code', 'c1', 1234)));
      assert.deepEqual(outcomes.sort(), ['consumed', 'reused', 'reused', 'reused', 'reused', 'reused']);
      const consumed = await entries.get('Code', 'c1');
      assert.equal(consumed?.consumed, 1234);
      assert.deepEqual(consumed?.payload, { n: 1 }, 'the payload is the writer\'s own');
      assert.equal((await entries.findBy('Code', 'batch', 'g1'))?.consumed, 1234);
      assert.equal(await entries.consume('Code', 'nothing', 1), 'missing');
      await entries.set('Code', 'c2', { payload: {}, consumed: 99, exp: later() });
      assert.equal(await entries.consume('Code', 'c2', 1), 'reused', 'written consumed');
    });

    it('deletes by a lookup value (of some kinds or all)', async () => {
      await entries.set('Code', 'a', { payload: {}, lookup: { batch: 'g', holder: 'x' }, exp: later() });
      await entries.set('Token', 'b', { payload: {}, lookup: { batch: 'g' }, exp: later() });
      await entries.set('Visit', 'c', { payload: {}, lookup: { holder: 'x' }, exp: later() });
      await entries.set('Visit', 'd', { payload: {}, lookup: { holder: 'y' }, exp: later() });
      await entries.set('Visit', 'e', { payload: {}, lookup: { batch: 'x' }, exp: later() });
      await entries.deleteWhere('batch', 'g', ['Token']);
      assert.equal(await entries.get('Token', 'b'), undefined);
      assert.ok(await entries.get('Code', 'a'), 'another kind stays');
      await entries.deleteWhere('holder', 'x');
      assert.equal(await entries.get('Code', 'a'), undefined);
      assert.equal(await entries.get('Visit', 'c'), undefined);
      assert.ok(await entries.get('Visit', 'd'));
      assert.ok(await entries.get('Visit', 'e'), 'the same value under another name stays');
    });
  });
}

sharedEntriesContract('memory (built-in provider without a shared store)', async () => ({ entries: new MemoryEntries(100), dispose: async () => undefined }));

if (noPostgres) describe('store contract: postgres', { skip: noPostgres }, () => undefined);
else {
  let cluster: Promise<Cluster> | undefined;
  let database: Promise<string> | undefined;
  after(async () => (await cluster)?.stop());
  sharedEntriesContract('postgres', async () => {
    cluster ??= startCluster();
    const url = await (database ??= cluster.then((c) => c.createDatabase()));
    await emptyDatabase(url);
    const store = await openPostgresStore(url, { log: () => undefined });
    return { entries: store.sharedEntries!, dispose: () => store.close() };
  });
  storeContract('postgres', async () => {
    // One database, emptied before each test: creating one per test would cost most of the suite's time.
    cluster ??= startCluster();
    const url = await (database ??= cluster.then((c) => c.createDatabase()));
    await emptyDatabase(url);
    const silent = () => undefined;
    let store = await openPostgresStore(url, { log: silent });
    return {
      store,
      restart: async () => {
        await store.close();
        store = await openPostgresStore(url, { log: silent });
        return store;
      },
      dispose: () => store.close(),
    };
  }, { persistent: true });
}
