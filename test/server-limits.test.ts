// Request limits of serve(), on the real listening service (run in this
// process, without its signal handlers): a request whose headers or body do
// not arrive within server.requestTimeoutSeconds is answered 408 in the JSON
// error shape and its connection closed; beyond server.maxConnections a new
// connection is closed unanswered, and once a slot frees a normal request is
// answered again; beyond server.maxConnectionsPerAddress a new connection from
// that address is closed while other addresses are served. Clients are raw sockets, so they can be as slow as an attacker.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMemoryLogger } from '../log.ts';
import { serve } from '../server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Service {
  port: number;
  server: http.Server;
  lines: string[];
  close(): Promise<void>;
}

async function startService(server: Record<string, unknown>): Promise<Service> {
  const tmp = await mkdtemp(path.join(tmpdir(), 'mts-limits-'));
  await writeFile(path.join(tmp, 'settings.yml'), JSON.stringify({ server }));
  const log = createMemoryLogger();
  const started = await serve({
    MTS_CONFIG: path.join(tmp, 'settings.yml'), MTS_DATA_DIR: path.join(tmp, 'data'), PORT: '0', HOST: '127.0.0.1',
    MTS_ADMIN_PASSWORD: 'request limits test',
  }, { log, signals: false });
  return {
    port: (started.server.address() as net.AddressInfo).port,
    server: started.server,
    lines: log.lines,
    async close() {
      started.server.closeAllConnections();
      await new Promise((r) => started.server.close(r));
      await started.store.close();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

interface Exchange {
  /** Everything the service sent before the connection ended. */
  text: string;
  status?: number;
  json?: Record<string, unknown>;
  ms: number;
}

/**
 * Connects, lets `send` write (and keep writing) whatever it likes, and resolves
 * once the connection has ended, from either side. `send` gets a `closed` flag to
 * stop its trickle. Fails if the connection is still open after `ms`.
 */
function exchange(port: number, send: (socket: net.Socket, closed: () => boolean) => void, ms = 10_000, from?: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    let text = '';
    let done = false;
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from }, () => send(socket, () => done));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connection still open after ${ms} ms; received ${JSON.stringify(text)}`));
    }, ms);
    socket.on('data', (d) => (text += d));
    socket.on('error', () => undefined); // a reset ends it as well as a close
    socket.on('close', () => {
      done = true;
      clearTimeout(timer);
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
      const body = text.split('\r\n\r\n').slice(1).join('\r\n\r\n');
      let json: Record<string, unknown> | undefined;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ text, status: status ? Number(status) : undefined, json, ms: Date.now() - start });
    });
  });
}

/** Writes `chunks` one by one, `every` ms apart, until the connection ends. */
const trickle = (chunks: (i: number) => string | undefined, every: number) => (socket: net.Socket, closed: () => boolean) => {
  let i = 0;
  const next = () => {
    if (closed()) return;
    const chunk = chunks(i++);
    if (chunk !== undefined) socket.write(chunk);
    setTimeout(next, every);
  };
  next();
};

/** `from`: the local address to connect from (any of 127.0.0.0/8: another client address). */
const healthz = (port: number, from?: string) =>
  exchange(port, (s) => s.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'), 10_000, from);

/** Polls until the service holds `n` connections. */
async function connectionsReach(server: http.Server, n: number, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const count = await new Promise<number>((resolve, reject) => server.getConnections((e, c) => (e ? reject(e) : resolve(c))));
    if (count === n) return;
    if (Date.now() > deadline) throw new Error(`the service holds ${count} connections, not ${n}`);
    await sleep(20);
  }
}

/** A 408 answered in the service's JSON error shape, within the 1 s limit and generous slack for a slow machine. */
function assertTimedOut(x: Exchange) {
  assert.equal(x.status, 408, `expected 408, got ${JSON.stringify(x.text)}`);
  assert.equal(x.json?.code, 'request_timeout');
  assert.match(String(x.json?.detail), /server\.requestTimeoutSeconds/);
  assert.match(x.text, /\r\nConnection: close\r\n/i);
  assert.ok(x.ms >= 900, `answered after ${x.ms} ms, before the limit`);
  assert.ok(x.ms < 6000, `answered after ${x.ms} ms`);
}

// Anything unhandled while the service runs in this process fails the tests that check for it.
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => void unhandled.push(e);

describe('request limits: a request that does not arrive in time is 408', () => {
  let service: Service;
  before(async () => {
    process.on('unhandledRejection', onUnhandled);
    service = await startService({ requestTimeoutSeconds: 1, maxConnections: 50, maxConnectionsPerAddress: 50 });
  });
  after(async () => {
    await service?.close();
    process.off('unhandledRejection', onUnhandled);
  });

  it('a body that stops short of its Content-Length: 408 with a JSON detail, and the connection is closed', async () => {
    const x = await exchange(service.port, (s) => s.write(
      'POST /api/v1/auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"grant_type": "pass'));
    assertTimedOut(x);
  });

  it('a body trickling in a byte at a time: 408 at the limit, although the connection is never idle', async () => {
    const x = await exchange(service.port, trickle((i) => (i === 0
      ? 'POST /api/v1/auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n'
      : ' '), 100));
    assertTimedOut(x);
  });

  it('headers sent slowly, a line at a time: 408', async () => {
    const x = await exchange(service.port, trickle((i) => (i === 0 ? 'GET /healthz HTTP/1.1\r\n' : `X-Slow-${i}: y\r\n`), 100));
    assertTimedOut(x);
  });

  it('a connection that sends nothing: 408 and closed, freeing its slot', async () => {
    assertTimedOut(await exchange(service.port, () => undefined));
  });

  it('a body the handler is already reading: 408, and neither a 500 nor an unhandled rejection', async () => {
    const before = service.lines.length;
    const form = await exchange(service.port, (s) => s.write(
      'POST /api/v1/auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type=password&'));
    assertTimedOut(form);
    // A body of unknown length goes through the counting body limit, which reads it before the handler.
    const chunked = await exchange(service.port, (s) => s.write(
      'POST /api/v1/auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"gra\r\n'));
    assertTimedOut(chunked);
    await sleep(200); // the handlers' failed reads have run their course
    const logged = service.lines.slice(before).filter((l) => /internal error/.test(l));
    assert.deepEqual(logged, []);
    assert.deepEqual(unhandled, []);
    assert.equal((await healthz(service.port)).status, 200);
  });

  it('requests Node cannot parse still get its own answers at once: 400, and 431 for headers over 16 KB', async () => {
    const garbage = await exchange(service.port, (s) => s.write('NOT HTTP AT ALL\r\n\r\n'));
    assert.match(garbage.text, /^HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n\r\n$/);
    const huge = await exchange(service.port, (s) => s.write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    assert.match(huge.text, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n$/);
    assert.ok(garbage.ms < 900 && huge.ms < 900, 'answered before any time limit');
  });

  it('200 slow connections at once: at most maxConnections are held, each answered 408, the others closed; it never crashes and answers after', async () => {
    // How many connections the service holds at once: those it closes at the cap never reach 'connection'.
    let open = 0;
    let most = 0;
    const count = (socket: net.Socket) => {
      most = Math.max(most, ++open);
      socket.once('close', () => open--);
    };
    service.server.on('connection', count);
    const slow = Array.from({ length: 200 }, () => exchange(service.port, (s) => s.write(
      'POST /api/v1/auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{'), 15_000));
    const results = await Promise.all(slow).finally(() => service.server.off('connection', count));
    const timedOut = results.filter((x) => x.status === 408);
    const refused = results.filter((x) => x.text === '');
    assert.equal(timedOut.length + refused.length, 200, `other answers: ${JSON.stringify(results.filter((x) => x.status !== 408 && x.text !== '').map((x) => x.text))}`);
    // A connection that arrives once a 408 has freed a slot is taken too, so only the service's own count is exact.
    assert.ok(most <= 50, `the service held ${most} connections at once`);
    assert.ok(timedOut.length >= 1 && refused.length >= 1, `${timedOut.length} answered 408, ${refused.length} closed unanswered`);
    assert.ok(service.lines.some((l) => l.includes('connection limit reached (server.maxConnections: 50)')));
    assert.ok(service.server.listening);
    const ok = await healthz(service.port);
    assert.equal(ok.status, 200);
    assert.equal(ok.json?.status, 'ok');
    assert.deepEqual(unhandled, []);
  });
});

describe('request limits: the connection cap', () => {
  let service: Service;
  const idle: net.Socket[] = [];
  before(async () => {
    // The default 30 s limit: the idle connections keep their slots for the whole test.
    service = await startService({ maxConnections: 5, maxConnectionsPerAddress: 5 });
  });
  after(async () => {
    for (const s of idle) s.destroy();
    await service?.close();
  });

  it('with maxConnections idle connections open a new one is closed unanswered; once one closes a normal request is answered', async () => {
    for (let i = 0; i < 5; i++) {
      const s = net.connect(service.port, '127.0.0.1');
      s.on('error', () => undefined);
      idle.push(s);
    }
    await connectionsReach(service.server, 5);

    const refused = await healthz(service.port);
    assert.equal(refused.text, '', 'a connection beyond the cap is closed without an answer');
    assert.ok(service.lines.some((l) => l.includes('connection limit reached (server.maxConnections: 5)')));

    idle.pop()!.destroy();
    await connectionsReach(service.server, 4);
    const answered = await healthz(service.port);
    assert.equal(answered.status, 200);
    assert.equal(answered.json?.status, 'ok');

    // Still alive and answering, again and again, with the other four still held.
    for (let i = 0; i < 3; i++) assert.equal((await healthz(service.port)).status, 200);
    assert.ok(service.server.listening);
  });
});

describe('request limits: the connection cap per address', () => {
  let service: Service;
  const held: net.Socket[] = [];
  before(async () => {
    service = await startService({ maxConnections: 20, maxConnectionsPerAddress: 3 });
  });
  after(async () => {
    for (const s of held) s.destroy();
    await service?.close();
  });

  it('one address holding its share cannot open another, while other addresses are answered', async () => {
    for (let i = 0; i < 3; i++) {
      const s = net.connect({ port: service.port, host: '127.0.0.1', localAddress: '127.0.0.2' });
      s.on('error', () => undefined);
      held.push(s);
    }
    await connectionsReach(service.server, 3);
    const refused = await healthz(service.port, '127.0.0.2');
    assert.equal(refused.text, '', 'a connection beyond the share of its address is closed without an answer');
    assert.ok(service.lines.some((l) => l.includes('server.maxConnectionsPerAddress: 3')));
    for (const from of ['127.0.0.1', '127.0.0.3']) assert.equal((await healthz(service.port, from)).status, 200, from);

    held.pop()?.destroy();
    await connectionsReach(service.server, 2);
    assert.equal((await healthz(service.port, '127.0.0.2')).status, 200, 'answered again once one of its connections closed');
  });
});
