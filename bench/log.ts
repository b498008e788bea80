// The request log's cost on the fast path: GET /api/v1/map/id/{id}/ (a map
// answered from memory) with the access log on, written to a file the way the
// service writes its stdout (log.ts: pino's destination, lines gathered per
// turn of the event loop), beside the same service with the request log
// off, in alternating rounds on one copy of the demo data. Target: at least
// 0.8x (the log must not eat the fast path).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { copyDemoData } from '../test/helpers/demo-data.ts';
import { createLogger, type LogFormat } from '../log.ts';
import { listen, requestsPerSecond, startService } from './service.ts';

const DEMO_MAP = 'znfjfuT';
const ROUNDS = 5;
const SECONDS = 3;
const CONNECTIONS = 50;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(format: LogFormat, dir: string): Promise<string> {
  const on = await startService(dir, { log: { requests: true, format } }, createLogger({ format, file: path.join(dir, `service-${format}.log`) }));
  // A second app over the same folder would take its lock: the one without request lines gets a copy.
  const otherDir = await mkdtemp(path.join(tmpdir(), 'mts-bench-log-off-'));
  await copyDemoData(otherDir);
  const off = await startService(otherDir);
  const [onUrl, offUrl] = await Promise.all([listen(on.app.fetch), listen(off.app.fetch)]);
  const target = `/api/v1/map/id/${DEMO_MAP}/`;
  const withLog: number[] = [];
  const without: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      without.push(await requestsPerSecond(offUrl.url + target, off.headers, CONNECTIONS, SECONDS));
      withLog.push(await requestsPerSecond(onUrl.url + target, on.headers, CONNECTIONS, SECONDS));
    }
  } finally {
    onUrl.close();
    offUrl.close();
    await Promise.all([on.store.close(), off.store.close()]);
    await rm(otherDir, { recursive: true, force: true });
  }
  const [a, b] = [median(withLog), median(without)];
  return `GET ${target} with the access log on (${format}, pino to a file): ${a.toFixed(0)} req/s vs logging off ${b.toFixed(0)} req/s = ${(a / b).toFixed(2)}x (target >= 0.8x; median of ${ROUNDS} alternating rounds of ${SECONDS} s)`;
}

export async function benchLog(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-log-'));
  try {
    await copyDemoData(dir);
    return [await measure('text', dir), await measure('json', dir)];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await benchLog()) console.log(line);
}
