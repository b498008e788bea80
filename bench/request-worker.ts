// A load generator for write benchmarks, run in a worker thread so the client
// does not share the event loop of the server it measures, as autocannon does
// for the read benchmarks. autocannon cannot give each connection its own
// sequence of URLs and bodies; this can: each lane is one keep-alive
// connection sending its requests one after another, lanes run in parallel.
// Like autocannon it writes requests prepared before the clock starts and
// reads just enough of each response to know its status and its end, so the
// figure is the server's, not node:http's client. Answers the elapsed
// milliseconds (and, asked to repeat for a time, each request's), or the
// first failure.
import net from 'node:net';
import { parentPort, Worker } from 'node:worker_threads';
import { responseEnd } from './http-response.ts';

export type Call = { method: string; path: string; body: string };
/** `forMs`: each lane sends its calls over and over until then, and every request's time is answered (latencies). */
export type Job = { origin: string; headers: Record<string, string>; lanes: Call[][]; forMs?: number };
type Done = { ms: number; latencies?: number[] };

/** One keep-alive connection; `send` resolves when the whole response is in. */
function connect(port: number, host: string) {
  const socket = net.connect({ port, host, noDelay: true });
  let received: Buffer = Buffer.alloc(0);
  let waiting: { resolve: () => void; reject: (e: Error) => void; what: string } | undefined;
  const fail = (e: Error) => {
    waiting?.reject(e);
    waiting = undefined;
  };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('connection closed by the server')));
  socket.on('data', (data: Buffer) => {
    received = received.length ? Buffer.concat([received, data]) : data;
    try {
      const done = responseEnd(received);
      if (!done || !waiting) return;
      const body = received.subarray(done.end - Math.min(200, done.end), done.end).toString();
      received = received.subarray(done.end);
      const job = waiting;
      waiting = undefined;
      if (done.status < 300) job.resolve();
      else job.reject(new Error(`${job.what}: ${done.status} ${body}`));
    } catch (e) {
      fail(e as Error);
    }
  });
  return {
    ready: new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject)),
    send: (request: Buffer, what: string) => new Promise<void>((resolve, reject) => {
      waiting = { resolve, reject, what };
      socket.write(request);
    }),
    close: () => socket.destroy(),
  };
}

async function run(job: Job): Promise<Done> {
  const { hostname, port, host } = new URL(job.origin);
  const fixed = Object.entries({ ...job.headers, host, 'content-type': 'application/json' })
    .map(([name, value]) => `${name}: ${value}\r\n`).join('');
  const lanes = job.lanes.map((lane) => lane.map((call) => ({
    what: `${call.method} ${call.path}`,
    bytes: Buffer.from(`${call.method} ${call.path} HTTP/1.1\r\n${fixed}content-length: ${Buffer.byteLength(call.body)}\r\n\r\n${call.body}`),
  })));
  const connections = lanes.map(() => connect(Number(port), hostname));
  try {
    await Promise.all(connections.map((c) => c.ready));
    const t0 = performance.now();
    if (job.forMs !== undefined) {
      // Timed one by one with performance.now(): microseconds, where autocannon rounds to whole milliseconds.
      const latencies: number[] = [];
      const until = t0 + job.forMs;
      await Promise.all(lanes.map(async (lane, i) => {
        for (let n = 0; performance.now() < until; n++) {
          const request = lane[n % lane.length];
          const start = performance.now();
          await connections[i].send(request.bytes, request.what);
          latencies.push(performance.now() - start);
        }
      }));
      return { ms: performance.now() - t0, latencies };
    }
    await Promise.all(lanes.map(async (lane, i) => {
      for (const request of lane) await connections[i].send(request.bytes, request.what);
    }));
    return { ms: performance.now() - t0 };
  } finally {
    for (const c of connections) c.close();
  }
}

parentPort?.on('message', (job: Job) => {
  run(job).then((done) => parentPort!.postMessage(done), (e: Error) => parentPort!.postMessage({ error: e.message }));
});

/** A client worker; `send(job)` resolves with the elapsed ms of the job's requests. */
export function requestWorker() {
  // A worker does not inherit the TypeScript loader of the thread that starts
  // it (Node 20), so it registers tsx's before importing this module.
  const self = JSON.stringify(import.meta.url);
  const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${self}); })`, { eval: true });
  const post = (job: Job) => new Promise<Done>((resolve, reject) => {
    const failed = (e: Error) => reject(e);
    worker.once('error', failed); // the worker itself failed (it could not load, for one)
    worker.once('message', (m: Done & { error?: string }) => {
      worker.off('error', failed);
      if (m.error) reject(new Error(m.error));
      else resolve(m);
    });
    worker.postMessage(job);
  });
  return {
    send: async (job: Job) => (await post(job)).ms,
    /** Each request's milliseconds, of lanes repeating their calls for `forMs`. */
    latencies: async (job: Job & { forMs: number }) => (await post(job)).latencies!,
    close: () => worker.terminate(),
  };
}
