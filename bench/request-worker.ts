// A load generator for write benchmarks, run in a worker thread so the client
// does not share the event loop (or the CPU) of the server it measures, as
// autocannon does for the read benchmarks. autocannon cannot give each
// connection its own sequence of URLs and bodies; this can: each lane is one
// keep-alive connection sending its requests one after another, lanes run in
// parallel. Answers the elapsed milliseconds, or the first failure.
import http from 'node:http';
import { parentPort, Worker } from 'node:worker_threads';

export type Call = { method: string; path: string; body: string };
export type Job = { origin: string; headers: Record<string, string>; lanes: Call[][] };

function send(agent: http.Agent, origin: string, headers: Record<string, string>, call: Call): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(origin + call.path, {
      agent, method: call.method,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(call.body) },
    }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode! < 300 ? resolve() : reject(new Error(`${call.method} ${call.path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(call.body);
  });
}

async function run(job: Job): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.lanes.length });
  try {
    const t0 = performance.now();
    await Promise.all(job.lanes.map(async (lane) => {
      for (const call of lane) await send(agent, job.origin, job.headers, call);
    }));
    return performance.now() - t0;
  } finally {
    agent.destroy();
  }
}

parentPort?.on('message', (job: Job) => {
  run(job).then((ms) => parentPort!.postMessage({ ms }), (e: Error) => parentPort!.postMessage({ error: e.message }));
});

/** A client worker; `send(job)` resolves with the elapsed ms of the job's requests. */
export function requestWorker() {
  // A worker does not inherit the TypeScript loader of the thread that starts
  // it (Node 20), so it registers tsx's before importing this module.
  const self = JSON.stringify(import.meta.url);
  const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${self}); })`, { eval: true });
  return {
    send: (job: Job) => new Promise<number>((resolve, reject) => {
      const failed = (e: Error) => reject(e);
      worker.once('error', failed); // the worker itself failed (it could not load, for one)
      worker.once('message', (m: { ms?: number; error?: string }) => {
        worker.off('error', failed);
        if (m.error) reject(new Error(m.error));
        else resolve(m.ms!);
      });
      worker.postMessage(job);
    }),
    close: () => worker.terminate(),
  };
}
