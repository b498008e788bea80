// Dataset results as the store keeps them: a blob named by the hash of its
// content, { records, problems, problemCount? }, referred to by a version's
// `resultsKey`. Reading checks the shape, since the file is plain JSON that
// people can edit.
import type { EdgeRecord, RowProblem } from '../datasources/types.ts';
import { ServiceError } from '../errors.ts';
import type { Store } from '../store/types.ts';

export interface StoredResults {
  records: EdgeRecord[];
  problems: RowProblem[];
  /** Total unusable rows when `problems` is capped by the datasource. */
  problemCount?: number;
}

/** The stored results a version refers to; undefined when it has none. 503 naming the file when they cannot be read. */
export async function storedResults(store: Store, version: { [key: string]: unknown }): Promise<StoredResults | undefined> {
  if (typeof version.resultsKey !== 'string') return undefined;
  const found = await store.fetch<StoredResults>(version.resultsKey);
  if (found === undefined) return undefined;
  if (!Array.isArray(found.records) || !Array.isArray(found.problems)) {
    throw new ServiceError('resource_unavailable', `dataset ${String(version.datasetId)} version ${String(version.version)} cannot be served: ` +
      `data file results/${version.resultsKey}.json does not hold {"records": [...], "problems": [...]}`);
  }
  return found;
}

;
