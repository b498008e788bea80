// Where the durable writes of write-thread.mjs run. The service uses writer
// threads: a small pool that grows on demand, each thread doing one job at a
// time, so up to POOL_SIZE fsyncs run at once. Writes that arrive while every
// thread is busy wait in one queue; a thread that comes free takes its share
// of them as one group, so one hand-off and one folder fsync serve several
// writes (writes to one document never overlap: the store holds its lock). A
// job's bytes reach its thread in a scratch buffer that is transferred there
// with the job and back with the reply, reused from job to job: no allocation,
// and one copy, per write. (A SharedArrayBuffer would need no transfer, but
// copying into shared memory is some thirty times slower than memcpy, as V8
// copies it with relaxed atomics.) Tests that record or fail file-system
// calls run the same sequence inline.
import { Worker } from 'node:worker_threads';
import { durableWriter, type SyncFs } from './write-thread.mjs';

export interface Writer {
  /**
   * Resolves, with the identity of the file written (write-thread.mjs
   * identityOf), once `chunks`, in order, are `file` and the folder entry is
   * on disk; a failure carries the errno `code`. With `expect`, the write is
   * refused (code ECHANGED) when the file on disk no longer has that identity.
   */
  write(file: string, chunks: readonly Uint8Array[], mode: number, expect?: string): Promise<string>;
  /** Adds `chunks`, in order, at the end of `file` (made when absent) and resolves once they are on disk. */
  append(file: string, chunks: readonly Uint8Array[], mode: number): Promise<void>;
  /** Removes `file` durably; false when it did not exist. `expect` as for write. */
  remove(file: string, expect?: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The sequence on the calling thread, over `fs` (blocks the event loop: for tests that observe calls). */
export function inlineWriter(fs: SyncFs): Writer {
  const writer = durableWriter(fs);
  return {
    write: async (file, chunks, mode, expect) => writer.write(file, Buffer.concat(chunks), mode, expect),
    append: async (file, chunks, mode) => writer.append(file, Buffer.concat(chunks), mode),
    remove: async (file, expect) => writer.remove(file, expect),
    close: async () => writer.close(),
  };
}

/** Writes at once at most: as many as libuv's default pool would run. */
const POOL_SIZE = 4;
const THREAD_SCRIPT = new URL('./write-thread.mjs', import.meta.url);

type Write = { file: string; chunks: readonly Uint8Array[]; mode: number; expect?: string };
export type Job = ({ op: 'write' } & Write) | { op: 'append'; file: string; chunks: readonly Uint8Array[]; mode: number }
  | { op: 'remove'; file: string; expect?: string };
type Failure = { message: string; code?: string };
/** A job's outcome: one result per write of the group (its file's identity) or the removal's, or one failure for all. */
type Reply = { results?: Array<{ result?: string | boolean; error?: Failure }>; error?: Failure; buffer?: ArrayBuffer };
/** A job in the queue or on a thread, with its caller's promise. */
type Waiting = Job & { resolve: (result: string | boolean) => void; reject: (error: Error) => void };
/** Writes one thread takes at most as one group. */
const MAX_GROUP = 8;
/** Bytes a group reaches at most, unless its first write alone is larger: the scratch buffer is sized by groups. */
const GROUP_BYTES = 1024 * 1024;
/** Smallest scratch buffer; it grows to half again the largest group so far. */
const SCRATCH_MIN = 64 * 1024;

/**
 * How many jobs at the head of a non-empty queue the next free thread takes:
 * a removal or an append alone, or the first writes, to distinct files, up to an even
 * share of the queue among the threads (so fsyncs still run side by side
 * while each folder fsync serves a group), MAX_GROUP at most, and
 * GROUP_BYTES together unless the first write alone is larger.
 */
export function jobLength(queue: readonly Job[], threads = POOL_SIZE): number {
  if (queue[0].op !== 'write') return 1;
  const share = Math.min(MAX_GROUP, Math.ceil(queue.length / threads));
  const files = new Set<string>();
  let bytes = 0;
  let n = 0;
  for (; n < share; n++) { // share <= queue.length
    const job = queue[n];
    if (job.op !== 'write' || files.has(job.file)) break;
    const size = job.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    if (n > 0 && bytes + size > GROUP_BYTES) break;
    files.add(job.file);
    bytes += size;
  }
  return n;
}

const failed = (f: Failure) => Object.assign(new Error(f.message), { code: f.code });
const closedError = () => Object.assign(new Error('the store is closed'), { code: 'ESHUTDOWN' });

class WriterThread {
  // No execArgv: a worker started from a file would run the parent's `--import tsx` (npm start, the tests).
  private readonly worker = new Worker(THREAD_SCRIPT, { workerData: 'mts-writer', execArgv: [] });
  private current: Waiting[] = [];
  // Here while the thread is idle; with the thread (and undefined here) during a write.
  private scratch?: ArrayBuffer;

  /** `free` is called after each job, `gone` once if the thread stops. */
  constructor(private readonly free: (t: WriterThread) => void, private readonly gone: (t: WriterThread) => void) {
    this.worker.unref(); // an idle writer never keeps the process alive
    this.worker.on('message', (reply: Reply) => {
      const jobs = this.current;
      this.current = [];
      this.worker.unref();
      if (reply.buffer) this.scratch = reply.buffer;
      jobs.forEach((job, i) => {
        const error = reply.error ?? reply.results?.[i]?.error;
        if (error) job.reject(failed(error));
        else job.resolve(reply.results![i].result!);
      });
      this.free(this);
    });
    const stop = (error: Error) => {
      this.gone(this);
      for (const job of this.current) job.reject(Object.assign(new Error(`writer thread stopped: ${error.message}`), { code: 'EIO' }));
      this.current = [];
    };
    this.worker.on('error', stop);
    this.worker.on('exit', (code) => stop(new Error(`exit code ${code}`)));
  }

  /** Starts a job: one removal or append, or a group of writes to distinct files. */
  run(jobs: Waiting[]): void {
    let message;
    try {
      const [first] = jobs;
      message = first.op === 'remove' ? { op: first.op, file: first.file, expect: first.expect }
        : first.op === 'append' ? { op: first.op, file: first.file, mode: first.mode, bytes: Buffer.concat(first.chunks) }
          : this.stage(jobs as Write[]);
    } catch (error) {
      for (const job of jobs) job.reject(error as Error);
      queueMicrotask(() => this.free(this)); // not from inside the dispatch that called us
      return;
    }
    this.current = jobs;
    this.worker.ref(); // a write in flight does keep it alive
    if (message.op !== 'write') this.worker.postMessage(message);
    else {
      this.worker.postMessage(message, [message.buffer]);
      this.scratch = undefined;
    }
  }

  /** Copies the writes' chunks, one write after another, into the scratch buffer (grown when short); the message that carries them. */
  private stage(writes: Write[]) {
    let total = 0;
    for (const { chunks } of writes) for (const chunk of chunks) total += chunk.length;
    if (!this.scratch || total > this.scratch.byteLength) this.scratch = new ArrayBuffer(Math.max(SCRATCH_MIN, total + (total >> 1)));
    const scratch = new Uint8Array(this.scratch);
    let at = 0;
    const placed = writes.map(({ file, chunks, mode, expect }) => {
      const start = at;
      for (const chunk of chunks) {
        scratch.set(chunk, at);
        at += chunk.length;
      }
      return { file, mode, expect, length: at - start };
    });
    return { op: 'write' as const, writes: placed, buffer: this.scratch };
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

/** A pool of writer threads running the sequence over node:fs; threads start on first use. */
export function threadWriter(): Writer {
  const threads: WriterThread[] = [];
  const idle: WriterThread[] = [];
  const queue: Waiting[] = [];
  let closed = false;

  const dispatch = () => {
    while (queue.length > 0 && !closed) {
      let thread = idle.pop();
      if (!thread && threads.length < POOL_SIZE) threads.push((thread = new WriterThread(free, gone)));
      if (!thread) return;
      thread.run(queue.splice(0, jobLength(queue)));
    }
  };
  const free = (t: WriterThread) => {
    if (threads.includes(t)) idle.push(t);
    dispatch();
  };
  const gone = (t: WriterThread) => {
    for (const list of [threads, idle]) if (list.includes(t)) list.splice(list.indexOf(t), 1);
    dispatch(); // a replacement may be started for whoever waits
  };

  const run = (job: Job) => new Promise<string | boolean>((resolve, reject) => {
    if (closed) throw closedError();
    queue.push({ ...job, resolve, reject });
    dispatch();
  });

  return {
    write: async (file, chunks, mode, expect) => (await run({ op: 'write', file, chunks, mode, expect })) as string,
    append: async (file, chunks, mode) => void (await run({ op: 'append', file, chunks, mode })),
    remove: async (file, expect) => (await run({ op: 'remove', file, expect })) as boolean,
    close: async () => {
      closed = true;
      for (const { reject } of queue.splice(0)) reject(closedError());
      // Ending a thread also closes the folder descriptors it kept (Worker's trackUnmanagedFds, on by default).
      await Promise.all(threads.splice(0).map((t) => t.terminate()));
      idle.length = 0;
    },
  };
}
