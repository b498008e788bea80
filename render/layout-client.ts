// The service's side of layout-thread.mjs: one layout thread, started on the
// first logical layout and kept for the next (unref'd while idle, so it never
// keeps the process alive). Layouts run on it one after another, in order. A
// thread that fails or exits fails the layouts it had; the next layout
// starts a new one.
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { Worker } from 'node:worker_threads';
import type { LayoutReply, LayoutResult } from './layout-thread.mjs';

const SCRIPT = new URL('./layout-thread.mjs', import.meta.url);

type Pending = { resolve: (result: LayoutResult) => void; reject: (error: Error) => void };
type LayoutThread = { worker: Worker; pending: Map<number, Pending> };

let current: LayoutThread | undefined;
let nextId = 0;

function start(): LayoutThread {
  const worker = new Worker(SCRIPT, { workerData: 'mts-layout' });
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
  const stop = (why: string) => {
    if (current === thread) current = undefined;
    for (const job of thread.pending.values()) job.reject(new Error(`logical layout failed: ${why}`));
    thread.pending.clear();
  };
  worker.on('error', (error) => stop(`the layout thread failed: ${error.message}`));
  worker.on('exit', (code) => stop(`the layout thread stopped (exit code ${code})`));
  return thread;
}

/** ELK's layered layout of `graph`, computed on the layout thread. */
export function layOut(graph: ElkNode): Promise<LayoutResult> {
  const thread = (current ??= start());
  const id = nextId++;
  return new Promise((resolve, reject) => {
    thread.worker.postMessage({ id, graph }); // first: if the graph cannot be sent, nothing is left waiting
    thread.pending.set(id, { resolve, reject });
    thread.worker.ref(); // a layout in flight keeps the process alive, as any pending work does
  });
}
