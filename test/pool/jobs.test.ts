// What a job hands over to a render thread rather than copies (pool/jobs.ts
// transfersOf): a big dataset diff's results, each only when its bytes own
// their whole buffer. A small Buffer shares Node's pool with other Buffers,
// which moving it would break on the main thread.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { transfersOf, type DatasetDiffJob } from '../../pool/jobs.ts';

const diffJob = (before: Uint8Array | null, after: Uint8Array | null): DatasetDiffJob =>
  ({ kind: 'datasetDiff', answer: 'diff', before: { name: 'a', query: null, results: before }, after: { name: 'a', query: null, results: after } });

describe('transfersOf', () => {
  const own = Buffer.alloc(64 * 1024, 1);
  const other = new Uint8Array(10);
  const pooled = Buffer.from('{"records":[],"problems":[]}');
  const cases: Array<[string, Parameters<typeof transfersOf>[0], ArrayBuffer[]]> = [
    ['both results, each owning its buffer', diffJob(own, other), [own.buffer, other.buffer]],
    ['the same buffer on both sides, once', diffJob(own, own), [own.buffer]],
    ['no results', diffJob(null, null), []],
    ['a pooled Buffer: copied, not moved', diffJob(pooled, null), []],
    ['a view of part of a buffer: copied', diffJob(own.subarray(1), null), []],
    ['a picture', { kind: 'topology', topology: { nodes: [], edges: [] } as never, options: {} }, []],
  ];
  for (const [what, job, expected] of cases) {
    it(what, () => {
      const got = transfersOf(job);
      assert.equal(got.length, expected.length);
      for (const [i, b] of expected.entries()) assert.equal(got[i], b);
    });
  }
  it('a pooled Buffer really shares its buffer (why it is copied)', () => {
    assert.ok(pooled.buffer.byteLength > pooled.byteLength);
  });
});
