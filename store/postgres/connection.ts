// The connection to PostgreSQL: a pool with time limits short enough that a
// write with the database gone is answered (503) within 5 s, never left
// hanging; which driver errors mean "cannot be reached"; and the wait at start
// while the database is not up yet (a replica started before its database).
import pg from 'pg';
import { ServiceError } from '../../errors.ts';

/** Connecting, and each statement, may take this long before the write is answered 503. */
const CONNECT_TIMEOUT_MS = 1500;
const QUERY_TIMEOUT_MS = 3000;

export type Log = (message: string) => void;

/** The connection settings of `url`, with the service's time limits. */
export function clientConfig(url: string): pg.ClientConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    statement_timeout: QUERY_TIMEOUT_MS,
    lock_timeout: QUERY_TIMEOUT_MS,
    keepAlive: true,
    application_name: 'map-topology-service',
  };
}

export function createPool(url: string, log: Log): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(url), max: 8, idleTimeoutMillis: 30_000 });
  // An idle connection the server closed (a restart): the pool drops it; without a listener it would end the process.
  pool.on('error', (error) => log(`a PostgreSQL connection was lost: ${error.message}`));
  return pool;
}

/** Where the database is, for messages: host, port and database, never the password. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `postgresql://${u.hostname || u.searchParams.get('host') || 'localhost'}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'the PostgreSQL database (store.postgres.url is not a URL)';
  }
}

/** Whether `error` says the database cannot be reached now (as opposed to refusing the statement). */
export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: string; severity?: string; message?: string };
  if (typeof e?.code === 'string' && /^(08|53|57P)/.test(e.code)) return true;
  // The driver's own failures (refused, reset, timeouts, a closed connection) carry no SQL severity.
  return e?.severity === undefined;
}

/** The error a client gets when a write could not reach the database. */
export function unavailable(what: string, error: unknown): ServiceError {
  return new ServiceError('store_unavailable',
    `the database cannot be reached (${(error as Error).message}); ${what} was not saved; try again shortly`, { cause: error });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once the database answers; until then retries, longer and longer (at most every 5 s), saying so. */
export async function waitForDatabase(pool: pg.Pool, url: string, log: Log, stopped: () => boolean): Promise<void> {
  for (let attempt = 1, delay = 500; ; attempt++, delay = Math.min(delay * 2, 5000)) {
    try {
      await pool.query('SELECT 1');
      if (attempt > 1) log(`${describeUrl(url)} answers now; starting`);
      return;
    } catch (error) {
      if (!isUnreachable(error) || stopped()) throw error;
      log(`waiting for ${describeUrl(url)}: ${(error as Error).message}; trying again in ${delay / 1000} s`);
      await sleep(delay);
    }
  }
}
