// Minimal line diff of two texts, for template markup (history/diff-template.ts),
// by the `diff` package's Myers implementation (diffArrays) over the lines
// between the common head and tail. Its cost grows with the number of edits,
// so it is capped: past MAX_EDITS the differing middle is reported removed
// then added whole - a correct diff, just not minimal.
import { diffArrays } from 'diff';

export interface LineChange {
  op: 'add' | 'remove';
  /** 1-based: in the old text for `remove`, in the new text for `add`. */
  line: number;
  text: string;
}

/** Edits the minimal diff is searched to (a 2,000-line template rewritten from top to bottom is 4,000). */
export const MAX_EDITS = 4000;

const linesOf = (s: string): string[] => (s === '' ? [] : s.split(/\r\n|\r|\n/));

/** The edits, in reading order, that turn `before` into `after`; within a run of edits removals come first, as in a unified diff. */
export function diffLines(before: string, after: string): LineChange[] {
  const a = linesOf(before), b = linesOf(after);
  // The common head and tail cost nothing to match and usually are most of a template.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail), y = b.slice(head, b.length - tail);
  const parts = diffArrays(x, y, { maxEditLength: MAX_EDITS })
    ?? [{ value: x, removed: true, added: false, count: x.length }, { value: y, added: true, removed: false, count: y.length }];

  const out: LineChange[] = [];
  let i = head, j = head, adds: number[] = [];
  const flush = () => {
    for (const at of adds) out.push({ op: 'add', line: at + 1, text: b[at] });
    adds = [];
  };
  for (const part of parts) {
    const n = part.value.length;
    if (part.removed) {
      for (let k = 0; k < n; k++, i++) out.push({ op: 'remove', line: i + 1, text: a[i] });
    } else if (part.added) {
      for (let k = 0; k < n; k++) adds.push(j++);
    } else {
      flush();
      i += n;
      j += n;
    }
  }
  flush();
  return out;
}
