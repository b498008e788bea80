// What changed between two versions, by meaning (history/ does the diffing):
// the diff the diff route answers, and the one-sentence summary each stored
// version carries (`change`), worked out once when the version is written,
// so listing a long history never diffs anything.
import { diffDataset, type DatasetSide } from '../history/diff-dataset.ts';
import { diffMap } from '../history/diff-map.ts';
import { diffTemplate } from '../history/diff-template.ts';
import { summarizeDataset, summarizeMap, summarizeTemplate } from '../history/summary.ts';
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

/** Records two dataset versions may hold together and still be diffed here; more go to `offload` (off the event loop). */
const DIFF_HERE_RECORDS = 5_000;

/** A dataset diff done elsewhere (the render pool, within its budgets). */
export type DiffOffload = (before: DatasetSide, after: DatasetSide) => Promise<object>;

/** The diff of two versions of one resource; a big dataset diff through `offload` when given. */
export async function diffOf(kind: Kind, store: Store, before: Side, after: Side, offload?: DiffOffload): Promise<object> {
  if (kind === 'maps') return diffMap(before, after);
  if (kind === 'templates') return diffTemplate(before, after);
  const [a, b] = [await datasetSide(store, before), await datasetSide(store, after)];
  if (offload && (a.records?.length ?? 0) + (b.records?.length ?? 0) > DIFF_HERE_RECORDS) return offload(a, b);
  return diffDataset(a, b);
}

/** The summary of a change, for the history. */
export async function describeChange(kind: Kind, store: Store, before: Side, after: Side): Promise<string> {
  if (kind === 'maps') return summarizeMap(diffMap(before, after));
  if (kind === 'templates') return summarizeTemplate(diffTemplate(before, after));
  return summarizeDataset(diffDataset(await datasetSide(store, before), await datasetSide(store, after)));
}
