// The store contract (types.ts) over any Persistence: everything but the
// bytes. Documents and the latest entry of every log live in memory; older
// entries and blobs are read on demand through a small cache, so memory and
// start-up follow the latest versions, not the history. Writes to one key run
// one after another (key-lock.ts) and change memory only once durable.
// A shared backend (PostgreSQL, several replicas) also tells the core what
// others wrote (Remote, from createStoreCore) and may refuse a write made on
// a stale view (StaleWrite): the core then refreshes the key and runs the
// caller's function again, so read-modify-write never loses an update.
// A write whose outcome is unknown (UnsettledWrite: the connection dropped
// after the statement was sent, so it may have been stored) leaves its key in
// doubt: the core reads the key back from the database at once, and again
// until the database answers, so memory never keeps missing a stored write.
import { ServiceError } from '../errors.ts';
import { canonicalCopy, canonicalJson } from './canonical-json.ts';
import { DocIndex } from './doc-index.ts';
import { KeyLock } from './key-lock.ts';
import { assertDocument, assertEntry, assertKey, blobKeyOf, documentName, MAX_FILE_BYTES } from './keys.ts';
import { Lru } from './lru.ts';
import { StaleWrite, UnsettledWrite, type Loaded, type Persistence } from './persistence.ts';
import {
  BLOB_COLLECTION, DOC_COLLECTIONS, KEY_PATTERN, LOG_COLLECTIONS, type DocCollection, type Entry, type Json, type LogCollection, type Store, type UnreadableFile,
} from './types.ts';

/** Characters of older entries and blobs kept in memory after a read. */
const CACHE_BUDGET = 64 * 1024 * 1024;

type LogState = { versions: number[]; problem?: UnreadableFile };
/** Tries of one write whose view another replica keeps making stale (each try follows a refresh). */
const STALE_RETRIES = 50;
/** Waits between tries of reading back a key in doubt while the database cannot be reached. */
const SETTLE_MIN_MS = 50;
const SETTLE_MAX_MS = 1000;

/** What a shared backend tells the core about writes made elsewhere (texts as stored: canonical JSON). */
export interface Remote {
  /** An entry stored by another replica: added to its log's versions, and the head when it is the latest. */
  entry(c: LogCollection, key: string, text: string): void;
  /** Entry numbers a log holds (a replica loading everything again): added to those memory knows. */
  versions(c: LogCollection, key: string, versions: readonly number[]): void;
  /** A document's stored text, or undefined once removed. */
  doc(c: DocCollection, key: string, text: string | undefined): void;
  dropped(c: LogCollection, key: string): void;
  blob(key: string, present: boolean): void;
  /** The backend itself cannot be reached (shown by problems() and /healthz); undefined once it can again. */
  outage(problem: UnreadableFile | undefined): void;
}

const unavailable = (problem: UnreadableFile) => new ServiceError('resource_unavailable',
  `${problem.collection}/${problem.key} cannot be served: data file ${problem.where} ${problem.message}; ` +
  'repair or move the file and restart the service');

const tooLarge = (what: string, bytes: number) => new ServiceError('storage_unavailable',
  `${what} was not saved: its ${bytes} bytes are more than the ${MAX_FILE_BYTES} a stored file may hold`);

export function createStore(persistence: Persistence, loaded: Loaded): Store {
  return createStoreCore(persistence, loaded).store;
}

