// What one datasource kind (spreadsheet, and any later one) gives the
// registry. The registry owns the endpoint string's `kind?params` form; a
// kind sees only its own parameters.
import type { DatasetQuery } from '../schema/dataset.ts';
import type { DatasourceListing, QueryResult } from './types.ts';

export interface DatasourceKind {
  readonly name: string;
  /** Entries of GET /api/v1/datasources/ as [endpoint string, entry] pairs, in a stable order. */
  list(): Promise<[string, DatasourceListing][]>;
  /** Endpoint parameters that the editor routes take from the path, in order. */
  readonly pathParams: readonly string[];
  /** Form of the parameters only (no data read); throws validation_failed. */
  check(params: URLSearchParams): void;
  /** Why well-formed parameters cannot run now, or `query` on them ([] when they can): the columns its filters name are checked; reads no rows. */
  problems(params: URLSearchParams, query?: DatasetQuery): Promise<string[]>;
  /** Filterable fields, read with a query's own column names when given; throws as run(). */
  columns(params: URLSearchParams, columns?: DatasetQuery['columns']): Promise<string[]>;
  /** What names the data the parameters read now (a file's identity): it changes whenever that data may have; undefined when there is none. */
  fingerprint?(params: URLSearchParams): Promise<string | undefined>;
  run(params: URLSearchParams, query: DatasetQuery): Promise<QueryResult>;
  close(): Promise<void>;
}
