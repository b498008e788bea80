// What one datasource kind (spreadsheet, and any later one) gives the
// registry. The registry owns the endpoint string's `kind?params` form; a
// kind sees only its own parameters.
import type { DatasetQuery } from '../schema/dataset.ts';
import type { DatasourceEntry, QueryResult } from './types.ts';

export interface DatasourceKind {
  readonly name: string;
  /** Entries of GET /api/v1/datasources/ as [endpoint string, entry] pairs, in a stable order. */
  list(): Promise<[string, DatasourceEntry][]>;
  /** Form of the parameters only (no data read); throws validation_failed. */
  check(params: URLSearchParams): void;
  run(params: URLSearchParams, query: DatasetQuery): Promise<QueryResult>;
  close(): Promise<void>;
}
