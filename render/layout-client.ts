// The service's side of the layout threads: ELK's layered layouts
// (layout-thread.mjs) and the straight drawings (drawing-thread.ts: stress,
// schematic, annealing), each on one thread of its own, started on the
// first logical layout and kept for the next (unref'd while idle, so it
// never keeps the process alive). Requests run on a thread one after
// another, in order; the two threads run beside each other (the layered
// drawings are prefetched while the straight one is drawn). A thread that
// fails or exits fails the requests it had; the next request starts a new
// one. A thread's heap is bounded: a layout that outgrows it ends the
// thread, not the service, and is answered 422.
// Answers are kept by the content of the request (its JSON, hashed): the
// editor sends a live logical preview after every change, and a preview of
// unchanged data then costs no layout at all. Bounded by the size of the
// requests kept, least recently used out; a failed one is not kept.
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { validationFailed } from '../errors.ts';
import type { DrawingJob } from './drawing-jobs.ts';
import type { LayoutReply, LayoutResult } from './layout-thread.mjs';

const SCRIPT = new URL('./layout-thread.mjs', import.meta.url);
const DRAWING_SCRIPT = new URL('./drawing-thread.mjs', import.meta.url);
/**
 * Heap of the layout thread (V8 old generation), in MB: well above what the
 * largest layout the service accepts needs (logical-layout.ts
 * MAX_LOGICAL_NODES and _EDGES: about 330 MB for the whole process on a
 * random graph), and a bound on what any layout can take from a small VM.
 */
const LAYOUT_HEAP_MB = 1024;
/** Heap of the drawing thread: straight drawings are for small graphs (logical-layout.ts SMALL_GRAPH). */
const DRAWING_HEAP_MB = 256;
/** Characters of request JSON whose answers are kept (the answers are about as large): some tens of MB at most. */
const LAYOUT_CACHE_CHARS = 16 * 1024 * 1024;

type Pending = { resolve: (result: unknown) => void; reject: (error: Error) => void };
type Thread = { worker: Worker; pending: Map<number, Pending> };

/** A thread of `script` answering requests of type Q with R (as layout-thread.mjs answers: `{ id, result }` or `{ id, error }`). */
function threadClient<Q, R>(script: URL, options: { heapMb: number; cacheChars?: number }) {
  const { heapMb } = options;
  let current: Thread | undefined;
  let nextId = 0;
  const kept = new LRUCache<string, Promise<R>>({ maxSize: options.cacheChars ?? LAYOUT_CACHE_CHARS });
  let computed = 0;

  const start = (): Thread => {
    // No execArgv: the parent's `--import tsx` (npm start, the tests) would be loaded again (the layout thread is plain
    // JavaScript; the drawing thread registers tsx itself).
    const worker = new Worker(script, { workerData: 'mts-layout', execArgv: [], resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    const thread: Thread = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (reply: LayoutReply) => {
      const job = thread.pending.get(reply.id);
      if (!job) return;
      thread.pending.delete(reply.id);
      if (thread.pending.size === 0) worker.unref();
      if ('result' in reply) job.resolve(reply.result);
      else job.reject(new Error(`logical layout failed: ${reply.error ?? 'no result'}`));
    });
    const stop = (error: Error) => {
      if (current === thread) current = undefined;
      for (const job of thread.pending.values()) job.reject(error);
      thread.pending.clear();
    };
    worker.on('error', (error: NodeJS.ErrnoException) => stop(error.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? validationFailed(`the logical layout needs more than the ${heapMb} MB of memory it may use; ` +
        'filter the dataset to fewer nodes and edges, or use the geographic layout')
      : new Error(`logical layout failed: the layout thread failed: ${error.message}`)));
    worker.on('exit', (code) => stop(new Error(`logical layout failed: the layout thread stopped (exit code ${code})`)));
    return thread;
  };

  const compute = (request: Q): Promise<R> => {
    const thread = (current ??= start());
    const id = nextId++;
    computed++;
    return new Promise((resolve, reject) => {
      thread.worker.postMessage({ id, request }); // first: if the request cannot be sent, nothing is left waiting
      thread.pending.set(id, { resolve: resolve as (r: unknown) => void, reject });
      thread.worker.ref(); // a layout in flight keeps the process alive, as any pending work does
    });
  };

  return {
    /** The answer to `request`: computed on the thread, or as it was for the same request before (a copy). */
    async run(request: Q): Promise<R> {
      const json = JSON.stringify(request);
      const key = createHash('sha256').update(json).digest('base64');
      let result = kept.get(key);
      if (!result) {
        result = compute(request);
        // A request larger than a quarter of the budget is not kept: one must not push out all the others.
        if (json.length <= (options.cacheChars ?? LAYOUT_CACHE_CHARS) / 4) kept.set(key, result, { size: Math.max(1, json.length) });
        result.catch(() => kept.delete(key));
      }
      // Callers may change what they get: each has its own copy.
      return structuredClone(await result);
    },
    /** How many answers this thread has computed (the others came from the cache). */
    computed: () => computed,
    /** Forgets every kept answer (benchmarks time layouts computed anew). */
    forget: () => kept.clear(),
    /** Ends the thread (the next request starts a new one). */
    async close(): Promise<void> {
      await current?.worker.terminate();
    },
  };
}

/** A layout thread of its own, for tests; the service shares one (layOut). */
export function layoutThread(options: { heapMb?: number; cacheChars?: number } = {}) {
  const client = threadClient<ElkNode, LayoutResult>(SCRIPT, { heapMb: options.heapMb ?? LAYOUT_HEAP_MB, cacheChars: options.cacheChars });
  /** ELK's layered layout of `graph`: computed on the layout thread, or as it was for the same graph before (a copy). */
  return { ...client, layOut: client.run };
}

const shared = layoutThread();
const drawings = threadClient<DrawingJob, LayoutResult | null>(DRAWING_SCRIPT, { heapMb: DRAWING_HEAP_MB });

/** ELK's layered layout of `graph`, computed on the service's layout thread. */
export const layOut = (graph: ElkNode): Promise<LayoutResult> => shared.layOut(graph);

/** A straight drawing (drawing-jobs.ts), drawn on the service's drawing thread. */
export const drawStraight = (job: DrawingJob): Promise<LayoutResult | null> => drawings.run(job);

/** How many layouts the service's layout thread has computed: a repeated graph adds none. */
export const layoutsComputed = (): number => shared.computed();

/** Forgets the layouts the service's threads keep. */
export const forgetLayouts = (): void => {
  shared.forget();
  drawings.forget();
};
