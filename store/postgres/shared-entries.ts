// Short-lived entries shared by every replica (the store contract's
// SharedEntries) in the shared_entries table (migrations.ts): one row per
// entry, its payload as JSON text beside the fields it is found by. Each call
// is one statement (consume: a conditional update, then a look when it did not
// apply), so replicas never both consume one entry. Expired rows are never
// returned; each write removes a few (mts_put_entry, migrations.ts), and the
// rest go when the changes table is pruned (prune.ts). An entry given a bound
// is written together with it: a flood of anonymous sign-in starts from one
// address replaces its own rows, and a kept one (its login form shown) goes
// last, as with this process's entries (auth/oidc/memory-entries.ts).
import type pg from 'pg';
import type { Json, SharedEntries, SharedEntry, SharedEntryField } from '../types.ts';

const COLUMNS: Record<SharedEntryField, string> = { uid: 'uid', userCode: 'user_code', grantId: 'grant_id', accountId: 'account_id' };
const LIVE = '(expires_at IS NULL OR expires_at > extract(epoch FROM now()))';

type Row = { payload: string; expires_at: string | null };
const asEntry = (row: Row | undefined): SharedEntry | undefined =>
  row && { payload: JSON.parse(row.payload) as SharedEntry['payload'], ...(row.expires_at !== null && { exp: Number(row.expires_at) }) };
const field = (payload: SharedEntry['payload'], name: SharedEntryField): string | null => {
  const value: Json | undefined = payload[name];
  return typeof value === 'string' ? value : null;
};

export function databaseEntries(pool: pg.Pool): SharedEntries {
  return {
    async get(kind, id) {
      const { rows } = await pool.query<Row>(`SELECT payload, expires_at FROM shared_entries WHERE kind = $1 AND id = $2 AND ${LIVE}`, [kind, id]);
      return asEntry(rows[0]);
    },
    async findBy(kind, name, value) {
      const { rows } = await pool.query<Row>(
        `SELECT payload, expires_at FROM shared_entries WHERE kind = $1 AND ${COLUMNS[name]} = $2 AND ${LIVE} LIMIT 1`, [kind, value]);
      return asEntry(rows[0]);
    },
    async set(kind, id, { payload, exp, owner, bound }) {
      await pool.query('SELECT mts_put_entry($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
        [kind, id, JSON.stringify(payload), exp ?? null, field(payload, 'uid'), field(payload, 'userCode'), field(payload, 'grantId'),
          field(payload, 'accountId'), owner ?? null, bound?.perOwner ?? null, bound?.total ?? null]);
    },
    async keep(kind, id) {
      await pool.query('UPDATE shared_entries SET kept = true WHERE kind = $1 AND id = $2 AND NOT kept', [kind, id]);
    },
    async delete(kind, id) {
      await pool.query('DELETE FROM shared_entries WHERE kind = $1 AND id = $2', [kind, id]);
    },
    async consume(kind, id, now) {
      const done = await pool.query(`
        UPDATE shared_entries SET payload = (payload::jsonb || jsonb_build_object('consumed', $3::bigint))::text
        WHERE kind = $1 AND id = $2 AND ${LIVE} AND NOT (payload::jsonb ? 'consumed')`, [kind, id, now]);
      if (done.rowCount) return 'consumed';
      const { rows } = await pool.query(`SELECT 1 FROM shared_entries WHERE kind = $1 AND id = $2 AND ${LIVE}`, [kind, id]);
      return rows.length ? 'reused' : 'missing';
    },
    async deleteWhere(name, value, kinds) {
      await pool.query(`DELETE FROM shared_entries WHERE ${COLUMNS[name]} = $1 AND ($2::text[] IS NULL OR kind = ANY($2))`, [value, kinds ?? null]);
    },
  };
}
