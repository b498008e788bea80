// The storage contract every adapter implements (memory.ts, file.ts; a
// database adapter fits the same shape). It knows three kinds of data and
// nothing about maps or HTTP:
// - documents (`private`: users, keys, provider state): read-modify-write whole;
// - logs (`maps`, `datasets`, `templates`): append-only numbered entries, the
//   resource versions; the latest entry of each key is kept in memory, older
//   ones are read on demand, and an entry, once stored, is never rewritten;
//   beside each entry its outline (its short top-level fields), which lists
//   judge older entries on without reading them;
// - blobs (`results`): immutable JSON stored by the hash of its content, so
//   storing equal content twice costs nothing; read parsed, or as the bytes
//   stored for a reader that parses elsewhere.
// The versioning rules of resources live above it (resources/collection.ts).

/** Collections of whole documents. `private` holds secrets (users, keys). */
export const DOC_COLLECTIONS = ['private'] as const;
export type DocCollection = (typeof DOC_COLLECTIONS)[number];
/** Collections of append-only logs: one log per resource, its entries the versions. */
export const LOG_COLLECTIONS = ['maps', 'datasets', 'templates'] as const;
export type LogCollection = (typeof LOG_COLLECTIONS)[number];
/** The content-addressed collection. */
export const BLOB_COLLECTION = 'results';
export const COLLECTIONS = [...LOG_COLLECTIONS, BLOB_COLLECTION, ...DOC_COLLECTIONS] as const;
export type Collection = (typeof COLLECTIONS)[number];

/**
 * Keys become file names, so only this shape is ever accepted: letters, digits,
 * dot, dash and underscore, starting with a letter or digit. Anything else is
 * refused by every adapter before it can reach a path.
 */
export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A log entry: any JSON object with a whole `version` >= 1, greater than the entry before it. */
export type Entry = { version: number; [key: string]: Json };
/** A value an outline keeps: a short scalar (outline.ts). */
export type OutlineValue = string | number | boolean | null;
/**
 * What a log keeps of each entry beside it (outline.ts): the entry's top-level
 * fields whose values are short scalars, and the names of the others, for
 * which a reader reads the entry.
 */
export interface Outline {
  readonly fields: Readonly<Record<string, OutlineValue>>;
  readonly omitted: readonly string[];
}
/** What a log entry must be to the store: numbered. Its callers may type the rest (a typed version from a schema), which is JSON when stored. */
type LogEntry = { version: number };

/** Something the store found unusable (a file it cannot read back); the key is then unavailable, the rest served. */
export interface UnreadableFile {
  collection: Collection;
  key: string;
  /** Where, for people: a file path relative to the data folder, or a table row. */
  where: string;
  message: string;
}

/** A count in a fixed window: `resetAt` (epoch ms) ends it. */
export interface SharedCount {
  count: number;
  resetAt: number;
}

/**
 * Counters that every replica sharing a backend sees: each key counts in
 * fixed windows that start with its first count. Only backends shared by
 * several processes have them.
 */
export interface SharedCounters {
  /** Adds `delta` (may be negative) to the key's count in its current window, starting one of `windowMs` when none runs. */
  add(key: string, delta: number, windowMs: number): Promise<SharedCount>;
  /** The current windows of the keys that have one. */
  get(keys: readonly string[]): Promise<Map<string, SharedCount>>;
  /** Ends the key's window. */
  clear(key: string): Promise<void>;
}

/** Named values an entry is found by: the names are its writer's to choose, a few per entry. */
export type LookupValues = { readonly [name: string]: string };

/** A short-lived entry of SharedEntries: any JSON payload, live until `exp` (epoch seconds; absent: no expiry). */
export interface SharedEntry {
  payload: { [key: string]: Json | undefined };
  exp?: number;
  /** What findBy and deleteWhere find the entry by (indexed). */
  lookup?: LookupValues;
  /** When consume() marked it (epoch seconds); absent until then. */
  consumed?: number;
  /** The client address that made it: with `bound`, entries are bounded per address. */
  owner?: string;
  /** Live entries of the kind kept at most: `total` in all, `perOwner` of one owner's that are not kept (see keep). */
  bound?: { total: number; perOwner: number };
}

/**
 * Short-lived entries that every replica sharing a backend sees, each of a
 * kind and an ID, written and read one at a time, and found by the lookup
 * values their writer gave them. Only backends shared by several processes
 * have them; expired entries are never returned and are removed in time.
 */
export interface SharedEntries {
  get(kind: string, id: string): Promise<SharedEntry | undefined>;
  /** A live entry of `kind` whose lookup value `name` is `value`. */
  findBy(kind: string, name: string, value: string): Promise<SharedEntry | undefined>;
  set(kind: string, id: string, entry: SharedEntry): Promise<void>;
  delete(kind: string, id: string): Promise<void>;
  /** Sets `consumed` to `now` unless it is set: 'consumed' when this call did, 'reused' when it was, 'missing' when there is no live entry. */
  consume(kind: string, id: string, now: number): Promise<'consumed' | 'reused' | 'missing'>;
  /** Removes the entries whose lookup value `name` is `value`, of the given kinds (all kinds without). */
  deleteWhere(name: string, value: string, kinds?: readonly string[]): Promise<void>;
  /** Marks an entry as a sign-in under way: the bounds evict it only after every other of its kind. */
  keep(kind: string, id: string): void | Promise<void>;
}

