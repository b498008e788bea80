// Minimal line diff of two texts, for template markup (history/diff-template.ts).
// Myers' O((N+M)D) algorithm first: an edit of a few lines in a 2,000-line
// template costs a fraction of a millisecond. When the texts differ in more
// than MAX_MYERS_EDITS lines (its trace grows as D squared), an LCS table
// (O(N*M), 2 bytes a cell) takes over; past MAX_LCS_CELLS the differing middle
// is reported removed then added whole - a correct diff, just not minimal.

export interface LineChange {
  op: 'add' | 'remove';
  /** 1-based: in the old text for `remove`, in the new text for `add`. */
  line: number;
  text: string;
}

/** Edits Myers is run to: a (D+1)^2-entry trace, 4 MB at 1,000. */
export const MAX_MYERS_EDITS = 1000;
/** Largest LCS table: 16M cells, 32 MB (a 2,000 x 2,000-line template is 4M). */
export const MAX_LCS_CELLS = 16_000_000;

const EQUAL = 0, REMOVE = 1, ADD = 2;
type Op = typeof EQUAL | typeof REMOVE | typeof ADD;

const linesOf = (s: string): string[] => (s === '' ? [] : s.split(/\r\n|\r|\n/));

/**
 * The furthest x a D-path reaches on diagonal k (x - y = k) from the
 * (D-1)-paths in `prev` (diagonals -(d-1)..d-1 at offset d-1), and whether it
 * gets there by a step down (an added line); -1 when none can. Moves that
 * would leave the n x m box are not taken, so every point is a real one.
 */
function step(prev: Int32Array, d: number, k: number, n: number, m: number): [number, boolean] {
  const at = (kk: number) => (kk >= -(d - 1) && kk <= d - 1 ? prev[kk + d - 1] : -1);
  const above = at(k + 1), left = at(k - 1);
  const down = above >= 0 && above - (k + 1) < m ? above : -1;
  const right = left >= 0 && left < n ? left + 1 : -1;
  return down > right ? [down, true] : [right, false];
}

function myers(x: Int32Array, y: Int32Array, maxD: number): Op[] | null {
  const n = x.length, m = y.length;
  const snake = (px: number, k: number) => {
    while (px < n && px - k < m && x[px] === y[px - k]) px++;
    return px;
  };
  const trace: Int32Array[] = [Int32Array.of(snake(0, 0))];
  let D = trace[0][0] === n && n === m ? 0 : -1;
  for (let d = 1; D < 0 && d <= maxD; d++) {
    const prev = trace[d - 1], v = new Int32Array(2 * d + 1).fill(-1);
    for (let k = -d; k <= d; k += 2) {
      const [px] = step(prev, d, k, n, m);
      if (px < 0) continue;
      v[k + d] = snake(px, k);
      if (v[k + d] === n && n - k === m) D = d;
    }
    trace.push(v);
  }
  if (D < 0) return null;
  const ops: Op[] = [];
  let px = n, py = m;
  for (let d = D; d > 0; d--) {
    const k = px - py;
    const [mx, down] = step(trace[d - 1], d, k, n, m);
    for (let s = px; s > mx; s--) ops.push(EQUAL); // the snake after the move
    ops.push(down ? ADD : REMOVE);
    // Back to where the move started: above it (on k + 1) or left of it (on k - 1).
    px = down ? mx : mx - 1;
    py = down ? mx - k - 1 : mx - k;
  }
  for (let s = 0; s < px; s++) ops.push(EQUAL);
  return ops.reverse();
}

function lcs(x: Int32Array, y: Int32Array): Op[] | null {
  const n = x.length, m = y.length, w = m + 1;
  if (n * m > MAX_LCS_CELLS || n >= 65_535 || m >= 65_535) return null;
  // L[i*w+j]: LCS length of x[i..] and y[j..], filled from the end so the walk goes forwards.
  const L = new Uint16Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) L[i * w + j] = x[i] === y[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
  }
  const ops: Op[] = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) { ops.push(EQUAL); i++; j++; }
    else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) { ops.push(REMOVE); i++; }
    else { ops.push(ADD); j++; }
  }
  while (i++ < n) ops.push(REMOVE);
  while (j++ < m) ops.push(ADD);
  return ops;
}

/** The edits, in reading order, that turn `before` into `after`; within a run of edits removals come first, as in a unified diff. */
export function diffLines(before: string, after: string): LineChange[] {
  const a = linesOf(before), b = linesOf(after);
  // The common head and tail cost nothing to match and usually are most of a template.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const n = a.length - head - tail, m = b.length - head - tail;
  // Lines as small integers, so the algorithms compare numbers, not strings.
  const ids = new Map<string, number>();
  const id = (s: string) => {
    let k = ids.get(s);
    if (k === undefined) ids.set(s, (k = ids.size));
    return k;
  };
  const x = Int32Array.from({ length: n }, (_, i) => id(a[head + i]));
  const y = Int32Array.from({ length: m }, (_, j) => id(b[head + j]));
  const ops = myers(x, y, MAX_MYERS_EDITS) ?? lcs(x, y) ?? [...Array<Op>(n).fill(REMOVE), ...Array<Op>(m).fill(ADD)];

  const out: LineChange[] = [];
  let i = head, j = head, adds: number[] = [];
  const flush = () => {
    for (const at of adds) out.push({ op: 'add', line: at + 1, text: b[at] });
    adds = [];
  };
  for (const op of ops) {
    if (op === EQUAL) { flush(); i++; j++; }
    else if (op === REMOVE) { out.push({ op: 'remove', line: i + 1, text: a[i] }); i++; }
    else adds.push(j++);
  }
  flush();
  return out;
}
