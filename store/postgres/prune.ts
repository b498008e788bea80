// Pruning of the changes table, which every write adds a row to: each
// replica, about once a minute, removes the changes older than a window
// (mts_prune in migrations.ts), which also moves the horizon a replica
// checks when it catches up. The window is far longer than any replica takes
// to apply a change it heard of; one that falls further behind (its
// connection lost for longer) loads everything again (notifications.ts).
// The same call drops login counts whose window has ended.
import type pg from 'pg';
import type { Log } from './connection.ts';

/** How long changes are kept, by default. */
export const KEEP_CHANGES_MS = 15 * 60_000;
const EVERY_MS = 60_000;
/** Rows removed per call at most, so one call never holds its locks long. */
const BATCH = 10_000;

/** Prunes now; resolves with the horizon (the last change removed so far). */
async function pruneChanges(pool: pg.Pool, keepMs: number): Promise<string> {
  const { rows } = await pool.query<{ horizon: string }>('SELECT mts_prune($1 * interval \'1 millisecond\', $2) AS horizon', [keepMs, BATCH]);
  return rows[0].horizon;
}

/** Prunes about every minute (with jitter, so replicas started together do not all go at once) until the returned function is called. */
export function keepPruning(pool: pg.Pool, keepMs: number, log: Log): () => void {
  let timer: NodeJS.Timeout;
  const next = () => {
    timer = setTimeout(() => {
      pruneChanges(pool, keepMs).catch((error) => log(`could not prune the changes table: ${(error as Error).message}`)).finally(next);
    }, EVERY_MS * (0.5 + Math.random()));
    timer.unref();
  };
  next();
  return () => clearTimeout(timer);
}
