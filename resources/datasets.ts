// Datasets: versioned datasource queries with the results of their runs.
// Create stores the query without running it (`results: null`); an endpoint
// that cannot run yet (a kind this service does not have, such as the
// placeholder `esdb` Terranova's editor creates datasets with, or a sheet
// not there) is stored too and reported in `problems` (docs/api.md: Datasets).
// A malformed endpoint is 422. Update always runs the query live and stores
// its records with the new version; a query with no filters selects every
// row (as Terranova does). A datasource that cannot be read (503), an
// endpoint of an unknown kind or a bad filter (422) stores nothing.
//
// Results are blobs of the store, named by the hash of their content:
// { records, problems, problemCount? }. A refresh whose results equal the
// previous version's stores no new bytes. The stored version refers to its
// results by `resultsKey` (null when none), and the dataset object clients
// see carries them inline, as Terranova does: `results` (the records, or
// null) and `problems` (unusable rows, or []), plus `problemCount` when the
// datasource capped the `problems` list. A created version keeps the reasons
// its endpoint could not run in `endpointProblems`, shown in `problems` as
// `{path: "query.endpoint", message}`.
import type { DatasetProblem, DatasourceRegistry } from '../datasources/types.ts';
import type { DatasetRevision } from '../schema/dataset.ts';
import { DATASET_FIELDS } from '../schema/objects.ts';
import type { Json, Store } from '../store/types.ts';
import { contentOf, VersionedCollection, type Content } from './collection.ts';
import { describeChange } from './changes.ts';
import { storedResults, type StoredResults } from './results.ts';
import type { ListQuery, ResourceDescriptor, StoredVersion } from './types.ts';

export type { StoredResults };

/** The dataset kind without its store-bound presentation (enough to parse list queries). */
export const DATASET_DESCRIPTOR: ResourceDescriptor = {
  collection: 'datasets',
  label: 'dataset',
  idField: 'datasetId',
  fields: DATASET_FIELDS,
  defaultFields: ['datasetId', 'name', 'version', 'lastUpdatedBy', 'lastUpdatedOn'],
  computedFields: ['results', 'problems', 'problemCount'],
};

function datasetKind(store: Store): ResourceDescriptor {
  return {
    ...DATASET_DESCRIPTOR,
    present: async (v) => {
      const { resultsKey: _key, endpointProblems, ...shown } = v;
      const stored = await storedResults(store, v);
      const capped = stored?.problemCount !== undefined ? { problemCount: stored.problemCount } : {};
      const problems: DatasetProblem[] = stored?.problems ?? (Array.isArray(endpointProblems)
        ? endpointProblems.map((message) => ({ path: 'query.endpoint', message: String(message) }))
        : []);
      return { ...shown, results: stored?.records ?? null, problems, ...capped };
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
    serialized: (version: StoredVersion) => collection.serialized(version),
    list: (query: ListQuery) => collection.list(query),

    async create(by: string, revision: DatasetRevision) {
      const problems = await datasources.endpointProblems(revision.query.endpoint);
      return collection.create(by, { ...content(revision, null), ...(problems.length ? { endpointProblems: problems } : {}) });
    },

    async update(id: string, by: string, revision: DatasetRevision, ifMatch?: string) {
      // Fail fast (404, 412, 422) before a possibly slow datasource read.
      collection.checkMatch(id, collection.get(id), ifMatch);
      datasources.checkEndpoint(revision.query.endpoint);
      const ran = await datasources.run(revision.query);
      // Results first: a crash between the two writes leaves an unreferenced blob, never a dangling reference.
      const key = await store.put({
        records: ran.records, problems: ran.problems,
        ...(ran.problemCount !== undefined ? { problemCount: ran.problemCount } : {}),
      } as unknown as Json);
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
