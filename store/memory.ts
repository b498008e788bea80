// The memory adapter: the storage contract with no files, for tests and for
// trying the service without a data folder. Documents are kept in the same
// canonical form the file adapter writes, so both behave identically.
import { canonicalCopy } from './canonical-json.ts';
import { KeyLock } from './key-lock.ts';
import { assertKey } from './keys.ts';
import type { Collection, Store } from './types.ts';

export function createMemoryStore(): Store {
  const docs = new Map<string, Map<string, unknown>>();
  const locks = new KeyLock();
  const bucket = (c: Collection) => {
    let b = docs.get(c);
    if (!b) docs.set(c, (b = new Map()));
    return b;
  };
  let closed = false;
  const open = () => {
    if (closed) throw new Error('store is closed');
  };

  return {
    get: (c, key) => bucket(c).get(key) as any,
    entries: (c) => [...bucket(c).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) as any,
    update: (c, key, fn) => {
      assertKey(c, key);
      return locks.run(`${c}/${key}`, async () => {
        open();
        const next = canonicalCopy(await fn(bucket(c).get(key) as any));
        bucket(c).set(key, next);
        return next;
      });
    },
    delete: (c, key) => {
      assertKey(c, key);
      return locks.run(`${c}/${key}`, async () => {
        open();
        bucket(c).delete(key);
      });
    },
    close: async () => {
      await locks.idle();
      closed = true;
    },
  };
}
