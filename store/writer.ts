// Where the durable writes of write-thread.mjs run. The service uses writer
// threads: a small pool that grows on demand, each thread doing one write at a
// time, so a write costs one hand-off and up to POOL_SIZE fsyncs run at once
// (writes to one document never overlap: the store holds its lock). A write's
// bytes reach its thread through a scratch buffer the two share, reused from
// write to write: no allocation, and one copy, per write. Tests that record or
// fail file-system calls run the same sequence inline.
import { Worker } from 'node:worker_threads';
import { durableWriter, type SyncFs } from './write-thread.mjs';

export interface Writer {
  /** Resolves once `chunks`, in order, are `file` and the folder entry is on disk; a failure carries the errno `code`. */
  write(file: string, chunks: readonly Uint8Array[], mode: number): Promise<void>;
  /** Removes `file` durably; false when it did not exist. */
  remove(file: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The sequence on the calling thread, over `fs` (blocks the event loop: for tests that observe calls). */
export function inlineWriter(fs: SyncFs): Writer {
  const writer = durableWriter(fs);
  return {
    write: async (file, chunks, mode) => writer.write(file, Buffer.concat(chunks), mode),
    remove: async (file) => writer.remove(file),
    close: async () => writer.close(),
  };
}

/** Writes at once at most: as many as libuv's default pool would run. */
const POOL_SIZE = 4;
const THREAD_SCRIPT = new URL('./write-thread.mjs', import.meta.url);

type Job = { op: 'write'; file: string; chunks: readonly Uint8Array[]; mode: number } | { op: 'remove'; file: string };
type Reply = { result?: boolean; error?: { message: string; code?: string } };
/** Smallest scratch buffer; it grows to half again the largest write so far. */
const SCRATCH_MIN = 64 * 1024;

class WriterThread {
  private readonly worker = new Worker(THREAD_SCRIPT, { workerData: 'mts-writer' });
  private current?: { resolve: (r: boolean) => void; reject: (e: Error) => void };
  // Written here only while the thread is idle; the thread reads it only during its job.
  private scratch: Uint8Array<ArrayBufferLike> = new Uint8Array(0);

  constructor(private readonly gone: (t: WriterThread) => void) {
    this.worker.unref(); // an idle writer never keeps the process alive
    this.worker.on('message', (reply: Reply) => {
      const job = this.current;
      this.current = undefined;
      this.worker.unref();
      if (reply.error) job?.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else job?.resolve(reply.result ?? true);
    });
    const fail = (error: Error) => {
      this.gone(this);
      this.current?.reject(Object.assign(new Error(`writer thread stopped: ${error.message}`), { code: 'EIO' }));
      this.current = undefined;
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
  }

  run(job: Job): Promise<boolean> {
    const message = job.op === 'remove' ? job : this.stage(job);
    return new Promise((resolve, reject) => {
      this.current = { resolve, reject };
      this.worker.ref(); // a write in flight does keep it alive
      this.worker.postMessage(message);
    });
  }

  /** Copies the write's chunks into the scratch buffer (grown when short); the message that points at them. */
  private stage(job: Extract<Job, { op: 'write' }>) {
    let length = 0;
    for (const chunk of job.chunks) length += chunk.length;
    let grown: SharedArrayBuffer | undefined;
    if (length > this.scratch.length) {
      grown = new SharedArrayBuffer(Math.max(SCRATCH_MIN, length + (length >> 1)));
      this.scratch = new Uint8Array(grown);
    }
    let at = 0;
    for (const chunk of job.chunks) {
      this.scratch.set(chunk, at);
      at += chunk.length;
    }
    return { op: 'write', file: job.file, mode: job.mode, length, scratch: grown };
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

/** A pool of writer threads running the sequence over node:fs; threads start on first use. */
export function threadWriter(): Writer {
  const threads: WriterThread[] = [];
  const idle: WriterThread[] = [];
  const waiting: Array<() => void> = [];
  let closed = false;
  const gone = (t: WriterThread) => {
    for (const list of [threads, idle]) if (list.includes(t)) list.splice(list.indexOf(t), 1);
    waiting.shift()?.(); // a replacement may be started for whoever waits
  };

  const run = async (job: Job): Promise<boolean> => {
    if (closed) throw Object.assign(new Error('the store is closed'), { code: 'ESHUTDOWN' });
    while (idle.length === 0) {
      if (threads.length < POOL_SIZE) {
        const t = new WriterThread(gone);
        threads.push(t);
        idle.push(t);
      } else await new Promise<void>((wake) => waiting.push(wake));
    }
    const thread = idle.pop()!;
    try {
      return await thread.run(job);
    } finally {
      if (threads.includes(thread)) idle.push(thread);
      waiting.shift()?.();
    }
  };

  return {
    write: async (file, chunks, mode) => void (await run({ op: 'write', file, chunks, mode })),
    remove: (file) => run({ op: 'remove', file }),
    close: async () => {
      closed = true;
      // Ending a thread also closes the folder descriptors it kept (Worker's trackUnmanagedFds, on by default).
      await Promise.all(threads.splice(0).map((t) => t.terminate()));
      idle.length = 0;
    },
  };
}
