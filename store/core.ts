// The store contract (types.ts) over any Persistence: everything but the
// bytes. Documents and the latest entry of every log live in memory; older
// entries and blobs are read on demand through a small cache, so memory and
// start-up follow the latest versions, not the history. Writes to one key run
// one after another (key-lock.ts) and change memory only once durable.
import { ServiceError } from '../errors.ts';
import { canonicalCopy, canonicalJson } from './canonical-json.ts';
import { DocIndex } from './doc-index.ts';
import { KeyLock } from './key-lock.ts';
import { assertDocument, assertEntry, assertKey, blobKeyOf, documentName, MAX_FILE_BYTES } from './keys.ts';
import { Lru } from './lru.ts';
import type { Loaded, Persistence } from './persistence.ts';
import { BLOB_COLLECTION, DOC_COLLECTIONS, LOG_COLLECTIONS, type Entry, type Json, type Store, type UnreadableFile } from './types.ts';

/** Characters of older entries and blobs kept in memory after a read. */
const CACHE_BUDGET = 64 * 1024 * 1024;

type LogState = { versions: number[]; problem?: UnreadableFile };

const unavailable = (problem: UnreadableFile) => new ServiceError('resource_unavailable',
  `${problem.collection}/${problem.key} cannot be served: data file ${problem.where} ${problem.message}; ` +
  'repair or move the file and restart the service');

const tooLarge = (what: string, bytes: number) => new ServiceError('storage_unavailable',
  `${what} was not saved: its ${bytes} bytes are more than the ${MAX_FILE_BYTES} a stored file may hold`);

