// CPU time per request of a fetch handler, in this process: the same GET
// handed over and over to @hono/node-server's request listener, as the server
// hands it a parsed request, with the answer written to a stand-in for the
// socket's response, timed with process.cpuUsage(). Steadier than requests
// per second on a shared machine: no client, no sockets, no scheduler between
// the figure and the code it measures; what it leaves out (Node's HTTP
// parsing and writing) is the same for every route.
import { getRequestListener } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';

type Fetch = (req: Request, env?: unknown) => Response | Promise<Response>;

const CALLS = 20_000;
const ROUNDS = 7;

/** The median over ROUNDS of CPU microseconds per GET `path` answered by `fetch`; each answer must be 200. */
export async function cpuPerGet(fetch: Fetch, path: string, headers: Record<string, string>): Promise<number> {
  const listener = getRequestListener(fetch);
  const incoming = { method: 'GET', url: path, headers: { host: '127.0.0.1:8080', ...headers }, socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
  let status = 0;
  let ended = 0;
  const outgoing = {
    writeHead: (s: number) => void (status = s),
    end: () => void ended++,
    on: () => outgoing,
    once: () => outgoing,
    hasHeader: () => false,
  } as unknown as ServerResponse;
  const call = () => {
    status = 0;
    return listener(incoming, outgoing);
  };
  for (let i = 0; i < 1000; i++) {
    await call(); // a token verified once, the code compiled
    if (status !== 200) throw new Error(`GET ${path}: ${status}`);
  }
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = ended;
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) void call(); // the fast path answers at once
    const used = process.cpuUsage(start);
    if (status !== 200) throw new Error(`GET ${path}: ${status}`);
    if (ended - before !== CALLS) throw new Error(`GET ${path}: answered asynchronously, not measured`);
    rounds.push((used.user + used.system) / CALLS);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)];
}
