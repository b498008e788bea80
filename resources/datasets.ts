// Datasets: versioned datasource queries with the results of their runs.
// Create stores the query without running it (`results: null`); an endpoint
// that cannot run yet (a resource this service does not have, such as the
// placeholder `esdb` Terranova's editor creates datasets with, or a sheet
// not there) is stored too and reported in `problems` (docs/api.md: Datasets).
// A malformed endpoint is 422. Update always runs the query live and stores
// its records with the new version; a query with no filters selects every
// row (as Terranova does). A datasource that cannot be read (503), an
// endpoint of an unknown kind or a bad filter (422) stores nothing; so do
// filters that match no row of a sheet that has rows (zero-match.ts), which
// answers the latest version with a warning. Refresh
// runs the stored query again and stores a version only when its results changed.
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
import type { DatasetProblem, DatasourceRegistry, QueryResult } from '../datasources/types.ts';
import type { DatasetRevision } from '../schema/dataset.ts';
import { DATASET_FIELDS } from '../schema/objects.ts';
import type { Store } from '../store/types.ts';
import type { DiffOffload } from './changes.ts';
import { contentOf } from './collection.ts';
import { storedResults, type StoredResults } from './results.ts';
import { NothingMatched, zeroMatchWarning } from './zero-match.ts';
import type { DatasetContent, ResourceDescriptor, StoredDataset } from './types.ts';
import { describeResource, versionedResource } from './versioned-resource.ts';

export type { StoredResults };

/** Why an update stored nothing, by the revision it was asked with (the answer's `warnings`). */
const unstored = new WeakMap<DatasetRevision, string[]>();

/** The warnings of an update answer: why nothing was stored, when that is so. */
export const updateWarnings = (revision: DatasetRevision): string[] => unstored.get(revision) ?? [];

/** The dataset descriptor without its store-bound presentation (enough to parse list queries). */
export const DATASET_DESCRIPTOR = describeResource('dataset', DATASET_FIELDS, { computedFields: ['results', 'problems', 'problemCount'] });

function datasetDescriptor(store: Store): ResourceDescriptor {
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

export function createDatasets(store: Store, now: () => Date, datasources: DatasourceRegistry, offload?: (by: string) => DiffOffload) {
  /** Stores a run's results as a blob named by its content: equal results get the same key. */
  const storeResults = (ran: QueryResult) => store.put({
    records: ran.records, problems: ran.problems,
    ...(ran.problemCount !== undefined ? { problemCount: ran.problemCount } : {}),
  });
  const content = (r: DatasetRevision, key: string | null): DatasetContent =>
    ({ name: r.name, query: r.query, resultsKey: key });
  const datasets = versionedResource<DatasetRevision, StoredDataset, string>(store, now, {
    descriptor: datasetDescriptor(store),
    async created(revision) {
      const problems = await datasources.endpointProblems(revision.query.endpoint, revision.query);
      return { ...content(revision, null), ...(problems.length ? { endpointProblems: problems } : {}) };
    },
    async prepare(id, revision, ifMatch, latest) {
      // Fail fast (412, 422) before a possibly slow datasource read.
      collection.checkMatch(id, latest, ifMatch);
      datasources.checkEndpoint(revision.query.endpoint);
      const ran = await datasources.run(revision.query);
      if (ran.records.length === 0 && revision.query.filters.length > 0) {
        const warning = await zeroMatchWarning(datasources, revision.query);
        if (warning) throw new NothingMatched([warning]);
      }
      // Results first: a crash between the two writes leaves an unreferenced blob, never a dangling reference.
      return storeResults(ran);
    },
    updated: (revision, _latest, resultsKey) => content(revision, resultsKey),
    offload,
  });
  const { collection } = datasets;

  return {
    ...datasets,
    /** An update whose filters match no row stores nothing: the latest version, with the warning kept for the answer. */
    async update(id: string, by: string, revision: DatasetRevision, ifMatch?: string, seen?: StoredDataset): Promise<StoredDataset> {
      try {
        return await datasets.update(id, by, revision, ifMatch, seen);
      } catch (e) {
        if (!(e instanceof NothingMatched)) throw e;
        unstored.set(revision, e.warnings);
        return collection.get(id);
      }
    },
    /** Stored results of one version (for snapshot output); null when that version has none. */
    async results(id: string, which: 'latest' | number = 'latest'): Promise<StoredResults | null> {
      return (await storedResults(store, await collection.at(id, which))) ?? null;
    },

    /**
     * Runs the latest version's query again and stores a new version only when
     * its results differ from the stored ones (results are named by their
     * content, so equal results have the same key); otherwise the latest
     * version stays, and `warnings` say why. Filters that now match no row
     * store nothing either, as an update's do (zero-match.ts). 412 when the
     * dataset changed meanwhile (or If-Match names another version).
     */
    async refresh(id: string, by: string, ifMatch?: string): Promise<{ version: StoredDataset; warnings: string[] }> {
      const latest = collection.get(id);
      collection.checkMatch(id, latest, ifMatch);
      const { query } = latest;
      datasources.checkEndpoint(query.endpoint);
      const ran = await datasources.run(query);
      if (ran.records.length === 0 && query.filters.length > 0) {
        const warning = await zeroMatchWarning(datasources, query);
        if (warning) return { version: latest, warnings: [warning] };
      }
      const key = await storeResults(ran);
      if (key === latest.resultsKey) {
        return { version: latest, warnings: [`the results are unchanged: version ${latest.version} is kept and no version was added`] };
      }
      const version = await collection.appendLive(id, by, (current) => {
        const { endpointProblems: _gone, ...content } = contentOf(current);
        return { content: { ...content, resultsKey: key }, change: 'results refreshed' };
      }, { ifMatch: collection.etag(latest) });
      return { version, warnings: [] };
    },
  };
}

export type Datasets = ReturnType<typeof createDatasets>;
