// What changed between two versions, by meaning (history/ does the diffing):
// the diff the diff route answers, and the one-sentence summary each stored
// version carries (`change`), worked out once when the version is written,
// so listing a long history never diffs anything. A big dataset diff, and
// the summary of one, run elsewhere (the render pool, within its budgets):
// the store hands their results over as bytes, parsed there, so the main
// thread neither parses nor copies them.
import { diffDataset, type DatasetSide } from '../history/diff-dataset.ts';
import { diffMap } from '../history/diff-map.ts';
import { diffTemplate } from '../history/diff-template.ts';
import { UNREADABLE_RESULTS, type StoredSide } from '../history/stored-side.ts';
import { summarizeDataset, summarizeMap, summarizeTemplate } from '../history/summary.ts';
import type { DatasetDiffJob } from '../pool/jobs.ts';
import { isServiceError } from '../errors.ts';
import type { EdgeRecord } from '../datasources/types.ts';
import type { Store } from '../store/types.ts';
import { storedResults } from './results.ts';

type Side = { [key: string]: unknown };
export type Kind = 'maps' | 'datasets' | 'templates';

/** A dataset version as the dataset diff compares it: name, query and its stored records (none for a deletion). */
export async function datasetSide(store: Store, v: Side): Promise<DatasetSide> {
  const results = await storedResults(store, v);
  return { name: String(v.name ?? ''), query: v.query ?? null, records: (results?.records as EdgeRecord[] | undefined) ?? null };
}

/**
 * Bytes of stored results two dataset versions may hold together and still be diffed here (some 3,000 records);
 * more go to the offload. Parsing them here costs the main thread about 10 ms a megabyte.
 */
const DIFF_HERE_BYTES = 1024 * 1024;

/** A dataset diff done elsewhere (the render pool, within its budgets): the job's answer. */
export type DiffOffload = (job: DatasetDiffJob) => Promise<string | Uint8Array>;

/** Both versions with their results' stored bytes, when those are too many to diff here; undefined otherwise. */
async function bigSides(store: Store, before: Side, after: Side): Promise<[StoredSide, StoredSide] | undefined> {
  const bytes = async (v: Side) => (typeof v.resultsKey === 'string' ? (await store.blobBytes(v.resultsKey)) ?? null : null);
  const sides = await Promise.all([before, after].map(async (v) => ({ name: String(v.name ?? ''), query: v.query ?? null, results: await bytes(v) })));
  const total = sides.reduce((n, s) => n + (s.results?.byteLength ?? 0), 0);
  return total > DIFF_HERE_BYTES ? [sides[0], sides[1]] : undefined;
}

/**
 * A dataset diff's answer (`answer`): offloaded when the results are big, else worked out here by `here`. Results
 * the thread cannot read are read here again, which says which file is wrong (and notes it for health).
 */
async function datasetWork<T>(store: Store, before: Side, after: Side, answer: DatasetDiffJob['answer'],
  offload: DiffOffload | undefined, here: (a: DatasetSide, b: DatasetSide) => T): Promise<T | string | Uint8Array> {
  const sides = offload && await bigSides(store, before, after);
  if (sides) {
    try {
      return await offload({ kind: 'datasetDiff', before: sides[0], after: sides[1], answer });
    } catch (e) {
      if (!(isServiceError(e) && e.message === UNREADABLE_RESULTS)) throw e;
    }
  }
  return here(await datasetSide(store, before), await datasetSide(store, after));
}

/**
 * The diff of two versions of one resource; a big dataset diff through `offload` when given, answered as the
 * UTF-8 bytes of the diff's JSON (an object), which the caller sends on without parsing.
 */
export async function diffOf(kind: Kind, store: Store, before: Side, after: Side, offload?: DiffOffload): Promise<object | Uint8Array> {
  if (kind === 'maps') return diffMap(before, after);
  if (kind === 'templates') return diffTemplate(before, after);
  return datasetWork(store, before, after, 'diff', offload, diffDataset) as Promise<object | Uint8Array>;
}

/** The summary of a change, for the history; a big dataset diff's through `offload` when given. */
export async function describeChange(kind: Kind, store: Store, before: Side, after: Side, offload?: DiffOffload): Promise<string> {
  if (kind === 'maps') return summarizeMap(diffMap(before, after));
  if (kind === 'templates') return summarizeTemplate(diffTemplate(before, after));
  const here = (a: DatasetSide, b: DatasetSide) => summarizeDataset(diffDataset(a, b));
  try {
    return String(await datasetWork(store, before, after, 'summary', offload, here));
  } catch (e) {
    // The pool busy or the diff over its budget must not refuse the write it describes: the summary is worked out here then.
    if (!offload || !isServiceError(e)) throw e;
    return here(await datasetSide(store, before), await datasetSide(store, after));
  }
}
