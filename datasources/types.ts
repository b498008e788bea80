// What every datasource kind produces and what the rest of the service may ask
// of it. Records are the rows of an edge sheet (docs/api.md: Datasets); the
// renderer turns them into topology, the store keeps them as dataset results.
import type { DatasetQuery } from '../schema/dataset.ts';

/** One end of a circuit: name plus coordinates and any `source_*`/`destination_*` or Nodes-tab fields. */
export interface CircuitEnd {
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
  endpoints: [CircuitEnd, CircuitEnd];
  [field: string]: unknown;
}

/** A row that could not be used, reported instead of silently dropped. */
export interface RowProblem {
  sheet: string;
  /** 1-based row number as a spreadsheet program shows it (header is row 1). */
  row: number;
  message: string;
}

/**
 * Why a stored dataset's endpoint cannot run yet (an unknown kind, a sheet
 * not there), reported by dataset create in `problems` beside row problems.
 * Same `message` as a RowProblem; `path` instead of sheet and row, as in the
 * `errors` of a 422.
 */
interface EndpointProblem {
  path: 'query.endpoint';
  message: string;
}

/** An entry of a dataset's `problems`. */
export type DatasetProblem = RowProblem | EndpointProblem;

export interface QueryResult {
  records: EdgeRecord[];
  problems: RowProblem[];
  /** Total problems when more exist than `problems` lists (it is capped); absent otherwise. */
  problemCount?: number;
}

/** One entry of GET /api/v1/datasources/, keyed by its endpoint string. */
export interface DatasourceListing {
  name: string;
  description: string;
  context: Record<string, string>;
  [extra: string]: unknown;
}

/** A kind's editor routes: `/api/v1/datasources/<kind>/<one segment per param>/…`. */
interface PathKind {
  kind: string;
  /** Endpoint parameters taken from the path, in order (spreadsheet: sheet_id, sheet_name). */
  params: readonly string[];
}

export interface DatasourceRegistry {
  /** The body of GET /api/v1/datasources/. */
  list(): Promise<Record<string, DatasourceListing>>;
  /**
   * Dataset update and query previews: checks the endpoint string's form and
   * kind without reading data. Throws ServiceError validation_failed (422)
   * naming the problem (also for a kind this service does not have).
   */
  checkEndpoint(endpoint: string): void;
  /**
   * Dataset create: why the endpoint cannot run yet ([] when it can): a kind
   * this service does not have, a sheet that is not there or cannot be read,
   * and (with `query`) filter or node fields the sheet has no column for.
   * Reads no rows. Throws validation_failed (422) only for an endpoint that
   * can never name a datasource (malformed parameters of a known kind, or a
   * kind that is not a name).
   */
  endpointProblems(endpoint: string, query?: DatasetQuery): Promise<string[]>;
  /** Kinds that serve the editor routes, and their path parameters. */
  pathKinds(): readonly PathKind[];
  /**
   * Filterable fields of an endpoint (row columns and `endpoints.<field>`), lower case, in sheet order,
   * as a query with these `columns` (query.columns) reads them. 422/503 as run().
   */
  columns(endpoint: string, columns?: DatasetQuery['columns']): Promise<string[]>;
  /**
   * Runs a query live. Throws ServiceError datasource_unavailable (503) when the
   * source cannot be read, validation_failed (422) for a filter on an unknown column.
   */
  run(query: DatasetQuery): Promise<QueryResult>;
  /**
   * What names the data an endpoint reads now (for a spreadsheet, its file's
   * identity: device, inode, size and times), without reading it: equal
   * values mean the same data, so an output of live data is served again
   * while it holds (the output cache). Undefined when the kind cannot tell,
   * or nothing is there: outputs of it are then rendered every time.
   */
  fingerprint?(endpoint: string): Promise<string | undefined>;
  close(): Promise<void>;
}