export function createStore(persistence: Persistence, loaded: Loaded): Store {
  const docs = new DocIndex();
  const heads = new DocIndex();
  const logs = new Map<string, LogState>();
  const blobs = new Set(loaded.blobs);
  const problems = [...loaded.problems];
  const cache = new Lru<unknown>(CACHE_BUDGET);
  const reading = new Map<string, Promise<unknown>>();
  const locks = new KeyLock();
  let closed = false;

  for (const [c, key, doc] of loaded.docs) docs.load(c, key, doc);
  for (const log of loaded.logs) {
    logs.set(documentName(log.collection, log.key), { versions: log.versions, problem: log.problem });
    if (log.problem) problems.push(log.problem);
    else if (log.head) heads.load(log.collection, log.key, log.head);
  }

  const ensureOpen = () => {
    if (closed) throw new Error('store is closed');
  };
  const note = (problem: UnreadableFile) => {
    if (!problems.some((p) => p.where === problem.where)) problems.push(problem);
    return unavailable(problem);
  };
  /** Reads and parses once however many callers ask at the same time; cached after. */
  const readOnce = <T>(id: string, load: () => Promise<{ value: T; weight: number }>): Promise<T> => {
    const hit = cache.get(id);
    if (hit !== undefined) return Promise.resolve(hit as T);
    let pending = reading.get(id) as Promise<T> | undefined;
    if (!pending) {
      pending = load().then(({ value, weight }) => {
        cache.set(id, value, weight);
        return value;
      });
      reading.set(id, pending);
      void pending.finally(() => reading.delete(id)).catch(() => undefined);
    }
    return pending;
  };
  const parseStored = <T>(text: string, problem: Omit<UnreadableFile, 'message'>): T => {
    try {
      return canonicalCopy<T>(text);
    } catch (error) {
      throw note({ ...problem, message: `is not valid JSON (${(error as Error).message})` });
    }
  };

  return {
    get: (c, key) => docs.get(c, key) as never,
    entries: (c) => docs.entries(c) as never,
    update: async (c, key, fn) => {
      assertKey(c, key, DOC_COLLECTIONS);
      return locks.run(documentName(c, key), async () => {
        ensureOpen();
        const current = docs.get(c, key) as never;
        const next = await fn(current);
        assertDocument(c, key, next);
        const text = canonicalJson(next);
        if (text.length > MAX_FILE_BYTES) throw tooLarge(documentName(c, key), text.length);
        await persistence.writeDoc(c, key, text, current);
        const stored = canonicalCopy<never>(text);
        docs.set(c, key, stored);
        return stored;
      });
    },
    delete: async (c, key) => {
      assertKey(c, key, DOC_COLLECTIONS);
      return locks.run(documentName(c, key), async () => {
        ensureOpen();
        await persistence.removeDoc(c, key, docs.get(c, key) as Json | undefined);
        docs.delete(c, key);
      });
    },

    head: (c, key) => {
      const state = logs.get(documentName(c, key));
      if (state?.problem) throw unavailable(state.problem);
      return heads.get(c, key) as never;
    },
    heads: (c) => heads.entries(c) as never,
    versions: (c, key) => logs.get(documentName(c, key))?.versions ?? [],
    read: async (c, key, version) => {
      const state = logs.get(documentName(c, key));
      if (!state?.versions.includes(version)) return undefined;
      const head = heads.get(c, key) as Entry | undefined;
      if (head?.version === version) return head as never;
      const where = persistence.whereEntry(c, key, version);
      return readOnce(where, async () => {
        let text: string;
        try {
          text = await persistence.readEntry(c, key, version);
        } catch (error) {
          throw note({ collection: c, key, where, message: (error as Error).message });
        }
        const entry = parseStored<Entry>(text, { collection: c, key, where });
        if (entry === null || typeof entry !== 'object' || entry.version !== version) {
          throw note({ collection: c, key, where, message: `does not hold version ${version}` });
        }
        return { value: entry, weight: text.length };
      }) as never;
    },
    append: async (c, key, fn) => {
      assertKey(c, key, LOG_COLLECTIONS);
      const name = documentName(c, key);
      return locks.run(name, async () => {
        ensureOpen();
        const state = logs.get(name);
        if (state?.problem) throw unavailable(state.problem);
        const head = heads.get(c, key) as never;
        const next = await fn(head);
        assertEntry(c, key, head, next);
        const text = canonicalJson(next);
        if (text.length > MAX_FILE_BYTES) throw tooLarge(name, text.length);
        await persistence.writeEntry(c, key, next.version, text, !state);
        const stored = canonicalCopy<never>(text);
        if (state) state.versions.push(next.version);
        else logs.set(name, { versions: [next.version] });
        heads.set(c, key, stored);
        return stored;
      });
    },
    drop: async (c, key) => {
      assertKey(c, key, LOG_COLLECTIONS);
      const name = documentName(c, key);
      return locks.run(name, async () => {
        ensureOpen();
        const state = logs.get(name);
        if (!state) return;
        await persistence.dropLog(c, key, state.versions);
        logs.delete(name);
        heads.delete(c, key);
      });
    },

    put: async (value) => {
      const text = canonicalJson(value);
      const key = blobKeyOf(text);
      if (blobs.has(key)) return key;
      if (text.length > MAX_FILE_BYTES) throw tooLarge(`${BLOB_COLLECTION}/${key}`, text.length);
      return locks.run(documentName(BLOB_COLLECTION, key), async () => {
        ensureOpen();
        if (blobs.has(key)) return key;
        await persistence.writeBlob(key, text);
        blobs.add(key);
        cache.set(persistence.whereBlob(key), canonicalCopy(text), text.length);
        return key;
      });
    },
    fetch: async (key) => {
      if (!blobs.has(key)) return undefined;
      const where = persistence.whereBlob(key);
      return readOnce(where, async () => {
        let text: string;
        try {
          text = await persistence.readBlob(key);
        } catch (error) {
          throw note({ collection: BLOB_COLLECTION, key, where, message: (error as Error).message });
        }
        return { value: parseStored<Json>(text, { collection: BLOB_COLLECTION, key, where }), weight: text.length };
      }) as never;
    },
    blobKeys: () => [...blobs].sort(),
    forget: async (key) => {
      assertKey(BLOB_COLLECTION, key);
      return locks.run(documentName(BLOB_COLLECTION, key), async () => {
        ensureOpen();
        if (!blobs.has(key)) return;
        await persistence.removeBlob(key);
        blobs.delete(key);
        cache.delete(persistence.whereBlob(key));
      });
    },

    problems: () => problems,
    close: async () => {
      if (closed) return;
      await locks.idle();
      closed = true;
      await persistence.close();
    },
  };
}

/** Whether `key` names a log's entry in `c` (for adapters checking what they load). */
;
