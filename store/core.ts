// The store contract (types.ts) over any Persistence: everything but the
// bytes. Documents and the latest entry of every log live in memory; older
// entries and blobs are read on demand through a small cache, so memory and
// start-up follow the latest versions, not the history. Each entry's outline
// (outline.ts) is stored with it; a log's outlines are read, all at once, when
// first asked for, and kept in the same cache. Writes to one key run
// one after another (key-lock.ts) and change memory only once durable.
// A shared backend (PostgreSQL, several replicas) opts into the replica
// protocol (replica.ts): it tells the core what others wrote (Remote) and its
// writes run on a fresh view and are read back when their outcome is unknown.
import { ServiceError } from '../errors.ts';
import { canonicalCopy, canonicalJson } from './canonical-json.ts';
import { DocIndex } from './doc-index.ts';
import { KeyLock } from './key-lock.ts';
import { assertDocument, assertEntry, assertKey, blobKeyOf, documentName, MAX_FILE_BYTES } from './keys.ts';
import { Lru } from './lru.ts';
import { outlineOf, outlineText, parseOutline } from './outline.ts';
import { StaleWrite, type Loaded, type Persistence } from './persistence.ts';
import { directWrites, type CoreView, type Remote, type Writes } from './replica.ts';
import {
  BLOB_COLLECTION, DOC_COLLECTIONS, KEY_PATTERN, LOG_COLLECTIONS, type Entry, type Json, type LogCollection, type Outline, type Store,
  type UnreadableFile,
} from './types.ts';

/** Characters of older entries, blobs and outlines kept in memory after a read. */
const CACHE_BUDGET = 64 * 1024 * 1024;
/** An older entry or blob nobody read for this long (ms) is dropped: memory follows the reads of the last minute, not of a past burst. */
const CACHE_IDLE_MS = 60_000;
/** Entries read between two turns of the event loop while outlines missing from storage are made. */
const YIELD_EVERY = 64;
const NO_OUTLINES: ReadonlyMap<number, Outline> = new Map();
/** A log's outlines in the cache, by entry number; beside entries and blobs, whose ids are their paths. */
const outlinesId = (name: string) => `outlines of ${name}`;

type LogState = { versions: number[]; problem?: UnreadableFile };
const unavailable = (problem: UnreadableFile) => new ServiceError('resource_unavailable',
  `${problem.collection}/${problem.key} cannot be served: data file ${problem.where} ${problem.message}; ` +
  'repair or move the file and restart the service');

const tooLarge = (what: string, bytes: number) => new ServiceError('storage_unavailable',
  `${what} was not saved: its ${bytes} bytes are more than the ${MAX_FILE_BYTES} a stored file may hold`);

export function createStore(persistence: Persistence, loaded: Loaded): Store {
  return createStoreCore(persistence, loaded).store;
}