export interface Store {
  // ---- documents ----
  /** One document, from memory; undefined when absent. Frozen: callers must not mutate it. */
  get<T = Json>(collection: DocCollection, key: string): T | undefined;
  /** Every document of a collection, from memory, in key order (shared and frozen). */
  entries<T = Json>(collection: DocCollection): ReadonlyArray<readonly [string, T]>;
  /**
   * Read-modify-write of one document. Calls on the same key run one after
   * another; `fn` sees the current document and returns the next one (a new
   * JSON object or array). The promise resolves once the new document is
   * durable. If `fn` throws, nothing is written and the error propagates.
   * A failing disk rejects with ServiceError 'storage_unavailable' and keeps
   * the previous document.
   */
  update<T = Json>(collection: DocCollection, key: string, fn: (current: T | undefined) => T | Promise<T>): Promise<T>;
  /** Removes a document; resolves once the removal is durable. */
  delete(collection: DocCollection, key: string): Promise<void>;

  // ---- logs ----
  /** The latest entry of a log, from memory; undefined when there is none. Throws ServiceError 'resource_unavailable' when the log cannot be read. */
  head<T extends LogEntry = Entry>(collection: LogCollection, key: string): T | undefined;
  /** Every log's latest entry, in key order (shared and frozen; unreadable logs left out, see problems()). */
  heads<T extends LogEntry = Entry>(collection: LogCollection): ReadonlyArray<readonly [string, T]>;
  /** The entry numbers a log holds, ascending (from memory). */
  versions(collection: LogCollection, key: string): readonly number[];
  /**
   * The outline of each entry of a log, by entry number, stored with the entry in the same write, so a log is
   * filtered and counted without reading its entries. An entry stored without one (by an earlier release) is read
   * once and its outline stored then. An entry that cannot be read has none; an unknown log has an empty map.
   */
  outlines(collection: LogCollection, key: string): Promise<ReadonlyMap<number, Outline>>;
  /** Entry `version` of a log, read on demand (a small cache keeps recent ones); undefined when absent. */
  read<T extends LogEntry = Entry>(collection: LogCollection, key: string, version: number): Promise<T | undefined>;
  /**
   * Appends one entry. Calls on the same key run one after another; `fn` sees
   * the latest entry and returns the next, whose `version` must be greater
   * than the latest's (the store refuses a number it holds already: never two
   * entries N). Resolves with the stored entry once it is durable; earlier
   * entries are never rewritten. If `fn` throws, nothing is written.
   */
  append<T extends LogEntry = Entry>(collection: LogCollection, key: string, fn: (head: T | undefined) => T | Promise<T>): Promise<T>;
  /** Removes a whole log, every entry of it (administrative tools only: the API deletes by tombstone entries). */
  drop(collection: LogCollection, key: string): Promise<void>;

  // ---- blobs ----
  /**
   * Stores `value` under the hash of its canonical bytes and resolves with that key; equal content is stored once.
   * An object whose fields are typed more loosely than Json (a dataset's records: their metadata is `unknown`) is
   * accepted as it is: it came from JSON or a sheet, and the canonical serialization is what is stored.
   */
  put(value: Json | object): Promise<string>;
  /** A stored blob (cached); undefined when absent. Throws ServiceError 'resource_unavailable' when it cannot be read. */
  fetch<T = Json>(key: string): Promise<T | undefined>;
  /**
   * A stored blob's bytes as stored (its canonical JSON in UTF-8), neither parsed nor cached: for a reader that
   * parses elsewhere (a big dataset's results go to a render thread). Undefined when absent; throws like fetch.
   */
  blobBytes(key: string): Promise<Uint8Array | undefined>;
  /** Every blob key (for administrative tools). */
  blobKeys(): readonly string[];
  /** Removes a blob (administrative tools only). */
  forget(key: string): Promise<void>;

  /**
   * Shared backends only: reads from the database a log memory does not know
   * (another replica created it a moment ago and its notification is still
   * on the way) or whose last write ended in doubt; resolves with whether
   * memory changed. The database out of reach resolves false: memory answers.
   */
  lookup?(collection: LogCollection, key: string): Promise<boolean>;

  /** Counters shared by every replica of a shared backend (absent for the data folder, which one process owns). */
  readonly counters?: SharedCounters;
  /** Short-lived entries shared by every replica of a shared backend (absent for the data folder). */
  readonly sharedEntries?: SharedEntries;

  // ---- the store itself ----
  /** What could not be read at open or since; empty when all is well (health says degraded otherwise). */
  problems(): readonly UnreadableFile[];
  /** Waits for pending writes and releases the data folder. */
  close(): Promise<void>;
}
