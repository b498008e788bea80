// Shared counters (the contract's SharedCounters) in the shared_counters
// table: one row per key with its count and the end of its window; an ended
// window starts again at the next count. Each call is one statement, so
// concurrent replicas never lose a count.
import type pg from 'pg';
import type { SharedCount, SharedCounters } from '../types.ts';

type Row = { key: string; count: number; reset_at: Date };
const asCount = (row: Row): SharedCount => ({ count: row.count, resetAt: row.reset_at.getTime() });

export function databaseCounters(pool: pg.Pool): SharedCounters {
  return {
    async add(key, delta, windowMs) {
      const { rows } = await pool.query<Row>(`
        INSERT INTO shared_counters AS f (key, count, reset_at)
        VALUES ($1, greatest($2, 0), now() + $3 * interval '1 millisecond')
        ON CONFLICT (key) DO UPDATE SET
          count = CASE WHEN f.reset_at <= now() THEN greatest($2, 0) ELSE greatest(f.count + $2, 0) END,
          reset_at = CASE WHEN f.reset_at <= now() THEN excluded.reset_at ELSE f.reset_at END
        RETURNING key, count, reset_at`, [key, delta, windowMs]);
      return asCount(rows[0]);
    },
    async get(keys) {
      const { rows } = await pool.query<Row>('SELECT key, count, reset_at FROM shared_counters WHERE key = ANY($1) AND reset_at > now()', [keys]);
      return new Map(rows.map((row) => [row.key, asCount(row)]));
    },
    async clear(key) {
      await pool.query('DELETE FROM shared_counters WHERE key = $1', [key]);
    },
  };
}
