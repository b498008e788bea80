// The replica protocol: how the core's writes run when several replicas share
// one backend (PostgreSQL), opted into by that adapter (createStoreCore's
// third argument); the data folder and memory stores write directly.
// - A write made on a stale view (StaleWrite), or whose caller's function
//   threw while another replica changed the key, refreshes the key and runs
//   again, so read-modify-write never loses an update (`fresh`).
// - A write whose outcome is unknown (UnsettledWrite: the connection dropped
//   after the statement was sent) leaves its key in doubt: it is read back
//   from the database at once, and again until the database answers, so
//   memory never keeps missing a stored write (`settled`).
// - A log memory has not heard of (or in doubt) can be read on demand
//   (`lookup`, Store.lookup).
import { ServiceError } from '../errors.ts';
import type { KeyLock } from './key-lock.ts';
import { documentName } from './keys.ts';
import { StaleWrite, UnsettledWrite, type Persistence } from './persistence.ts';
import { KEY_PATTERN, type DocCollection, type Entry, type LogCollection, type UnreadableFile } from './types.ts';

/** Tries of one write whose view another replica keeps making stale (each try follows a refresh). */
const STALE_RETRIES = 50;
/** Waits between tries of reading back a key in doubt while the database cannot be reached. */
const SETTLE_MIN_MS = 50;
const SETTLE_MAX_MS = 1000;

type Key = DocCollection | LogCollection;

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

/** What the protocol reads of the core's memory. */
export interface CoreView {
  /** The latest entry memory holds of a log (for `since`). */
  head(c: LogCollection, key: string): Entry | undefined;
  /** Whether memory knows a log. */
  knows(c: LogCollection, key: string): boolean;
  closed(): boolean;
  /** The core's per-key write turns: a read-back takes the key's turn. */
  locks: KeyLock;
}

/** How the core's writes of one key run. */
export interface Writes {
  /** Runs `attempt` (in the key's write turn) until it is made on a fresh view. */
  fresh<T>(c: Key, key: string, attempt: () => Promise<T>): Promise<T>;
  /** Runs one write of the backend; an unknown outcome puts the key in doubt. */
  settled<T>(c: Key, key: string, write: () => Promise<T>): Promise<T>;
  /** Store.lookup, for shared backends. */
  lookup?(c: LogCollection, key: string): Promise<boolean>;
  /** Stops the read-backs still waiting. */
  close(): void;
}

/** One process owns the backend: every write runs once, directly. */
export const directWrites: Writes = {
  fresh: (_c, _key, attempt) => attempt(),
  settled: (_c, _key, write) => write(),
  close: () => undefined,
};

/** The protocol over a shared backend, which must be able to refresh one key. */
export function replicaWrites(persistence: Persistence, core: CoreView): Writes {
  const { refresh } = persistence;
  if (!refresh) throw new Error('the replica protocol needs a backend that refreshes keys');
  const since = (c: Key, key: string) => (c === 'private' ? 0 : (core.head(c, key)?.version ?? 0));
  /** Keys whose last write ended in doubt (UnsettledWrite), by documentName, until read back. */
  const doubtful = new Set<string>();
  const settleTimers = new Set<NodeJS.Timeout>();

  /** Reads one key back from the shared backend, in its write turn; the key is settled once that succeeds. */
  const readBack = (c: Key, key: string) => {
    const name = documentName(c, key);
    return core.locks.run(name, async () => {
      const changed = await refresh.call(persistence, c, key, since(c, key));
      doubtful.delete(name);
      return changed;
    });
  };
  /** After an UnsettledWrite: the key is in doubt until read back, tried again and again while the database is away. */
  const doubt = (c: Key, key: string) => {
    const name = documentName(c, key);
    if (doubtful.has(name)) return;
    doubtful.add(name);
    const attempt = (delay: number) => {
      const timer = setTimeout(() => {
        settleTimers.delete(timer);
        if (core.closed() || !doubtful.has(name)) return;
        readBack(c, key).catch(() => attempt(Math.min(Math.max(delay * 2, SETTLE_MIN_MS), SETTLE_MAX_MS)));
      }, delay);
      timer.unref();
      settleTimers.add(timer);
    };
    attempt(0);
  };

  return {
    fresh: async (c, key, attempt) => {
      for (let tries = 1; ; tries++) {
        try {
          return await attempt();
        } catch (error) {
          // A backend that cannot be reached (5xx) is not refreshed: the caller hears of it at once.
          if (core.closed() || tries >= STALE_RETRIES || (error instanceof ServiceError && error.status >= 500)) throw error;
          const changed = await refresh.call(persistence, c, key, since(c, key));
          if (!changed && !(error instanceof StaleWrite)) throw error;
        }
      }
    },
    settled: async (c, key, write) => {
      try {
        const done = await write();
        doubtful.delete(documentName(c, key)); // stored: memory now holds the database's latest of this key
        return done;
      } catch (error) {
        if (error instanceof UnsettledWrite) doubt(c, key);
        throw error;
      }
    },
    lookup: async (c, key) => {
      if ((core.knows(c, key) && !doubtful.has(documentName(c, key))) || core.closed() || !KEY_PATTERN.test(key)) return false;
      try {
        return await readBack(c, key);
      } catch {
        return false; // the database out of reach: memory answers
      }
    },
    close: () => {
      for (const timer of settleTimers) clearTimeout(timer);
    },
  };
}
