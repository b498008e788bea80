// The memory adapter: the storage contract with no files, for tests and for
// trying the service without a data folder. Documents are kept in the same
// canonical form the file adapter writes, so both behave identically.
import { DocumentBuilder } from './document-builder.ts';
import { DocIndex } from './doc-index.ts';
import { KeyLock } from './key-lock.ts';
import { assertDocument, assertKey } from './keys.ts';
import type { Store } from './types.ts';

export function createMemoryStore(): Store {
  const index = new DocIndex();
  const locks = new KeyLock();
  const builder = new DocumentBuilder();
  let closed = false;
  const open = () => {
    if (closed) throw new Error('store is closed');
  };

  return {
    get: (c, key) => index.get(c, key) as any,
    entries: (c) => index.entries(c) as any,
    update: async (c, key, fn) => {
      assertKey(c, key);
      return locks.run(`${c}/${key}`, async () => {
        open();
        const next = await fn(index.get(c, key) as any);
        assertDocument(c, key, next);
        const stored = builder.build(next);
        index.set(c, key, stored);
        return stored;
      });
    },
    delete: async (c, key) => {
      assertKey(c, key);
      return locks.run(`${c}/${key}`, async () => {
        open();
        index.delete(c, key);
      });
    },
    close: async () => {
      await locks.idle();
      closed = true;
    },
  };
}
