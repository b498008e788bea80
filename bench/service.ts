// Shared plumbing of the HTTP benchmarks: a service over a data folder with an
// admin token, a real listener on 127.0.0.1, and autocannon run in a worker
// thread so the load generator does not share the event loop it measures.
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import type { AddressInfo } from 'node:net';
import { parseSettings, type SettingsInput } from '../config/settings.ts';
import { createMemoryLogger, type Logger } from '../log.ts';
import { createApp } from '../server.ts';
import { openFileStore } from '../store/file.ts';

const PASSWORD = 'benchmark password 1';

/**
 * The app over `dir` and the headers of an admin token; `input` adds settings. The request log is
 * off unless `input` turns it on (with `log` given, it writes there): bench/log.ts measures its cost;
 * `onOutputRender` counts renders.
 */
export async function startService(dir: string, input: SettingsInput = {}, log: Logger = createMemoryLogger(), onOutputRender?: (key: string) => void) {
  const settings = parseSettings({ ...input, log: { requests: false, ...input.log }, data: { dir } }, {}, dir);
  const store = await openFileStore(dir);
  const app = await createApp({ settings, store, log, adminPassword: PASSWORD, onOutputRender });
  const res = await app.request('/api/v1/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: 'admin', password: PASSWORD }) });
  const token = ((await res.json()) as { access_token: string }).access_token;
  return { app, store, headers: { authorization: `Bearer ${token}` } };
}

/** Serves `fetch` on 127.0.0.1 at a free port. */
export function listen(fetch: (req: Request) => Response | Promise<Response>) {
  return new Promise<{ url: string; close: () => void }>((resolve) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, close: () => server.close() }));
  });
}

/** Average requests/s of `url` under `connections` for `seconds`; any non-2xx answer fails the run. */
export async function requestsPerSecond(url: string, headers: Record<string, string>, connections: number, seconds: number) {
  const result = await autocannon({ url, connections, duration: seconds, headers, workers: 1 });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}
