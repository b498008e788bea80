// What changed between two versions of a node template (docs/api.md: Diffs):
// its other fields (name...) as JSON changes, and the markup as changed lines
// (history/line-diff.ts), numbered the way a unified diff is read: removals
// by their line in the old markup, additions by their line in the new one.
import { contentFields } from './diff-map.ts';
import { diffJson, ownField, type JsonChange } from './json-diff.ts';
import { diffLines, type LineChange } from './line-diff.ts';

export { diffLines, MAX_EDITS, type LineChange } from './line-diff.ts';

export interface TemplateDiff {
  /** Fields other than `template` (and the stamps): name and any other. */
  changes: JsonChange[];
  lines: LineChange[];
}

function markupOf(v: Record<string, unknown>): string {
  const t = ownField(v, 'template');
  return typeof t === 'string' ? t : '';
}

export function diffTemplate(before: Record<string, unknown>, after: Record<string, unknown>): TemplateDiff {
  const changes: JsonChange[] = [];
  // templateId is the same in every version of one template; skipped so a diff across templates stays about content.
  for (const k of contentFields(before, after, new Set(['template', 'templateId']))) {
    changes.push(...diffJson(ownField(before, k), ownField(after, k), k));
  }
  return { changes, lines: diffLines(markupOf(before), markupOf(after)) };
}
