// The drawing thread (started by layout-client.ts through drawing-thread.mjs):
// takes one straight-drawing job at a time (drawing-jobs.ts) and answers its
// drawing, or the error's message, as the layout thread answers ELK's.
import { parentPort } from 'node:worker_threads';
import { drawingJob, type DrawingJob } from './drawing-jobs.ts';

const port = parentPort;
if (!port) throw new Error('render/drawing-thread.ts runs on a thread of its own only');
port.on('message', ({ id, request }: { id: number; request: DrawingJob }) => {
  try {
    port.postMessage({ id, result: drawingJob(request) });
  } catch (e) {
    port.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
});
