// The memory adapter: the storage contract with no files, for tests and for
// trying the service without a data folder. It goes through the same core as
// the file adapter (core.ts), with strings in maps for bytes, so both behave
// alike (one contract suite runs against both).
import { createStore } from './core.ts';
import type { Persistence } from './persistence.ts';
import type { Store } from './types.ts';

export function createMemoryStore(): Store {
  const entries = new Map<string, string>();
  const blobs = new Map<string, string>();
  /** Each log's outline records, in the order stored, by collection/key. */
  const outlines = new Map<string, Array<readonly [number, string]>>();
  const keep = (c: string, key: string, records: ReadonlyArray<readonly [number, string]>) => {
    const log = outlines.get(`${c}/${key}`) ?? [];
    outlines.set(`${c}/${key}`, [...log, ...records]);
  };
  const missing = (what: string): never => {
    throw new Error(`is missing (${what})`);
  };
  const persistence: Persistence = {
    writeDoc: async () => undefined,
    removeDoc: async () => undefined,
    writeEntry: async (c, key, version, text, _first, outline) => {
      const where = persistence.whereEntry(c, key, version);
      if (entries.has(where)) throw new Error(`${where} exists`);
      entries.set(where, text);
      keep(c, key, [[version, outline]]);
    },
    readOutlines: async (c, key) => outlines.get(`${c}/${key}`) ?? [],
    keepOutlines: async (c, key, records) => keep(c, key, records),
    readEntry: async (c, key, version) => entries.get(persistence.whereEntry(c, key, version)) ?? missing('entry'),
    whereEntry: (c, key, version) => `${c}/${key}/v${version}.json`,
    dropLog: async (c, key, versions) => {
      for (const v of versions) entries.delete(persistence.whereEntry(c, key, v));
      outlines.delete(`${c}/${key}`);
    },
    writeBlob: async (key, text) => void blobs.set(key, text),
    readBlob: async (key) => blobs.get(key) ?? missing('blob'),
    readBlobBytes: async (key) => Buffer.from(blobs.get(key) ?? missing('blob')),
    whereBlob: (key) => `results/${key}.json`,
    removeBlob: async (key) => void blobs.delete(key),
    close: async () => undefined,
  };
  return createStore(persistence, { docs: [], logs: [], blobs: [], problems: [] });
}
