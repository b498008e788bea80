// The guard between user-influenced names and the data folder.
import { COLLECTIONS, KEY_PATTERN, type Collection } from './types.ts';

export function assertKey(collection: Collection, key: string): void {
  if (!(COLLECTIONS as readonly string[]).includes(collection)) {
    throw new Error(`unknown collection ${JSON.stringify(collection)}`);
  }
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new Error(`invalid store key ${JSON.stringify(key)}`);
  }
}
