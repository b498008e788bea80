// What a replica reads at start, in one consistent snapshot: the documents,
// every log's entry numbers and latest entry, the blob keys, and the number of
// the last change they include (the follower goes on from there).
import type pg from 'pg';
import { deepFreeze } from '../canonical-json.ts';
import { documentName } from '../keys.ts';
import type { Loaded } from '../persistence.ts';
import { DOC_COLLECTIONS, LOG_COLLECTIONS, type DocCollection, type Entry, type Json, type LogCollection } from '../types.ts';

export interface Snapshot {
  loaded: Loaded;
  /** The last change the snapshot includes. */
  seq: string;
  /** Each document's revision, by documentName. */
  docRevs: Array<[string, string]>;
}

/** Read with no time limit: a large database takes longer than a write may. */
export async function loadSnapshot(pool: pg.Pool): Promise<Snapshot> {
  const client = await pool.connect();
  let failed: Error | undefined;
  // The driver's own limit is per query: a day, as 0 would mean the pool's.
  const query = <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    client.query<R>({ text, values, query_timeout: 86_400_000 } as pg.QueryConfig);
  try {
    await query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await query('SET LOCAL statement_timeout = 0');
    // Past the horizon too: with every change pruned the table is empty, and memory is as current as the horizon.
    const seq = (await query<{ seq: string }>(
      'SELECT greatest(coalesce(max(seq), 0), (SELECT seq FROM changes_horizon)) AS seq FROM changes')).rows[0].seq;
    const loaded: Loaded = { docs: [], logs: [], blobs: [], problems: [] };
    const docRevs: Array<[string, string]> = [];
    const docs = await query<{ collection: string; key: string; rev: string; body: string }>(
      'SELECT collection, key, rev, body FROM documents WHERE collection = ANY($1)', [DOC_COLLECTIONS]);
    for (const row of docs.rows) {
      const c = row.collection as DocCollection;
      loaded.docs.push([c, row.key, deepFreeze(JSON.parse(row.body) as Json)]);
      docRevs.push([documentName(c, row.key), row.rev]);
    }
    // The latest entry of each log beside all its numbers; the primary key's index serves both.
    const logs = await query<{ collection: string; key: string; versions: number[]; body: string }>(`
      SELECT v.collection, v.key, v.versions, e.body
      FROM (SELECT collection, key, array_agg(version ORDER BY version) AS versions, max(version) AS latest
            FROM entries WHERE collection = ANY($1) GROUP BY collection, key) v
      JOIN entries e ON e.collection = v.collection AND e.key = v.key AND e.version = v.latest`, [LOG_COLLECTIONS]);
    for (const row of logs.rows) {
      const c = row.collection as LogCollection;
      const where = `${c}/${row.key}/v${row.versions[row.versions.length - 1]} (table entries)`;
      try {
        loaded.logs.push({ collection: c, key: row.key, versions: row.versions, head: deepFreeze(JSON.parse(row.body) as Entry) });
      } catch (error) {
        const problem = { collection: c, key: row.key, where, message: `is not valid JSON (${(error as Error).message})` };
        loaded.logs.push({ collection: c, key: row.key, versions: row.versions, problem });
      }
    }
    loaded.blobs = (await query<{ key: string }>('SELECT key FROM blobs')).rows.map((r) => r.key);
    await query('COMMIT');
    return { loaded, seq, docRevs };
  } catch (error) {
    failed = error as Error;
    throw error;
  } finally {
    client.release(failed);
  }
}
