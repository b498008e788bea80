// The service's side of layout-thread.mjs: one layout thread, started on the
// first logical layout and kept for the next (unref'd while idle, so it never
// keeps the process alive). Layouts run on it one after another, in order. A
// thread that fails or exits fails the layouts it had; the next layout
// starts a new one. The thread's heap is bounded: a layout that outgrows it
// ends the thread, not the service, and is answered 422.
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { Worker } from 'node:worker_threads';
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

type Pending = { resolve: (result: LayoutResult) => void; reject: (error: Error) => void };
type LayoutThread = { worker: Worker; pending: Map<number, Pending> };

/** A layout thread of its own, for tests; the service shares one (layOut). */
export function layoutThread(options: { heapMb?: number } = {}) {
  const heapMb = options.heapMb ?? LAYOUT_HEAP_MB;
  let current: LayoutThread | undefined;
  let nextId = 0;

  const start = (): LayoutThread => {
    const worker = new Worker(SCRIPT, { workerData: 'mts-layout', resourceLimits: { maxOldGenerationSizeMb: heapMb } });
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

  return {
    /** ELK's layered layout of `graph`, computed on the layout thread. */
    layOut(graph: ElkNode): Promise<LayoutResult> {
      const thread = (current ??= start());
      const id = nextId++;
      return new Promise((resolve, reject) => {
        thread.worker.postMessage({ id, graph }); // first: if the graph cannot be sent, nothing is left waiting
        thread.pending.set(id, { resolve, reject });
        thread.worker.ref(); // a layout in flight keeps the process alive, as any pending work does
      });
    },
    /** Ends the thread (the next layout starts a new one). */
    async close(): Promise<void> {
      await current?.worker.terminate();
    },
  };
}

const shared = layoutThread();

/** ELK's layered layout of `graph`, computed on the service's layout thread. */
export const layOut = (graph: ElkNode): Promise<LayoutResult> => shared.layOut(graph);
