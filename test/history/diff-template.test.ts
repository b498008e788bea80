import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { diffLines, diffTemplate, MAX_EDITS, type LineChange } from '../../history/diff-template.ts';
import { cpuMs } from '../helpers/cpu-time.ts';

const lines = (...xs: string[]) => xs.join('\n');
const rm = (line: number, text: string): LineChange => ({ op: 'remove', line, text });
const add = (line: number, text: string): LineChange => ({ op: 'add', line, text });

/** Length of the longest common subsequence, by the textbook table: what a minimal diff keeps. */
function lcsLength(a: string[], b: string[]): number {
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const next = [0];
    for (let j = 1; j <= b.length; j++) next[j] = a[i - 1] === b[j - 1] ? row[j - 1] + 1 : Math.max(row[j], next[j - 1]);
    row = next;
  }
  return row[b.length];
}

/** Checks `d` is a correct and minimal diff of a to b: right texts at right lines, the kept lines in order, as many as the LCS. */
function checkDiff(a: string[], b: string[], d: LineChange[]): void {
  const removed = new Set<number>(), added = new Set<number>();
  for (const c of d) {
    if (c.op === 'remove') { assert.equal(a[c.line - 1], c.text); removed.add(c.line - 1); }
    else { assert.equal(b[c.line - 1], c.text); added.add(c.line - 1); }
  }
  const keptA = a.filter((_, i) => !removed.has(i)), keptB = b.filter((_, i) => !added.has(i));
  assert.deepEqual(keptA, keptB, 'what is neither removed nor added is the same lines in the same order');
  assert.equal(keptA.length, lcsLength(a, b), 'minimal: keeps a longest common subsequence');
}

function random(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

describe('diffLines', () => {
  const cases: [string, string, string, LineChange[]][] = [
    ['identical', lines('a', 'b'), lines('a', 'b'), []],
    ['one line edited in the middle', lines('<g>', '<circle r="5"/>', '</g>'), lines('<g>', '<circle r="6"/>', '</g>'),
      [rm(2, '<circle r="5"/>'), add(2, '<circle r="6"/>')]],
    ['a line inserted: numbered in the new markup', lines('a', 'b', 'c'), lines('a', 'x', 'b', 'c'), [add(2, 'x')]],
    ['a line removed: numbered in the old markup', lines('a', 'b', 'c', 'd'), lines('a', 'b', 'd'), [rm(3, 'c')]],
    ['from nothing', '', lines('a', 'b'), [add(1, 'a'), add(2, 'b')]],
    ['to nothing', lines('a', 'b'), '', [rm(1, 'a'), rm(2, 'b')]],
    ['changes far apart keep their own line numbers', lines('a', 'b', 'c', 'd', 'e', 'f'), lines('A', 'b', 'c', 'd', 'e', 'f', 'g'),
      [rm(1, 'a'), add(1, 'A'), add(7, 'g')]],
    ['a minimal diff, not a whole-block replace (moved line)', lines('x', 'a', 'b', 'c', 'y'), lines('x', 'b', 'c', 'a', 'y'),
      [rm(2, 'a'), add(4, 'a')]],
    ['CRLF and LF line ends read alike', 'a\r\nb\r\nc', 'a\nb\nc', []],
  ];
  for (const [what, a, b, expected] of cases) it(what, () => assert.deepEqual(diffLines(a, b), expected));

  it('numbers lines correctly when the same line repeats', () => {
    // LCS keeps the three shared `<g>` lines; the diff is the two edits, not a rewrite.
    const a = lines('<g>', 'one', '<g>', 'two', '<g>');
    const b = lines('<g>', 'ONE', '<g>', 'two', '<g>', 'three');
    assert.deepEqual(diffLines(a, b), [rm(2, 'one'), add(2, 'ONE'), add(6, 'three')]);
  });

  it('diffs 2,000-line markups with scattered edits minimally and quickly', () => {
    const a = Array.from({ length: 2000 }, (_, i) => `<rect id="r${i}" width="${i % 7}"/>`);
    const b = a.map((l, i) => (i % 100 === 50 ? l.replace('/>', ' fill="red"/>') : l));
    b.splice(1000, 0, '<circle r="3"/>');
    const { ms, result: d } = cpuMs(() => diffLines(a.join('\n'), b.join('\n')));
    assert.equal(d.filter((l) => l.op === 'remove').length, 20);
    assert.equal(d.filter((l) => l.op === 'add').length, 21);
    assert.deepEqual(d.find((l) => l.text === '<circle r="3"/>'), add(1001, '<circle r="3"/>'));
    assert.ok(ms < 1000, `${Math.round(ms)} ms of CPU`);
  });

  it('is correct and minimal on random texts (Myers)', () => {
    const rnd = random(7);
    for (let t = 0; t < 300; t++) {
      const words = ['<g>', '</g>', '<circle/>', '<rect/>', 'x'];
      const text = () => Array.from({ length: Math.floor(rnd() * 12) }, () => words[Math.floor(rnd() * words.length)]);
      const a = text(), b = text();
      checkDiff(a, b, diffLines(a.join('\n'), b.join('\n')));
    }
  });

  it('is correct and minimal with thousands of edits', () => {
    const rnd = random(11);
    const a = Array.from({ length: 1200 }, (_, i) => (i % 10 ? `a${Math.floor(rnd() * 1e6)}` : `k${i}`));
    const b = Array.from({ length: 1200 }, (_, i) => (i % 10 ? `b${Math.floor(rnd() * 1e6)}` : `k${i}`));
    const d = diffLines(a.join('\n'), b.join('\n'));
    assert.ok(d.length > 2000 && d.length <= MAX_EDITS, `${d.length} edits`);
    checkDiff(a, b, d);
  });

  it(`beyond ${MAX_EDITS} edits still reports a correct (whole-middle) diff`, () => {
    const n = MAX_EDITS / 2 + 1;
    const a = Array.from({ length: n }, (_, i) => `a${i}`);
    const b = Array.from({ length: n }, (_, i) => `b${i}`);
    const d = diffLines(['same', ...a, 'end'].join('\n'), ['same', ...b, 'end'].join('\n'));
    assert.equal(d.length, 2 * n);
    assert.deepEqual(d[0], rm(2, 'a0'));
    assert.deepEqual(d[n], add(2, 'b0'));
  });
});

describe('diffTemplate', () => {
  const v1 = { templateId: 't000001', version: 1, lastUpdatedBy: 'a', lastUpdatedOn: '2026-01-01T00:00:00.000Z', name: 'Router', template: lines('<g>', '<circle r="5"/>', '</g>') };

  it('reports other fields as JSON changes and the markup as lines, ignoring stamps', () => {
    const v2 = { ...v1, version: 2, lastUpdatedBy: 'b', name: 'Router (big)', template: lines('<g>', '<circle r="8"/>', '<text>x</text>', '</g>') };
    assert.deepEqual(diffTemplate(v1, v2), {
      changes: [{ path: 'name', op: 'replace', from: 'Router', to: 'Router (big)' }],
      lines: [rm(2, '<circle r="5"/>'), add(2, '<circle r="8"/>'), add(3, '<text>x</text>')],
    });
  });

  it('finds nothing when only stamps differ', () => {
    assert.deepEqual(diffTemplate(v1, { ...v1, version: 3, change: 'revert' }), { changes: [], lines: [] });
  });
});
