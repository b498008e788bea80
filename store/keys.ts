// The guards between callers and the data folder: only known collections and
// keys of KEY_PATTERN's shape ever reach a file name, and only JSON objects or
// arrays are stored as documents.
import { COLLECTIONS, KEY_PATTERN, type Collection } from './types.ts';

/** A document's name in locks, logs and the changed-on-disk record: `maps/abc1234`. */
export const documentName = (collection: Collection, key: string) => `${collection}/${key}`;

export function assertKey(collection: Collection, key: string): void {
  if (!(COLLECTIONS as readonly string[]).includes(collection)) {
    throw new Error(`unknown collection ${JSON.stringify(collection)}`);
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
