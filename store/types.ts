// The storage contract every adapter implements (memory.ts, file.ts). It knows
// documents by collection and key and nothing about maps or versions; the
// versioning rules live in store/versions.ts on top of it.

/** Folders of the data directory. `private` holds secrets (users, keys). */
export const COLLECTIONS = ['maps', 'datasets', 'templates', 'results', 'private'] as const;
export type Collection = (typeof COLLECTIONS)[number];

/**
 * Keys become file names, so only this shape is ever accepted: letters, digits,
 * dot, dash and underscore, starting with a letter or digit. Anything else is
 * refused by every adapter before it can reach a path.
 */
export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Store {
  /** One document, from memory; undefined when absent. Callers must not mutate it. */
  get<T = Json>(collection: Collection, key: string): T | undefined;
  /**
   * Every document of a collection, from memory, in key order. The array is
   * shared and frozen (cached until the next write to the collection).
   */
  entries<T = Json>(collection: Collection): ReadonlyArray<readonly [string, T]>;
  /**
   * Read-modify-write of one document. Calls on the same key run one after
   * another; `fn` sees the current document and returns the next one. The
   * promise resolves once the new document is durable (file adapter: written,
   * fsynced and renamed into place). If `fn` throws, nothing is written and the
   * error propagates. `fn` must not mutate `current`; it returns a new JSON
   * object or array (anything else is refused). The stored document is a new
   * object per write, so callers may cache by document identity. The file
   * adapter rejects with ServiceError 'storage_unavailable' when the disk is
   * full or unwritable, and then keeps the previous document.
   */
  update<T = Json>(collection: Collection, key: string, fn: (current: T | undefined) => T | Promise<T>): Promise<T>;
  /** Removes a document; resolves once the removal is durable. */
  delete(collection: Collection, key: string): Promise<void>;
  /** Waits for pending writes and releases the data folder. */
  close(): Promise<void>;
}
