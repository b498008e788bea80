// One short sentence per diff, for the `summary` of each history entry
// (docs/api.md: Diffs): what a person scanning the list of versions wants to
// know before opening one - "3 nodes added, 1 edge changed, name changed".
import type { DatasetDiff } from './diff-dataset.ts';
import type { MapDiff } from './diff-map.ts';
import type { TemplateDiff } from './diff-template.ts';
import type { JsonChange } from './json-diff.ts';

const NO_CHANGES = 'no changes';
/** Paths a map summary names before "and N more": more would not be short. */
const MAX_PATHS = 3;

const VERB: Record<JsonChange['op'], string> = { add: 'added', remove: 'removed', replace: 'changed' };

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const sentence = (parts: string[]) => (parts.length ? parts.join(', ') : NO_CHANGES);

/** "name changed, query changed": the top-level fields that changes touch, once each, in order. */
function fieldsChanged(changes: readonly JsonChange[]): string[] {
  const fields = new Set(changes.map((c) => c.path.split('.')[0]));
  return [...fields].map((f) => `${f} changed`);
}

/** "configuration.layers.0.color changed, overrides.d1 added and 2 more". */
export function summarizeMap(diff: MapDiff): string {
  const all = [...diff.changes, ...diff.overrides];
  if (all.length === 0) return NO_CHANGES;
  const named = all.slice(0, MAX_PATHS).map((c) => `${c.path} ${VERB[c.op]}`).join(', ');
  return all.length > MAX_PATHS ? `${named} and ${all.length - MAX_PATHS} more` : named;
}

/** "3 nodes added, 1 edge changed, name changed". */
export function summarizeDataset(diff: DatasetDiff): string {
  const parts: string[] = [];
  for (const [noun, d] of [['node', diff.nodes], ['edge', diff.edges]] as const) {
    if (d.added.length) parts.push(`${count(d.added.length, noun)} added`);
    if (d.removed.length) parts.push(`${count(d.removed.length, noun)} removed`);
    if (d.changed.length) parts.push(`${count(d.changed.length, noun)} changed`);
  }
  return sentence([...parts, ...fieldsChanged(diff.changes)]);
}

/**
 * "2 lines changed, 1 line added": a removal and an addition are counted
 * together as one changed line (an edited line is both), the surplus of
 * either as added or removed.
 */
export function summarizeTemplate(diff: TemplateDiff): string {
  let added = 0, removed = 0;
  for (const l of diff.lines) {
    if (l.op === 'add') added++;
    else removed++;
  }
  const changed = Math.min(added, removed);
  const parts: string[] = [];
  if (changed) parts.push(`${count(changed, 'line')} changed`);
  if (added > changed) parts.push(`${count(added - changed, 'line')} added`);
  if (removed > changed) parts.push(`${count(removed - changed, 'line')} removed`);
  return sentence([...parts, ...fieldsChanged(diff.changes)]);
}
