// DirSyncer: one open handle per folder, and group commit that never lets a
// caller ride on a folder fsync that started before it asked.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DirSyncer } from '../../store/dir-sync.ts';
import type { FileHandleLike, FsFacade } from '../../store/durable-file.ts';
import { errno } from './fs-spy.ts';

/** A fake folder handle whose fsyncs finish only when the test says so. */
function fakeFs() {
  const log: string[] = [];
  const waiting: Array<{ finish: () => void; fail: (e: Error) => void }> = [];
  const handle: FileHandleLike = {
    write: async () => ({ bytesWritten: 0 }),
    sync: () => new Promise<void>((finish, fail) => {
      log.push('sync started');
      waiting.push({ finish, fail });
    }),
    close: async () => void log.push('close'),
  };
  const fs = { open: async () => (log.push('open'), handle) } as unknown as FsFacade;
  const settle = async (error?: Error) => {
    await new Promise((r) => setImmediate(r));
    const next = waiting.shift();
    assert.ok(next, 'no fsync is running');
    if (error) next.fail(error);
    else next.finish();
    await new Promise((r) => setImmediate(r));
  };
  return { fs, log, settle, running: () => waiting.length };
}

const state = (p: Promise<unknown>) => {
  const s = { done: false, error: undefined as unknown };
  p.then(() => (s.done = true), (e) => ((s.done = true), (s.error = e)));
  return s;
};

describe('DirSyncer', () => {
  it('makes a caller who asked during a running fsync wait for the next one, shared by all such callers', async () => {
    const f = fakeFs();
    const syncer = new DirSyncer(f.fs, '/data/maps');
    const a = state(syncer.sync());
    await new Promise((r) => setImmediate(r));
    const b = state(syncer.sync());
    const c = state(syncer.sync());
    await f.settle(); // the fsync a started
    assert.deepEqual([a.done, b.done, c.done], [true, false, false], 'b and c asked after it started');
    assert.equal(f.running(), 1, 'one more fsync covers both');
    await f.settle();
    assert.deepEqual([b.done, c.done], [true, true]);
    assert.deepEqual(f.log, ['open', 'sync started', 'sync started'], 'the handle is opened once');
    await syncer.close();
    assert.equal(f.log.at(-1), 'close');
  });

  it('passes a failed fsync to everyone waiting on it, and the next call tries again', async () => {
    const f = fakeFs();
    const syncer = new DirSyncer(f.fs, '/data/maps');
    const a = state(syncer.sync());
    await f.settle(errno('EIO'));
    assert.equal((a.error as NodeJS.ErrnoException).code, 'EIO');
    const b = state(syncer.sync());
    await f.settle();
    assert.deepEqual([b.done, b.error], [true, undefined]);
  });
});
