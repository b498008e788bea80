// What every datasource kind produces and what the rest of the service may ask
// of it. Records are the rows of an edge sheet (DESIGN: Datasources); the
// renderer turns them into topology, the store keeps them as dataset results.
import type { DatasetQuery } from '../schema/dataset.ts';

/** One end of a circuit: name plus coordinates and any `source_*`/`destination_*` or Nodes-tab fields. */
export interface Endpoint {
  name: string;
  latitude?: number;
  longitude?: number;
  [field: string]: unknown;
}

/**
 * One usable row: `{id, name, source, destination, …metadata, endpoints: [source, destination]}`.
 * A header repeated several times gives an array value.
 */
export interface EdgeRecord {
  id: string;
  name: string;
  source: string;
  destination: string;
  endpoints: [Endpoint, Endpoint];
  [field: string]: unknown;
}

/** A row that could not be used, reported instead of silently dropped. */
export interface RowProblem {
  sheet: string;
  /** 1-based row number as a spreadsheet program shows it (header is row 1). */
  row: number;
  message: string;
}

export interface QueryResult {
  records: EdgeRecord[];
  problems: RowProblem[];
  /** Total problems when more exist than `problems` lists (it is capped); absent otherwise. */
  problemCount?: number;
}

/** One entry of GET /api/v1/datasources/, keyed by its endpoint string. */
export interface DatasourceEntry {
  name: string;
  description: string;
  context: Record<string, string>;
  [extra: string]: unknown;
}

export interface DatasourceRegistry {
  /** The body of GET /api/v1/datasources/. */
  list(): Promise<Record<string, DatasourceEntry>>;
  /**
   * Dataset create: checks the endpoint string's form and kind without reading
   * data. Throws ServiceError validation_failed (422) naming the problem.
   */
  checkEndpoint(endpoint: string): void;
  /**
   * Runs a query live. Throws ServiceError datasource_unavailable (503) when the
   * source cannot be read, validation_failed (422) for a filter on an unknown column.
   */
  run(query: DatasetQuery): Promise<QueryResult>;
  close(): Promise<void>;
}
