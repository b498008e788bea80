// Dataset diffs and summaries of big results (resources/changes.ts): with an
// offload (the service's render pool; here the render thread's own job
// function, run in-process), versions whose stored results pass 1 MiB are
// sent there as the store's bytes, and the answers are those worked out here;
// small ones never leave. A busy pool refuses the diff but never the summary
// of a write; results that are not stored results are named as on the loop.
import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EdgeRecord } from '../../datasources/types.ts';
import { isServiceError, ServiceError } from '../../errors.ts';
import { runJob, type DatasetDiffJob } from '../../pool/jobs.ts';
import { describeChange, diffOf } from '../../resources/changes.ts';
import { openFileStore } from '../../store/file.ts';
import type { Store } from '../../store/types.ts';

const query = { endpoint: 'spreadsheet?sheet_id=s&sheet_name=s', node_deduplication_field: null, filters: [] };
const records = (n: number, capacity: (i: number) => number): EdgeRecord[] => Array.from({ length: n }, (_, i) => ({
  id: String(i), name: `c-${i}`, source: `a-${i}`, destination: `b-${i % 97}`, capacity: capacity(i),
  endpoints: [{ name: `a-${i}`, latitude: i % 80, longitude: i % 170 }, { name: `b-${i % 97}`, latitude: -(i % 80), longitude: -(i % 170) }],
}));

let dir: string;
let store: Store;
/** Versions as the store keeps them: two big (together over 1 MiB of results), two small. */
const v: Record<'big1' | 'big2' | 'small1' | 'small2', { name: string; query: unknown; resultsKey: string }> = {} as never;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mts-changes-'));
  store = await openFileStore(dir, { syncFs: nodeFs });
  const version = async (name: string, rs: EdgeRecord[]) => ({ name, query, resultsKey: await store.put({ records: rs, problems: [] }) });
  v.big1 = await version('big', records(4000, () => 10));
  v.big2 = await version('big', records(4001, (i) => (i === 3 ? 20 : 10)));
  v.small1 = await version('small', records(30, () => 10));
  v.small2 = await version('small', records(30, (i) => (i === 3 ? 20 : 10)));
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** An offload that runs the render thread's job function here, keeping each job it was given. */
function threadHere() {
  const jobs: DatasetDiffJob[] = [];
  const offload = async (job: DatasetDiffJob) => {
    jobs.push(job);
    return runJob({ job, safe: [] });
  };
  return { jobs, offload };
}

describe('diffOf datasets with an offload', () => {
  it('sends big results as the stored bytes and answers the JSON bytes of the diff worked out here', async () => {
    const { jobs, offload } = threadHere();
    const answer = await diffOf('datasets', store, v.big1, v.big2, offload);
    assert.ok(answer instanceof Uint8Array);
    assert.equal(Buffer.from(answer).toString('utf8'), JSON.stringify(await diffOf('datasets', store, v.big1, v.big2)));
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0].answer, 'diff');
    assert.deepEqual(Buffer.from(jobs[0].before.results as Uint8Array), Buffer.from(await store.blobBytes(v.big1.resultsKey) as Uint8Array));
    assert.deepEqual([jobs[0].before.name, jobs[0].after.query], ['big', query]);
  });

  it('diffs small results here, without the offload', async () => {
    const { jobs, offload } = threadHere();
    const answer = await diffOf('datasets', store, v.small1, v.small2, offload);
    assert.deepEqual(answer, await diffOf('datasets', store, v.small1, v.small2));
    assert.equal(jobs.length, 0);
  });

  it('answers the offload\'s refusal (a busy pool: 503)', async () => {
    const busy = async () => { throw new ServiceError('resource_unavailable', 'the render queue is full'); };
    await assert.rejects(diffOf('datasets', store, v.big1, v.big2, busy), /the render queue is full/);
  });
});

describe('describeChange of datasets with an offload', () => {
  it('works out a big change\'s summary there, the same as here', async () => {
    const { jobs, offload } = threadHere();
    const summary = await describeChange('datasets', store, v.big1, v.big2, offload);
    assert.equal(summary, await describeChange('datasets', store, v.big1, v.big2));
    assert.equal(summary, '1 node added, 1 edge added, 1 edge changed');
    assert.deepEqual(jobs.map((j) => j.answer), ['summary']);
  });

  it('works it out here when the offload refuses: a write is never refused for its summary', async () => {
    const busy = async () => { throw new ServiceError('resource_unavailable', 'the render queue is full'); };
    assert.equal(await describeChange('datasets', store, v.big1, v.big2, busy), '1 node added, 1 edge added, 1 edge changed');
  });
});

describe('big stored results that are not stored results', () => {
  it('are refused as on the loop: 503 naming the results file', async () => {
    const broken = { name: 'broken', query, resultsKey: 'f'.repeat(64) };
    await writeFile(path.join(dir, 'results', `${broken.resultsKey}.json`), JSON.stringify({ records: 'none', problems: [], pad: 'x'.repeat(1_200_000) }));
    await store.close();
    store = await openFileStore(dir, { syncFs: nodeFs }); // the store learns of files at open
    const { jobs, offload } = threadHere();
    for (const work of [() => diffOf('datasets', store, v.big1, broken, offload), () => describeChange('datasets', store, v.big1, broken, offload)]) {
      await assert.rejects(work(), (e) => isServiceError(e) && e.code === 'resource_unavailable' && e.message.includes(`results/${broken.resultsKey}.json`));
    }
    assert.equal(jobs.length, 2, 'the thread was asked, and its refusal read again here');
  });
});
