// The render pool (docs/api.md: Limits): pictures, PNGs and big diffs are
// drawn on a few worker threads, never on the event loop, so /healthz, sign-ins
// and the API keep answering while any picture is drawn. Each job has a time
// budget (output.renderTimeoutSeconds) and each thread a heap limit
// (output.renderMemoryMB, Node's worker resource limits): a job over either is
// answered 422 naming the limit, and its thread is ended and replaced. Jobs
// wait in a bounded queue fair between callers (fair-queue.ts); a caller may
// run at most half the threads at once, anonymous callers together all but
// one; a full queue, or a wait longer than the time budget, is 503 with
// Retry-After. Threads start when work comes and end after 20 s idle, so an
// idle service gives their memory back (each holds a heap of its own, up to
// renderMemoryMB) soon after a load ends.
// Threads run below the main thread's OS priority (priority.ts), so where the
// OS tells a thread's CPU time the budget counts that: a job the machine was
// too busy to run is given more time, up to STARVED_FACTOR times its budget,
// and then answered 503 (busy), never 422 (too big).
import { availableParallelism } from 'node:os';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { ServiceError, validationFailed, type ErrorCode } from '../errors.ts';
import { FairQueue, type Caller } from './fair-queue.ts';
import { packJob, transfersOf, type Job } from './jobs.ts';
import { threadCpuMs } from './priority.ts';
import type { ThreadReply } from './thread.ts';

export type { Caller } from './fair-queue.ts';

const SCRIPT = new URL('./thread.mjs', import.meta.url);
/** Idle time after which a thread ends. A minute kept every thread of a load (and its heap) alive for a minute after it. */
export const IDLE_MS = 20_000;
/** How long a new thread may take to load the renderer before its first job's budget starts. */
const START_MS = 60_000;
/** A job that got less CPU than its budget waits at most this many budgets in all before it is answered busy. */
const STARVED_FACTOR = 3;
/** Least wait (ms) before a starved job's CPU is looked at again. */
const RECHECK_MS = 100;
/**
 * Room on a render thread for the short-lived objects a picture is drawn with (MB: V8's young generation, three
 * of its semi-spaces). A fresh 2,000-router picture allocates far more than a thread's default young generation
 * holds between collections, so what it keeps for the length of the render was copied, promoted and collected
 * again: with 192 it was drawn in 83.3 ms against 97.0 (best of 15, the mean of five alternating rounds; each
 * round faster), where 384 gained nothing more.
 */
const YOUNG_MB = 192;

/** A render thread's heap limits: `memoryMb` for what outlives the moment (output.renderMemoryMB), YOUNG_MB besides. */
export const threadLimits = (memoryMb: number): ResourceLimits => ({ maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: YOUNG_MB });

export interface PoolOptions {
  /** Threads; 0: the machine's cores, at least 2 and at most 4. */
  threads: number;
  timeoutSeconds: number;
  memoryMb: number;
  /** Jobs waiting, all callers together. */
  maxQueued: number;
  /** The thread's entry (tests give one of their own). */
  script?: URL;
  /** Told the queue's length when it changes, and each job refused (busy: 503; budget: 422); the metrics' (server.ts). */
  observe?: { queued(length: number): void; rejected(reason: 'busy' | 'budget'): void };
  /** Told each time a thread has ended (idle or over budget) and its memory is let go (server.ts: pool/memory.ts). */
  onThreadEnd?: () => void;
}

type Result = string | Uint8Array;

interface Task {
  job: Job;
  caller: Caller;
  resolve: (r: Result) => void;
  reject: (e: Error) => void;
  waitTimer?: NodeJS.Timeout;
}

interface Thread {
  worker: Worker;
  /** `startedAt` (ms, performance.now) and `cpuAtStart` (the thread's CPU ms) once the thread began the job. */
  task?: Task & { id: number; timer: NodeJS.Timeout; startedAt?: number; cpuAtStart?: number };
  /** The OS thread ID, when the thread tells it (Linux). */
  tid?: number;
  idleTimer?: NodeJS.Timeout;
}

