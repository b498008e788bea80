// A throwaway PostgreSQL cluster for the tests: initdb into a temp folder,
// listening on 127.0.0.1 at a free port (its unix socket in the folder too),
// stopped and removed at the end. PostgreSQL refuses to run as root, so as
// root the cluster runs as the `postgres` user (else `nobody`). Without
// initdb, or under npm run test:fast, the tests skip, saying so once
// (helpers/components.ts); in CI its absence fails them.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { skipWithout } from './components.ts';

const run = promisify(execFile);

function findBin(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, 'initdb'))) return dir;
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((v) => path.join(root, v, 'bin')).find((dir) => existsSync(path.join(dir, 'initdb')));
}

const BIN = findBin();

/** Why the PostgreSQL tests cannot run here (false when they can); printed once per test run. */
export const noPostgres: string | false = skipWithout('PostgreSQL', BIN !== undefined, 'initdb on PATH or in /usr/lib/postgresql/*/bin: apt-get install postgresql');
if (noPostgres) {
  try {
    writeFileSync(path.join(tmpdir(), `mts-postgres-skip-${process.ppid}`), '', { flag: 'wx' });
    console.log(`# ${noPostgres}`);
  } catch {
    // said already in this test run
  }
}

const freePort = () => new Promise<number>((resolve, reject) => {
  const server = createServer();
  server.once('error', reject);
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    server.close(() => resolve(port));
  });
});

/** Runs a PostgreSQL program, as an unprivileged user when we are root. */
async function as(user: string | undefined, program: string, args: string[]) {
  const file = path.join(BIN!, program);
  return user ? run('runuser', ['-u', user, '--', file, ...args]) : run(file, args);
}

export interface Cluster {
  port: number;
  /** The URL of a database of this cluster. */
  url(database: string): string;
  /** Creates an empty database and resolves with its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast: sessions are ended), keeping the cluster; start() brings it back on the same port. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Stops the server and removes the cluster. */
  stop(): Promise<void>;
}

let databases = 0;

/** `durable`: fsync and synchronous commits as a real deployment has them (benchmarks); tests go without. */
export async function startCluster({ durable = false } = {}): Promise<Cluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-pg-'));
  const data = path.join(dir, 'data');
  const user = process.getuid?.() === 0 ? (await run('id', ['-u', 'postgres']).then(() => 'postgres', () => 'nobody')) : undefined;
  if (user) {
    const { stdout } = await run('id', ['-u', user]);
    const { stdout: gid } = await run('id', ['-g', user]);
    await chown(dir, Number(stdout), Number(gid));
  }
  await as(user, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c max_connections=200', '-c shared_buffers=64MB',
    ...(durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'])].join(' ');
  const startServer = async () => {
    await as(user, 'pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-o', options, '-w', '-t', '30', 'start']);
  };
  const stopServer = async () => {
    await as(user, 'pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await startServer();
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async createDatabase(name = `t${process.pid}_${++databases}`) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stopServer,
    startServer,
    async stop() {
      await as(user, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Empties the service's tables of a database (when it has them), for the next test. */
export async function emptyDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT 1 FROM pg_tables WHERE tablename = 'changes'");
    if (rows.length > 0) {
      await client.query('TRUNCATE entries, documents, blobs, changes, shared_counters, shared_entries RESTART IDENTITY');
      await client.query('UPDATE changes_horizon SET seq = 0');
    }
  } finally {
    await client.end();
  }
}