/** The store and what its backend tells it of other replicas' writes; `protocol`: how writes run (replica.ts; directly without). */
export function createStoreCore(persistence: Persistence, loaded: Loaded,
  protocol?: (persistence: Persistence, core: CoreView) => Writes): { store: Store; remote: Remote } {
  const docs = new DocIndex();
  const heads = new DocIndex();
  const logs = new Map<string, LogState>();
  const blobs = new Set(loaded.blobs);
  const problems = [...loaded.problems];
  const cache = new Lru<unknown>(CACHE_BUDGET, { idleMs: CACHE_IDLE_MS });
  const reading = new Map<string, Promise<unknown>>();
  /** Logs whose outlines are being read (or made), by documentName: one read however many callers ask. */
  const outlining = new Map<string, Promise<ReadonlyMap<number, Outline>>>();
  const locks = new KeyLock();
  let closed = false;
  let outage: UnreadableFile | undefined;
  const writes = protocol ? protocol(persistence, {
    head: (c, key) => heads.get(c, key) as Entry | undefined, knows: (c, key) => logs.has(documentName(c, key)), closed: () => closed, locks,
  }) : directWrites;

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
  /** Whether a blob is stored: known to memory, or (shared backends) put by another replica since. */
  const knownBlob = async (key: string): Promise<boolean> => {
    if (blobs.has(key)) return true;
    if (!persistence.hasBlob || closed || !KEY_PATTERN.test(key) || !(await persistence.hasBlob(key))) return false;
    blobs.add(key);
    return true;
  };
  /** A blob read back by `read`; a file that cannot be read is noted as a problem. */
  const readBlobWith = async <T>(key: string, read: (key: string) => Promise<T>): Promise<T> => {
    try {
      return await read(key);
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw note({ collection: BLOB_COLLECTION, key, where: persistence.whereBlob(key), message: (error as Error).message });
    }
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

  /** An entry's stored text read and parsed (not cached: callers decide); an Error saying why it cannot be. */
  const loadEntry = async (c: LogCollection, key: string, version: number): Promise<{ value: Entry; weight: number }> => {
    const where = persistence.whereEntry(c, key, version);
    let text: string;
    try {
      text = await persistence.readEntry(c, key, version);
    } catch (error) {
      if (error instanceof ServiceError) throw error; // the backend out of reach for now: nothing wrong with the entry
      throw note({ collection: c, key, where, message: (error as Error).message });
    }
    const entry = parseStored<Entry>(text, { collection: c, key, where });
    if (entry === null || typeof entry !== 'object' || entry.version !== version) {
      throw note({ collection: c, key, where, message: `does not hold version ${version}` });
    }
    return { value: entry, weight: text.length };
  };

  /**
   * A log's outlines: those stored (all when memory holds none; else those
   * another replica stored since), and for entries stored without one, made
   * from the entry (from memory, the cache, or read once) and stored.
   */
  const readOutlines = async (c: LogCollection, key: string, known: ReadonlyMap<number, Outline> | undefined) => {
    const name = documentName(c, key);
    const outlines = new Map(known);
    let weight = 0;
    for (const [n, text] of await persistence.readOutlines(c, key)) {
      const outline = parseOutline(text);
      // A later record for a number counts; one that cannot be parsed (cut short) leaves the number to be made anew.
      if (outline) outlines.set(n, outline);
      else outlines.delete(n);
      weight += text.length;
    }
    const head = heads.get(c, key) as Entry | undefined;
    const made: Array<readonly [number, string]> = [];
    for (const n of [...(logs.get(name)?.versions ?? [])]) {
      if (outlines.has(n)) continue;
      if (made.length % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
      const entry = head?.version === n ? head : ((cache.get(persistence.whereEntry(c, key, n)) as Entry | undefined) ??
        (await loadEntry(c, key, n).then(({ value }) => value, () => undefined))); // unreadable: no outline (a read says why)
      if (!entry) continue;
      const outline = outlineOf(entry);
      outlines.set(n, outline);
      made.push([n, outlineText(outline)]);
      weight += made[made.length - 1][1].length;
    }
    if (made.length > 0) {
      // Stored in the log's write turn (a file adapter appends beside the log's own writes). Only a saving: should
      // it fail, the outlines are made again after the next start.
      await locks.run(name, async () => {
        if (!closed && logs.has(name)) await persistence.keepOutlines(c, key, made);
      }).catch(() => undefined);
    }
    if (logs.has(name)) cache.set(outlinesId(name), outlines, 2 * weight);
    return outlines;
  };

  /** Adds a stored entry to memory: its number to the log's versions (kept ascending), its outline to the log's cached ones, and the head when it is the latest. */
  const addEntry = (c: LogCollection, key: string, entry: Entry, outline = outlineOf(entry)) => {
    const name = documentName(c, key);
    (cache.get(outlinesId(name)) as Map<number, Outline> | undefined)?.set(entry.version, outline);
    const state = logs.get(name);
    if (!state) logs.set(name, { versions: [entry.version] });
    else if (!state.versions.includes(entry.version)) {
      state.versions.push(entry.version);
      if (state.versions.length > 1 && state.versions[state.versions.length - 2] > entry.version) state.versions.sort((a, b) => a - b);
    }
    const head = heads.get(c, key) as Entry | undefined;
    if (!head || head.version < entry.version) heads.set(c, key, entry);
  };
  const store: Store = {
    get: (c, key) => docs.get(c, key) as never,
    entries: (c) => docs.entries(c) as never,
    update: async (c, key, fn) => {
      assertKey(c, key, DOC_COLLECTIONS);
      return locks.run(documentName(c, key), () => writes.fresh(c, key, async () => {
        ensureOpen();
        const current = docs.get(c, key) as never;
        const next = await fn(current);
        assertDocument(c, key, next);
        const text = canonicalJson(next);
        if (text.length > MAX_FILE_BYTES) throw tooLarge(documentName(c, key), text.length);
        // Another replica's write of this document may have landed while fn ran (a shared backend
        // feeds it in through `remote`): fn judged a stale document, so it runs again on the new one.
        // Checked just before the write, whose compare-and-set takes the revision memory holds now.
        if (docs.get(c, key) !== current) throw new StaleWrite(documentName(c, key));
        await writes.settled(c, key, () => persistence.writeDoc(c, key, text, current));
        const stored = canonicalCopy<never>(text);
        docs.set(c, key, stored);
        return stored;
      }));
    },
    delete: async (c, key) => {
      assertKey(c, key, DOC_COLLECTIONS);
      return locks.run(documentName(c, key), () => writes.fresh(c, key, async () => {
        ensureOpen();
        await writes.settled(c, key, () => persistence.removeDoc(c, key, docs.get(c, key) as Json | undefined));
        docs.delete(c, key);
      }));
    },

    head: (c, key) => {
      const state = logs.get(documentName(c, key));
      if (state?.problem) throw unavailable(state.problem);
      return heads.get(c, key) as never;
    },
    heads: (c) => heads.entries(c) as never,
    versions: (c, key) => logs.get(documentName(c, key))?.versions ?? [],
    outlines: async (c, key) => {
      const name = documentName(c, key);
      const state = logs.get(name);
      if (!state) return NO_OUTLINES;
      if (state.problem) throw unavailable(state.problem);
      const known = cache.get(outlinesId(name)) as ReadonlyMap<number, Outline> | undefined;
      if (known && state.versions.every((n) => known.has(n))) return known;
      let pending = outlining.get(name);
      if (!pending) {
        pending = readOutlines(c, key, known);
        outlining.set(name, pending);
        void pending.finally(() => outlining.delete(name)).catch(() => undefined);
      }
      return pending;
    },
    read: async (c, key, version) => {
      const state = logs.get(documentName(c, key));
      if (!state?.versions.includes(version)) return undefined;
      const head = heads.get(c, key) as Entry | undefined;
      if (head?.version === version) return head as never;
      return readOnce(persistence.whereEntry(c, key, version), () => loadEntry(c, key, version)) as never;
    },
    append: async (c, key, fn) => {
      assertKey(c, key, LOG_COLLECTIONS);
      const name = documentName(c, key);
      return locks.run(name, () => writes.fresh(c, key, async () => {
        ensureOpen();
        const state = logs.get(name);
        if (state?.problem) throw unavailable(state.problem);
        const head = heads.get(c, key) as never;
        const next = await fn(head);
        assertEntry(c, key, head, next);
        const text = canonicalJson(next);
        if (text.length > MAX_FILE_BYTES) throw tooLarge(name, text.length);
        const outline = outlineOf(next);
        const writing = writes.settled(c, key, () => persistence.writeEntry(c, key, next.version, text, !state, outlineText(outline)));
        const stored = canonicalCopy<never>(text); // parsed while the write is under way
        await writing;
        addEntry(c, key, stored, outline);
        return stored;
      }));
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
        cache.delete(outlinesId(name));
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
        // A blob too big for the cache is not parsed just to be dropped (a dataset's results: seconds of the main thread).
        if (cache.keeps(text.length)) cache.set(persistence.whereBlob(key), canonicalCopy(text), text.length);
        return key;
      });
    },
    fetch: async (key) => {
      if (!(await knownBlob(key))) return undefined;
      const where = persistence.whereBlob(key);
      return readOnce(where, async () => {
        const text = await readBlobWith(key, (k) => persistence.readBlob(k));
        return { value: parseStored<Json>(text, { collection: BLOB_COLLECTION, key, where }), weight: text.length };
      }) as never;
    },
    blobBytes: async (key) => ((await knownBlob(key)) ? readBlobWith(key, (k) => persistence.readBlobBytes(k)) : undefined),
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

    ...(writes.lookup && { lookup: writes.lookup }),

    problems: () => (outage ? [...problems, outage] : problems),
    close: async () => {
      if (closed) return;
      await locks.idle();
      closed = true;
      writes.close();
      await persistence.close();
    },
  };

  const remote: Remote = {
    entry: (c, key, text) => {
      const entry = canonicalCopy<Entry>(text);
      if (logs.get(documentName(c, key))?.versions.includes(entry.version)) return;
      addEntry(c, key, entry);
    },
    versions: (c, key, versions) => {
      const name = documentName(c, key);
      const known = logs.get(name)?.versions ?? [];
      const merged = [...new Set([...known, ...versions])].sort((x, y) => x - y);
      if (merged.length !== known.length) logs.set(name, { ...logs.get(name), versions: merged });
    },
    doc: (c, key, text) => {
      if (text === undefined) docs.delete(c, key);
      else if (canonicalJson(docs.get(c, key)) !== text) docs.set(c, key, canonicalCopy(text));
    },
    dropped: (c, key) => {
      logs.delete(documentName(c, key));
      heads.delete(c, key);
      cache.delete(outlinesId(documentName(c, key)));
    },
    blob: (key, present) => {
      if (present) blobs.add(key);
      else {
        blobs.delete(key);
        cache.delete(persistence.whereBlob(key));
      }
    },
    outage: (problem) => {
      outage = problem;
    },
  };
  return { store, remote };
}