const busy = (detail: string, retryAfter: number) =>
  new ServiceError('resource_unavailable', detail, { headers: { 'Retry-After': String(retryAfter) } });

export class RenderPool {
  private readonly size: number;
  private readonly threads: Thread[] = [];
  /** Threads told to stop that have not stopped yet (one stuck in a native render): they still hold a core. */
  private stopping = 0;
  private readonly queue: FairQueue<Task>;
  private readonly running = new Map<string, number>();
  private anonymousRunning = 0;
  private nextId = 0;
  /** Jobs done and stopped, for tests and the benchmark. */
  readonly counts = { done: 0, overTime: 0, overMemory: 0, refused: 0 };

  constructor(private readonly options: PoolOptions) {
    this.size = options.threads > 0 ? options.threads : Math.min(4, Math.max(2, availableParallelism()));
    this.queue = new FairQueue({ total: options.maxQueued, perCaller: Math.max(2, Math.ceil(options.maxQueued / 4)) });
  }

  private get perCaller() { return Math.max(1, Math.floor(this.size / 2)); }
  private get anonymousMax() { return Math.max(1, this.size - 1); }

  /**
   * Throws the 503 that `run` would answer `caller` now (no thread for it and
   * no room in the queue), so a route refuses it before reading anything for
   * its picture; the flood that fills the queue is answered at the cost of a
   * cache look-up.
   */
  admit(caller: Caller): void {
    if (this.canStartNow(caller) || this.queue.hasRoom(caller)) return;
    this.refusedBusy();
    throw this.queueFull(caller);
  }

