// The guards between callers and the data: only known collections and keys of
// KEY_PATTERN's shape ever reach a file name, only JSON objects or arrays are
// stored as documents, and a log entry's number always grows.
import { createHash } from 'node:crypto';
import { COLLECTIONS, KEY_PATTERN, type Collection, type Entry } from './types.ts';

/** A document's name in locks, logs and the changed-on-disk record: `maps/abc1234`. */
export const documentName = (collection: Collection, key: string) => `${collection}/${key}`;

/**
 * Refuses a key that is not of KEY_PATTERN's shape, and a collection that is
 * not one of `allowed` (those of the kind the call stores: a document written
 * into `maps` would be a file the next start takes for an old-layout one).
 */
export function assertKey(collection: Collection, key: string, allowed: readonly Collection[] = COLLECTIONS): void {
  if (!(allowed as readonly string[]).includes(collection)) {
    throw new Error((COLLECTIONS as readonly string[]).includes(collection)
      ? `collection ${JSON.stringify(collection)} is not one of ${allowed.join(', ')}`
      : `unknown collection ${JSON.stringify(collection)}`);
  }
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new Error(`invalid store key ${JSON.stringify(key)}`);
  }
}

/**
 * A document is a JSON object or array. (lowdb skips writing falsy data, and
 * a bare `undefined` has no JSON form, so scalars are refused up front.)
 */
export function assertDocument(collection: Collection, key: string, doc: unknown): void {
  if (doc === null || typeof doc !== 'object') {
    throw new TypeError(`document ${collection}/${key} must be a JSON object or array, got ${doc === null ? 'null' : typeof doc}`);
  }
}

/** A log entry is an object whose whole `version` is greater than the latest entry's. */
export function assertEntry(collection: Collection, key: string, head: Entry | undefined, next: unknown): asserts next is Entry {
  if (next === null || typeof next !== 'object' || Array.isArray(next)) {
    throw new TypeError(`entry of ${collection}/${key} must be a JSON object`);
  }
  const version = (next as { version?: unknown }).version;
  if (!Number.isSafeInteger(version) || (version as number) < 1 || (version as number) <= (head?.version ?? 0)) {
    throw new TypeError(`entry of ${collection}/${key} has version ${JSON.stringify(version)}; it must be a whole number above ${head?.version ?? 0}`);
  }
}

/** The key of a blob: the SHA-256 of its canonical bytes, in hex. */
export const blobKeyOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** Largest stored file the service writes or reads back (a JavaScript string holds at most about 512 MiB). */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
