// A dataset version as a render thread takes it for a diff: its name and
// query, and its results as the bytes the store holds (store.blobBytes),
// parsed on that thread. Results of 199k records are some 74 MB of JSON:
// parsing them, or cloning them parsed, cost the main thread seconds.
import { ServiceError } from '../errors.ts';
import type { EdgeRecord } from '../datasources/types.ts';
import type { DatasetSide } from './diff-dataset.ts';

export interface StoredSide {
  name: string;
  query: unknown;
  /** The stored results' bytes ({ records, problems, ... } as UTF-8 JSON); null when the version has none. */
  results: Uint8Array | null;
}

/** The detail of the error a side whose bytes are not stored results gives; its caller reads them again to say which file. */
export const UNREADABLE_RESULTS = 'the stored results of a version cannot be read';

const isArray = (v: unknown): v is unknown[] => Array.isArray(v);

/** `side` with its results parsed; throws UNREADABLE_RESULTS when they are not JSON of stored results. */
export function parseStoredSide(side: StoredSide): DatasetSide {
  if (side.results === null) return { name: side.name, query: side.query, records: null };
  const { buffer, byteOffset, byteLength } = side.results;
  let found: { records?: unknown; problems?: unknown } | null;
  try {
    found = JSON.parse(Buffer.from(buffer, byteOffset, byteLength).toString('utf8')) as typeof found;
  } catch {
    throw new ServiceError('resource_unavailable', UNREADABLE_RESULTS);
  }
  if (!isArray(found?.records) || !isArray(found.problems)) throw new ServiceError('resource_unavailable', UNREADABLE_RESULTS);
  return { name: side.name, query: side.query, records: found.records as EdgeRecord[] };
}