  /** Does `job` on a render thread for `caller`: its result, or a 422 (over budget) or 503 (busy). */
  run(job: Job, caller: Caller): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const task: Task = { job, caller, resolve, reject };
      // Nothing waiting and a thread to spare: it starts now, taking no room in the queue.
      const free = this.queue.size === 0 && this.mayStart(caller) ? this.freeThread() : undefined;
      if (free) {
        this.assign(free, task);
        return;
      }
      if (!this.queue.push(caller, task)) {
        this.refusedBusy();
        reject(this.queueFull(caller));
        return;
      }
      // A job that cannot start within the time budget would be answered too late to matter; while the
      // threads it waits for are starved of CPU (their jobs get more time), it waits a budget longer than they may.
      const budgetMs = this.options.timeoutSeconds * 1000;
      const queuedAt = performance.now();
      const giveUp = () => {
        if (performance.now() - queuedAt < (STARVED_FACTOR + 1) * budgetMs && this.threads.some((t) => this.starved(t))) {
          task.waitTimer = setTimeout(giveUp, budgetMs / 2);
          task.waitTimer.unref();
          return;
        }
        if (!this.queue.remove(caller, task)) return;
        this.queueChanged();
        this.refusedBusy();
        reject(busy(`pictures are being drawn for others: this one waited ${Math.round((performance.now() - queuedAt) / 1000)} s ` +
          '(setting output.renderTimeoutSeconds) without a render thread; try again shortly', this.retryAfter()));
      };
      task.waitTimer = setTimeout(giveUp, budgetMs);
      task.waitTimer.unref();
      this.queueChanged();
      this.dispatch();
    });
  }

  private queueFull(caller: Caller): ServiceError {
    return busy(`pictures are being drawn for others: the render queue is full${caller.signedIn ? '' : ' for this address'}; try again shortly`, this.retryAfter());
  }

  /** Whether a job of `caller` would start at once: nothing waiting, a share left, and a thread idle or room for one. */
  private canStartNow(caller: Caller): boolean {
    return this.queue.size === 0 && this.mayStart(caller) &&
      (this.threads.some((t) => !t.task) || this.threads.length + this.stopping < this.size);
  }

  /** A job refused for want of a thread (503), counted. */
  private refusedBusy(): void {
    this.counts.refused++;
    this.options.observe?.rejected('busy');
  }

  private queueChanged(): void {
    this.options.observe?.queued(this.queue.size);
  }

  /** Seconds until a thread is likely free: the time budget, shared by the threads. */
  private retryAfter(): number {
    return Math.max(1, Math.ceil(this.options.timeoutSeconds * (1 + this.queue.size) / this.size));
  }

  private mayStart = (caller: Caller) =>
    (this.running.get(caller.key) ?? 0) < this.perCaller && (caller.signedIn || this.anonymousRunning < this.anonymousMax);

  /** An idle thread, or a new one when the pool has room; undefined when every thread is busy. */
  private freeThread(): Thread | undefined {
    const idle = this.threads.find((t) => !t.task);
    if (idle) return idle;
    return this.threads.length + this.stopping < this.size ? this.start() : undefined;
  }

  private dispatch(): void {
    for (;;) {
      if (!this.threads.some((t) => !t.task) && this.threads.length + this.stopping >= this.size) return;
      const next = this.queue.take(this.mayStart);
      if (!next) return;
      this.queueChanged();
      this.assign(this.freeThread() as Thread, next.item);
    }
  }

  private start(): Thread {
    const worker = new Worker(this.options.script ?? SCRIPT, { resourceLimits: threadLimits(this.options.memoryMb), stdout: false,
      // No execArgv: the parent's `--import tsx` (npm start, the tests) would register tsx a second time; thread.mjs does it.
      execArgv: [] });
    const thread: Thread = { worker };
    this.threads.push(thread);
    worker.on('message', (reply: ThreadReply) => {
      const task = thread.task;
      if (!task || task.id !== reply.id) return;
      if ('started' in reply) {
        thread.tid = reply.tid;
        task.startedAt = performance.now();
        task.cpuAtStart = reply.tid === undefined ? undefined : threadCpuMs(reply.tid);
        this.checkBudgetIn(thread, this.options.timeoutSeconds * 1000);
        return;
      }
      this.finish(thread);
      this.counts.done++;
      if ('result' in reply) task.resolve(reply.result);
      else task.reject(reply.error.code ? new ServiceError(reply.error.code as ErrorCode, reply.error.message)
        : validationFailed(`the picture cannot be drawn: ${reply.error.message}`));
      this.idle(thread);
      this.dispatch();
    });
    worker.on('error', (error: NodeJS.ErrnoException) => {
      const task = thread.task;
      if (!task) return;
      this.finish(thread);
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        this.counts.overMemory++;
        this.options.observe?.rejected('budget');
        task.reject(validationFailed(`the picture needs more than the ${this.options.memoryMb} MB a render may use (setting output.renderMemoryMB); ` +
          'draw fewer nodes (filter the dataset) or use a smaller template'));
      } else task.reject(busy(`the render thread failed (${error.message}); try again`, 1));
    });
    worker.on('exit', () => {
      const task = thread.task;
      // Ended on its own (out of memory): its memory is let go too; one the pool stopped is told in stop().
      if (this.remove(thread)) this.options.onThreadEnd?.();
      if (task) {
        this.finish(thread);
        task.reject(busy('the render thread stopped; try again', 1));
      }
      this.dispatch();
    });
    return thread;
  }

  private assign(thread: Thread, task: Task): void {
    clearTimeout(task.waitTimer);
    clearTimeout(thread.idleTimer);
    const id = this.nextId++;
    const timer = setTimeout(() => this.overTime(thread), START_MS);
    timer.unref();
    thread.task = { ...task, id, timer };
    this.running.set(task.caller.key, (this.running.get(task.caller.key) ?? 0) + 1);
    if (!task.caller.signedIn) this.anonymousRunning++;
    thread.worker.ref();
    try {
      thread.worker.postMessage({ id, sent: packJob(task.job) }, transfersOf(task.job));
    } catch (e) {
      this.finish(thread);
      task.reject(validationFailed(`the picture cannot be drawn: ${(e as Error).message}`));
    }
  }

  /** Ends the bookkeeping of the thread's task (not the task's promise). */
  private finish(thread: Thread): void {
    const task = thread.task;
    if (!task) return;
    clearTimeout(task.timer);
    thread.task = undefined;
    const n = (this.running.get(task.caller.key) ?? 1) - 1;
    if (n > 0) this.running.set(task.caller.key, n);
    else this.running.delete(task.caller.key);
    if (!task.caller.signedIn) this.anonymousRunning--;
    thread.worker.unref();
  }

  private checkBudgetIn(thread: Thread, ms: number): void {
    const task = thread.task;
    if (!task) return;
    clearTimeout(task.timer);
    task.timer = setTimeout(() => this.checkBudget(thread), ms);
    task.timer.unref();
  }

  /** Whether `thread`'s job has had less than half the CPU the clock gave it (the machine is busy with other work). */
  private starved(thread: Thread): boolean {
    const task = thread.task;
    if (task?.cpuAtStart === undefined || task.startedAt === undefined || thread.tid === undefined) return false;
    const cpu = threadCpuMs(thread.tid);
    return cpu !== undefined && cpu - task.cpuAtStart < (performance.now() - task.startedAt) / 2;
  }

  /** At the end of the budget by the clock: over it (422), or starved of CPU (wait more, then 503). */
  private checkBudget(thread: Thread): void {
    const task = thread.task;
    if (!task) return;
    const budgetMs = this.options.timeoutSeconds * 1000;
    const cpu = task.cpuAtStart === undefined || thread.tid === undefined ? undefined : threadCpuMs(thread.tid);
    const used = cpu === undefined ? budgetMs : cpu - (task.cpuAtStart as number);
    // Nine tenths of it in CPU count as the whole budget: a busy thread also waits a little (page faults, its collector's helpers).
    if (used >= budgetMs * 0.9) {
      this.overTime(thread);
      return;
    }
    if (performance.now() - (task.startedAt as number) < STARVED_FACTOR * budgetMs) {
      this.checkBudgetIn(thread, Math.max(RECHECK_MS, budgetMs - used));
      return;
    }
    this.finish(thread);
    this.refusedBusy();
    task.reject(busy(`the service is too busy to draw this picture now: it had ${(used / 1000).toFixed(1)} s of CPU in ` +
      `${STARVED_FACTOR * this.options.timeoutSeconds} s (setting output.renderTimeoutSeconds); try again shortly`, this.retryAfter()));
    this.stop(thread);
    this.dispatch(); // the jobs that waited for it start now, on a new thread
  }

  private overTime(thread: Thread): void {
    const task = thread.task;
    if (!task) return;
    this.finish(thread);
    this.counts.overTime++;
    this.options.observe?.rejected('budget');
    task.reject(validationFailed(`the picture takes more than the ${this.options.timeoutSeconds} s a render may take (setting output.renderTimeoutSeconds); ` +
      'draw fewer nodes (filter the dataset), a smaller size, or a simpler template'));
    this.stop(thread);
  }

  /** Ends a thread; it counts against the pool's size until it has stopped. */
  private stop(thread: Thread): void {
    if (!this.remove(thread)) return;
    this.stopping++;
    thread.worker.terminate().finally(() => {
      this.stopping--;
      this.options.onThreadEnd?.();
      this.dispatch();
    });
  }

  private remove(thread: Thread): boolean {
    const at = this.threads.indexOf(thread);
    if (at < 0) return false;
    this.threads.splice(at, 1);
    clearTimeout(thread.idleTimer);
    return true;
  }

  /** A thread with nothing to do ends after a while (its heap given back). */
  private idle(thread: Thread): void {
    if (thread.task) return;
    clearTimeout(thread.idleTimer);
    thread.idleTimer = setTimeout(() => { if (!thread.task) this.stop(thread); }, IDLE_MS);
    thread.idleTimer.unref();
  }

  /** Ends every thread (tests, shutdown). */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
