// A render thread: takes one job at a time from the pool (pool/pool.ts), does
// it (pool/jobs.ts) and answers that it started, then its result, or its error as plain data (a
// ServiceError's code and detail; anything else, the renderer's own message).
// It runs below the main thread's OS priority, and tells the pool its OS
// thread ID with each start so the pool can time the job's CPU (priority.ts).
import { parentPort } from 'node:worker_threads';
import { isServiceError } from '../errors.ts';
import { runJob, type SentJob } from './jobs.ts';
import { lowerThreadPriority } from './priority.ts';

export type ThreadReply =
  | { id: number; started: true; tid?: number }
  | { id: number; result: string | Uint8Array }
  | { id: number; error: { code?: string; message: string } };

const port = parentPort;
if (!port) throw new Error('pool/thread.ts runs on a render thread only');
const tid = lowerThreadPriority();
// A first small picture loads what pictures load lazily (country outlines, the font's metrics), so no job's budget pays for it.
runJob({ job: { kind: 'map', map: { name: 'warm-up', configuration: { layers: [] } }, topologies: [], size: {} }, safe: [] });
port.on('message', ({ id, sent }: { id: number; sent: SentJob }) => {
  // The time budget counts from here: a new thread first loads the renderer's modules.
  port.postMessage({ id, started: true, tid } satisfies ThreadReply);
  let reply: ThreadReply;
  try {
    reply = { id, result: runJob(sent) };
  } catch (e) {
    reply = { id, error: isServiceError(e) ? { code: e.code, message: e.message } : { message: e instanceof Error ? e.message : String(e) } };
  }
  port.postMessage(reply, typeof reply === 'object' && 'result' in reply && reply.result instanceof Uint8Array ? [reply.result.buffer as ArrayBuffer] : []);
});
