// Short-lived entries shared by every replica (the store contract's
// SharedEntries) in the shared_entries table (migrations.ts): one row per
// entry, its payload as JSON text, its lookup values as a JSON object under a
// GIN index (found with @>, whatever names the writer chose), and when it was
// consumed. Each call is one statement (consume: a conditional update, then a
// look when it did not apply), so replicas never both consume one entry.
// Expired rows are never returned; each write removes a few (mts_put_entry,
// migrations.ts), and the rest go when the changes table is pruned (prune.ts).
// An entry given a bound is written together with it: a flood of anonymous
// sign-in starts from one address replaces its own rows, and a kept one (its
// login form shown) goes last, as with this process's entries
// (auth/oidc/memory-entries.ts).
import type pg from 'pg';
import type { LookupValues, SharedEntries, SharedEntry } from '../types.ts';

const LIVE = '(expires_at IS NULL OR expires_at > extract(epoch FROM now()))';
const COLUMNS = 'payload, expires_at, lookup, consumed_at';

type Row = { payload: string; expires_at: string | null; lookup: LookupValues; consumed_at: string | null };
const asEntry = (row: Row | undefined): SharedEntry | undefined => row && {
  payload: JSON.parse(row.payload) as SharedEntry['payload'],
  ...(row.expires_at !== null && { exp: Number(row.expires_at) }),
  ...(Object.keys(row.lookup).length > 0 && { lookup: row.lookup }),
  ...(row.consumed_at !== null && { consumed: Number(row.consumed_at) }),
};

export function databaseEntries(pool: pg.Pool): SharedEntries {
  return {
    async get(kind, id) {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM shared_entries WHERE kind = $1 AND id = $2 AND ${LIVE}`, [kind, id]);
      return asEntry(rows[0]);
    },
    async findBy(kind, name, value) {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM shared_entries
        WHERE kind = $1 AND lookup @> jsonb_build_object($2::text, $3::text) AND ${LIVE} LIMIT 1`, [kind, name, value]);
      return asEntry(rows[0]);
    },
    async set(kind, id, { payload, exp, lookup, consumed, owner, bound }) {
      await pool.query('SELECT mts_put_entry($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        [kind, id, JSON.stringify(payload), exp ?? null, JSON.stringify(lookup ?? {}), consumed ?? null,
          owner ?? null, bound?.perOwner ?? null, bound?.total ?? null]);
    },
    async keep(kind, id) {
      await pool.query('UPDATE shared_entries SET kept = true WHERE kind = $1 AND id = $2 AND NOT kept', [kind, id]);
    },
    async delete(kind, id) {
      await pool.query('DELETE FROM shared_entries WHERE kind = $1 AND id = $2', [kind, id]);
    },
    async consume(kind, id, now) {
      const done = await pool.query(`UPDATE shared_entries SET consumed_at = $3
        WHERE kind = $1 AND id = $2 AND ${LIVE} AND consumed_at IS NULL`, [kind, id, now]);
      if (done.rowCount) return 'consumed';
      const { rows } = await pool.query(`SELECT 1 FROM shared_entries WHERE kind = $1 AND id = $2 AND ${LIVE}`, [kind, id]);
      return rows.length ? 'reused' : 'missing';
    },
    async deleteWhere(name, value, kinds) {
      await pool.query(`DELETE FROM shared_entries WHERE lookup @> jsonb_build_object($1::text, $2::text)
        AND ($3::text[] IS NULL OR kind = ANY($3))`, [name, value, kinds ?? null]);
    },
  };
}
