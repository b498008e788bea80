// Datasets: versioned datasource queries with the results of their runs.
// Create checks the endpoint string and stores the query without running it.
// Update always runs the query live; with at least one filter it stores the
// records with the new version, with none the version has no results (DESIGN:
// "with none the version stores no results"). A datasource that cannot be
// read (503) or a bad filter (422) stores nothing, filters or not.
//
// Results live in their own documents, collection `results`, key
// `<datasetId>.v<version>`: { datasetId, version, records, problems }. The
// stored version refers to it by `resultsKey` (null when none), and the
// dataset object clients see carries them inline, as Terranova does:
// `results` (the records, or null) and `problems` (unusable rows, or []),
// plus `problemCount` when the datasource capped the `problems` list.
import type { DatasourceRegistry, EdgeRecord, QueryResult, RowProblem } from '../datasources/types.ts';
import type { DatasetRevision } from '../schema/dataset.ts';
import { DATASET_FIELDS } from '../schema/records.ts';
import type { Json, Store } from '../store/types.ts';
import { contentOf, VersionedCollection, type Content } from './collection.ts';
import type { ListQuery, ResourceKind, StoredVersion } from './types.ts';

export interface StoredResults {
  datasetId: string;
  version: number;
  records: EdgeRecord[];
  problems: RowProblem[];
  /** Total unusable rows when `problems` is capped by the datasource. */
  problemCount?: number;
}

export const resultsKey = (datasetId: string, version: number) => `${datasetId}.v${version}`;

/** The dataset kind without its store-bound presentation (enough to parse list queries). */
export const DATASET_KIND: ResourceKind = {
  collection: 'datasets',
  label: 'dataset',
  idField: 'datasetId',
  fields: DATASET_FIELDS,
  defaultFields: ['datasetId', 'name', 'version', 'lastUpdatedBy', 'lastUpdatedOn'],
  computedFields: ['results', 'problems', 'problemCount'],
};

function datasetKind(store: Store): ResourceKind {
  const results = (v: StoredVersion) =>
    typeof v.resultsKey === 'string' ? store.get<StoredResults>('results', v.resultsKey) : undefined;
  return {
    ...DATASET_KIND,
    present: (v) => {
      const { resultsKey: _key, ...shown } = v;
      const stored = results(v);
      const capped = stored?.problemCount !== undefined ? { problemCount: stored.problemCount } : {};
      return { ...shown, results: stored?.records ?? null, problems: stored?.problems ?? [], ...capped };
    },
  };
}

export function createDatasets(store: Store, now: () => Date, datasources: DatasourceRegistry) {
  const collection = new VersionedCollection(store, datasetKind(store), now);
  const content = (r: DatasetRevision, key: string | null): Content =>
    ({ name: r.name, query: r.query as unknown as Json, resultsKey: key });

  return {
    collection,
    get: (id: string, which: 'latest' | number = 'latest') => collection.get(id, which),
    view: (version: StoredVersion) => collection.view(version),
    list: (query: ListQuery) => collection.list(query),

    create(by: string, revision: DatasetRevision) {
      datasources.checkEndpoint(revision.query.endpoint);
      return collection.create(by, content(revision, null));
    },

    async update(id: string, by: string, revision: DatasetRevision, ifMatch?: string) {
      // Fail fast (404, 412, 422) before a possibly slow datasource read.
      collection.checkMatch(id, collection.get(id), ifMatch);
      datasources.checkEndpoint(revision.query.endpoint);
      const result = await datasources.run(revision.query);
      const ran: QueryResult | null = revision.query.filters.length > 0 ? result : null;
      return collection.append(id, by, async (_latest, next) => {
        if (!ran) return content(revision, null);
        // Results first: a crash between the two writes leaves an unreferenced
        // results file (overwritten by the next update), never a dangling reference.
        const key = resultsKey(id, next);
        await store.update<StoredResults>('results', key, () => ({
          datasetId: id, version: next, records: ran.records, problems: ran.problems,
          ...(ran.problemCount !== undefined ? { problemCount: ran.problemCount } : {}),
        }));
        return content(revision, key);
      }, { ifMatch });
    },

    /** Stored results of one version (for snapshot output); null when that version has none. */
    results(id: string, which: 'latest' | number = 'latest'): StoredResults | null {
      const version = collection.get(id, which);
      if (typeof version.resultsKey !== 'string') return null;
      return store.get<StoredResults>('results', version.resultsKey) ?? null;
    },

    /** The query of one version, as stored (normalized by the schema). */
    query(version: StoredVersion): DatasetRevision['query'] {
      return contentOf(version).query as unknown as DatasetRevision['query'];
    },
  };
}

export type Datasets = ReturnType<typeof createDatasets>;
