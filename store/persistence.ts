// What an adapter supplies to the shared store core (core.ts): where bytes go
// and come from, nothing else. The core keeps memory, order, locks, caches and
// every rule; an adapter only persists text durably and reads it back. The
// memory adapter keeps strings in maps, the file adapter writes the data
// folder, a database adapter would write rows.
import { ServiceError } from '../errors.ts';
import type { DocCollection, Entry, Json, LogCollection, UnreadableFile } from './types.ts';

/**
 * Thrown by a shared backend's writeDoc or writeEntry when someone else (another
 * replica) wrote the key since memory last saw it: nothing was written, and
 * the core refreshes the key and runs the caller's function again.
 */
export class StaleWrite extends Error {
  constructor(what: string) {
    super(`${what} was written by another replica in the meantime`);
    this.name = 'StaleWrite';
  }
}

/**
 * Thrown by a shared backend's write when its outcome is unknown: the
 * connection dropped after the statement was sent, so the database may have
 * stored it (COMMIT done, reply lost) or not. The client gets 503; the core
 * reads the key back from the database before it serves it again.
 */
export class UnsettledWrite extends ServiceError {
  constructor(detail: string, cause: unknown) {
    super('store_unavailable', detail, { cause });
    this.name = 'UnsettledWrite';
  }
}

export interface Persistence {
  /** Makes `text` the stored form of a document, durably; `previous` is what memory held (to detect changes made by others). */
  writeDoc(c: DocCollection, key: string, text: string, previous: Json | undefined): Promise<void>;
  removeDoc(c: DocCollection, key: string, previous: Json | undefined): Promise<void>;
  /**
   * Stores entry `version` of a log once, durably, with its outline (outline.ts's stored form) in the same write: both
   * or, on failure, neither; refuses (never overwrites) when one is there. `first`: the log is new.
   */
  writeEntry(c: LogCollection, key: string, version: number, text: string, first: boolean, outline: string): Promise<void>;
  /** The outlines stored of a log's entries, as [entry number, stored form]; of two for one number the later counts. */
  readOutlines(c: LogCollection, key: string): Promise<Array<readonly [number, string]>>;
  /** Stores the outlines of entries stored without one (by an earlier release), made from the entries read back. */
  keepOutlines(c: LogCollection, key: string, outlines: ReadonlyArray<readonly [number, string]>): Promise<void>;
  /** The stored text of an entry; throws an Error saying why it cannot be read (missing included). */
  readEntry(c: LogCollection, key: string, version: number): Promise<string>;
  /** Where an entry lives, for messages: `maps/abc1234/v3.json`. */
  whereEntry(c: LogCollection, key: string, version: number): string;
  dropLog(c: LogCollection, key: string, versions: readonly number[]): Promise<void>;
  writeBlob(key: string, text: string): Promise<void>;
  readBlob(key: string): Promise<string>;
  /** The stored bytes of a blob (UTF-8), undecoded where the backend allows; throws like readBlob. */
  readBlobBytes(key: string): Promise<Uint8Array>;
  whereBlob(key: string): string;
  removeBlob(key: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Shared backends only (several replicas over one database): brings memory's
   * view of one key up to date with what is stored, through the core's
   * Remote (replica.ts); resolves with whether anything changed. The
   * core calls it, inside the key's write turn, after a StaleWrite and when
   * the caller's function threw (it may have judged a stale latest version).
   * `since`: the latest entry number memory holds of a log (0 for none, and for documents).
   */
  refresh?(c: DocCollection | LogCollection, key: string, since: number): Promise<boolean>;
  /** Shared backends only: whether a blob that memory does not know of is stored (another replica put it). */
  hasBlob?(key: string): Promise<boolean>;
}

/** One log as found at open: its entry numbers and latest entry, or why it cannot be served. */
export interface LoadedLog {
  collection: LogCollection;
  key: string;
  versions: number[];
  head?: Entry;
  problem?: UnreadableFile;
}

/** What an adapter found at open. */
export interface Loaded {
  docs: Array<readonly [DocCollection, string, Json]>;
  logs: LoadedLog[];
  blobs: string[];
  problems: UnreadableFile[];
}
