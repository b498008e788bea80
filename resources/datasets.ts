// Datasets: versioned datasource queries with the results of their runs.
// Create checks the endpoint string and stores the query without running it.
// Update always runs the query live; with at least one filter it stores the
// records with the new version, with none the version has no results (DESIGN:
// "with none the version stores no results"). A datasource that cannot be
// read (503) or a bad filter (422) stores nothing, filters or not.
//
// Results are blobs of the store, named by the hash of their content:
// { records, problems, problemCount? }. A refresh whose results equal the
// previous version's stores no new bytes. The stored version refers to its
// results by `resultsKey` (null when none), and the dataset object clients
// see carries them inline, as Terranova does: `results` (the records, or
// null) and `problems` (unusable rows, or []), plus `problemCount` when the
// datasource capped the `problems` list.
import type { DatasourceRegistry, QueryResult } from '../datasources/types.ts';
import type { DatasetRevision } from '../schema/dataset.ts';
import { DATASET_FIELDS } from '../schema/records.ts';
import type { Json, Store } from '../store/types.ts';
import { contentOf, VersionedCollection, type Content } from './collection.ts';
import { describeChange } from './changes.ts';
import { storedResults, type StoredResults } from './results.ts';
import type { ListQuery, ResourceKind, StoredVersion } from './types.ts';

export type { StoredResults };

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
  return {
    ...DATASET_KIND,
    present: async (v) => {
      const { resultsKey: _key, ...shown } = v;
      const stored = await storedResults(store, v);
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
    get: (id: string) => collection.get(id),
    at: (id: string, which: 'latest' | number = 'latest') => collection.at(id, which),
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
      // Results first: a crash between the two writes leaves an unreferenced blob, never a dangling reference.
      const key = ran ? await store.put({
        records: ran.records, problems: ran.problems,
        ...(ran.problemCount !== undefined ? { problemCount: ran.problemCount } : {}),
      } as unknown as Json) : null;
      return collection.append(id, by, async (latest) => {
        const next = content(revision, key);
        return { content: next, change: await describeChange('datasets', store, latest, next) };
      }, { ifMatch });
    },

    /** Stored results of one version (for snapshot output); null when that version has none. */
    async results(id: string, which: 'latest' | number = 'latest'): Promise<StoredResults | null> {
      return (await storedResults(store, await collection.at(id, which))) ?? null;
    },

    /** The query of one version, as stored (normalized by the schema). */
    query(version: StoredVersion): DatasetRevision['query'] {
      return contentOf(version).query as unknown as DatasetRevision['query'];
    },
  };
}

export type Datasets = ReturnType<typeof createDatasets>;