export function createStoreCore(persistence: Persistence, loaded: Loaded): { store: Store; remote: Remote } {
  const docs = new DocIndex();
  const heads = new DocIndex();
  const logs = new Map<string, LogState>();
  const blobs = new Set(loaded.blobs);
  const problems = [...loaded.problems];
  const cache = new Lru<unknown>(CACHE_BUDGET);
  const reading = new Map<string, Promise<unknown>>();
  const locks = new KeyLock();
  let closed = false;
  let outage: UnreadableFile | undefined;
  /** Keys whose last write ended in doubt (UnsettledWrite), by documentName, until read back. */
  const doubtful = new Set<string>();
  const settleTimers = new Set<NodeJS.Timeout>();

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

  /** Adds a stored entry to memory: its number to the log's versions (kept ascending), and the head when it is the latest. */
  const addEntry = (c: LogCollection, key: string, entry: Entry) => {
    const name = documentName(c, key);
    const state = logs.get(name);
    if (!state) logs.set(name, { versions: [entry.version] });
    else if (!state.versions.includes(entry.version)) {
      state.versions.push(entry.version);
      if (state.versions.length > 1 && state.versions[state.versions.length - 2] > entry.version) state.versions.sort((a, b) => a - b);
    }
    const head = heads.get(c, key) as Entry | undefined;
    if (!head || head.version < entry.version) heads.set(c, key, entry);
  };
  /**
   * Runs one write of a shared backend's key until it is made on a fresh view:
   * after a StaleWrite, and after `attempt` threw while a refresh finds the key
   * changed (the caller judged a stale document or head), the key is refreshed
   * and `attempt` runs again.
   */
  const freshly = async <T>(c: DocCollection | LogCollection, key: string, attempt: () => Promise<T>): Promise<T> => {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        // A backend that cannot be reached (5xx) is not refreshed: the caller hears of it at once.
        if (!persistence.refresh || closed || tries >= STALE_RETRIES || (error instanceof ServiceError && error.status >= 500)) throw error;
        const changed = await persistence.refresh(c, key, c === 'private' ? 0 : ((heads.get(c, key) as Entry | undefined)?.version ?? 0));
        if (!changed && !(error instanceof StaleWrite)) throw error;
      }
    }
  };

  /** Reads one key back from the shared backend, in its write turn; the key is settled once that succeeds. */
  const readBack = (c: DocCollection | LogCollection, key: string) => {
    const name = documentName(c, key);
    return locks.run(name, async () => {
      const since = c === 'private' ? 0 : ((heads.get(c, key) as Entry | undefined)?.version ?? 0);
      const changed = await persistence.refresh!(c, key, since);
      doubtful.delete(name);
      return changed;
    });
  };
  /** After an UnsettledWrite: the key is in doubt until read back, tried again and again while the database is away. */
  const doubt = (c: DocCollection | LogCollection, key: string) => {
    const name = documentName(c, key);
    if (!persistence.refresh || doubtful.has(name)) return;
    doubtful.add(name);
    const attempt = (delay: number) => {
      const timer = setTimeout(() => {
        settleTimers.delete(timer);
        if (closed || !doubtful.has(name)) return;
        readBack(c, key).catch(() => attempt(Math.min(Math.max(delay * 2, SETTLE_MIN_MS), SETTLE_MAX_MS)));
      }, delay);
      timer.unref();
      settleTimers.add(timer);
    };
    attempt(0);
  };
  /** Runs a write of a shared backend's key; an unknown outcome puts the key in doubt. */
  const unsettled = async <T>(c: DocCollection | LogCollection, key: string, write: () => Promise<T>): Promise<T> => {
    try {
      const done = await write();
      doubtful.delete(documentName(c, key)); // stored: memory now holds the database's latest of this key
      return done;
    } catch (error) {
      if (error instanceof UnsettledWrite) doubt(c, key);
      throw error;
    }
  };

  const store: Store = {
    get: (c, key) => docs.get(c, key) as never,
    entries: (c) => docs.entries(c) as never,
    update: async (c, key, fn) => {
      assertKey(c, key, DOC_COLLECTIONS);
      return locks.run(documentName(c, key), () => freshly(c, key, async () => {
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
        await unsettled(c, key, () => persistence.writeDoc(c, key, text, current));
        const stored = canonicalCopy<never>(text);
        docs.set(c, key, stored);
        return stored;
      }));
    },
    delete: async (c, key) => {
      assertKey(c, key, DOC_COLLECTIONS);
      return locks.run(documentName(c, key), () => freshly(c, key, async () => {
        ensureOpen();
        await unsettled(c, key, () => persistence.removeDoc(c, key, docs.get(c, key) as Json | undefined));
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
          if (error instanceof ServiceError) throw error; // the backend out of reach for now: nothing wrong with the entry
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
      return locks.run(name, () => freshly(c, key, async () => {
        ensureOpen();
        const state = logs.get(name);
        if (state?.problem) throw unavailable(state.problem);
        const head = heads.get(c, key) as never;
        const next = await fn(head);
        assertEntry(c, key, head, next);
        const text = canonicalJson(next);
        if (text.length > MAX_FILE_BYTES) throw tooLarge(name, text.length);
        const writing = unsettled(c, key, () => persistence.writeEntry(c, key, next.version, text, !state));
        const stored = canonicalCopy<never>(text); // parsed while the write is under way
        await writing;
        addEntry(c, key, stored);
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
      if (!blobs.has(key)) {
        if (!persistence.hasBlob || closed || !KEY_PATTERN.test(key) || !(await persistence.hasBlob(key))) return undefined;
        blobs.add(key);
      }
      const where = persistence.whereBlob(key);
      return readOnce(where, async () => {
        let text: string;
        try {
          text = await persistence.readBlob(key);
        } catch (error) {
          if (error instanceof ServiceError) throw error;
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

    ...(persistence.refresh && {
      lookup: async (c: LogCollection, key: string) => {
        const name = documentName(c, key);
        if ((logs.has(name) && !doubtful.has(name)) || closed || !KEY_PATTERN.test(key)) return false;
        try {
          return await readBack(c, key);
        } catch {
          return false; // the database out of reach: memory answers
        }
      },
    }),

    problems: () => (outage ? [...problems, outage] : problems),
    close: async () => {
      if (closed) return;
      await locks.idle();
      closed = true;
      for (const timer of settleTimers) clearTimeout(timer);
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

/** Whether `key` names a log's entry in `c` (for adapters checking what they load). */
;
