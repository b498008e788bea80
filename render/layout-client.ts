// The service's side of layout-thread.mjs: one layout thread, started on the
// first logical layout and kept for the next (unref'd while idle, so it never
// keeps the process alive). Layouts run on it one after another, in order. A
// thread that fails or exits fails the layouts it had; the next layout
// starts a new one. The thread's heap is bounded: a layout that outgrows it
// ends the thread, not the service, and is answered 422.
// Layouts are kept by the content of the graph they were asked for (its JSON,
// hashed): the editor sends a live logical preview after every change, and a
// preview of unchanged data then costs no layout at all. Bounded by the size
// of the graphs kept, least recently used out; a failed layout is not kept.
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { validationFailed } from '../errors.ts';
import type { LayoutReply, LayoutResult } from './layout-thread.mjs';

const SCRIPT = new URL('./layout-thread.mjs', import.meta.url);
/**
 * Heap of the layout thread (V8 old generation), in MB: well above what the
 * largest layout the service accepts needs (logical-layout.ts
 * MAX_LOGICAL_NODES and _EDGES: about 330 MB for the whole process on a
 * random graph), and a bound on what any layout can take from a small VM.
 */
const LAYOUT_HEAP_MB = 1024;
/** Characters of graph JSON whose layouts are kept (the results are about as large): some tens of MB at most. */
const LAYOUT_CACHE_CHARS = 16 * 1024 * 1024;

type Pending = { resolve: (result: LayoutResult) => void; reject: (error: Error) => void };
type LayoutThread = { worker: Worker; pending: Map<number, Pending> };

/** A layout thread of its own, for tests; the service shares one (layOut). */
export function layoutThread(options: { heapMb?: number; cacheChars?: number } = {}) {
  const heapMb = options.heapMb ?? LAYOUT_HEAP_MB;
  let current: LayoutThread | undefined;
  let nextId = 0;
  const kept = new LRUCache<string, Promise<LayoutResult>>({ maxSize: options.cacheChars ?? LAYOUT_CACHE_CHARS });
  let computed = 0;

  const start = (): LayoutThread => {
    // No execArgv: the thread is plain JavaScript, and the parent's `--import tsx` (npm start, the tests) cost it ~0.1 s of CPU to load.
    const worker = new Worker(SCRIPT, { workerData: 'mts-layout', execArgv: [], resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    const thread: LayoutThread = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (reply: LayoutReply) => {
      const job = thread.pending.get(reply.id);
      if (!job) return;
      thread.pending.delete(reply.id);
      if (thread.pending.size === 0) worker.unref();
      if (reply.result) job.resolve(reply.result);
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

  const compute = (graph: ElkNode): Promise<LayoutResult> => {
    const thread = (current ??= start());
    const id = nextId++;
    computed++;
    return new Promise((resolve, reject) => {
      thread.worker.postMessage({ id, graph }); // first: if the graph cannot be sent, nothing is left waiting
      thread.pending.set(id, { resolve, reject });
      thread.worker.ref(); // a layout in flight keeps the process alive, as any pending work does
    });
  };

  return {
    /** ELK's layered layout of `graph`: computed on the layout thread, or as it was for the same graph before (a copy). */
    async layOut(graph: ElkNode): Promise<LayoutResult> {
      const json = JSON.stringify(graph);
      const key = createHash('sha256').update(json).digest('base64');
      let result = kept.get(key);
      if (!result) {
        result = compute(graph);
        // A graph larger than a quarter of the budget is not kept: one must not push out all the others.
        if (json.length <= (options.cacheChars ?? LAYOUT_CACHE_CHARS) / 4) kept.set(key, result, { size: Math.max(1, json.length) });
        result.catch(() => kept.delete(key));
      }
      // Callers may change what they get: each has its own copy.
      return structuredClone(await result);
    },
    /** How many layouts this thread has computed (the others came from the cache). */
    computed: () => computed,
    /** Forgets every kept layout (benchmarks time layouts computed anew). */
    forget: () => kept.clear(),
    /** Ends the thread (the next layout starts a new one). */
    async close(): Promise<void> {
      await current?.worker.terminate();
    },
  };
}

const shared = layoutThread();

/** ELK's layered layout of `graph`, computed on the service's layout thread. */
export const layOut = (graph: ElkNode): Promise<LayoutResult> => shared.layOut(graph);

/** How many layouts the service's layout thread has computed: a repeated graph adds none. */
export const layoutsComputed = (): number => shared.computed();

/** Forgets the layouts the service's layout thread keeps. */
export const forgetLayouts = (): void => shared.forget();
