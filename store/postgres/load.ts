// What a replica reads at start, in one consistent snapshot: the documents,
// every log's entry numbers and latest entry, the blob keys, and the number of
// the last change they include (the follower goes on from there).
import pg from 'pg';
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

/** Where an entry is, in messages (the adapter's whereEntry too). */
export const whereEntry = (c: LogCollection, key: string, version: number) => `${c}/${key}/v${version} (table entries)`;

/** The driver's own limit is per query: a day, as 0 would mean the pool's. Start-up reads of a large database take longer than a write may. */
const NO_TIME_LIMIT_MS = 86_400_000;

/** Each log: collection, key, how many entries, the latest number, all numbers when they have a gap, the latest entry. */
type LogRow = [string, string, number, number, number[] | null, string];

// The index on (collection, key, version) serves both the grouping and the lookup of each latest entry,
// so rows stream out from the first log on (a join of all entries would hash them all first).
const LOGS = `
  SELECT v.collection, v.key, v.count, v.latest, CASE WHEN v.count <> v.latest - v.first + 1 THEN v.versions END,
    (SELECT body FROM entries e WHERE e.collection = v.collection AND e.key = v.key AND e.version = v.latest)
  FROM (SELECT collection, key, count(*)::int AS count, min(version) AS first, max(version) AS latest, array_agg(version) AS versions
        FROM entries WHERE collection = ANY($1) GROUP BY collection, key) v`;

/** Runs `text`, handing each row (an array of its columns) to `onRow` as it arrives; no time limit. */
function stream(client: pg.PoolClient, text: string, values: unknown[], onRow: (row: unknown[]) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query({ text, values, rowMode: 'array' } as pg.QueryConfig);
    Object.assign(query, { query_timeout: NO_TIME_LIMIT_MS }); // read off the query object, as from a config
    query.on('row', (row: unknown[]) => {
      try {
        onRow(row);
      } catch (error) {
        reject(error);
      }
    });
    query.on('error', reject);
    query.on('end', () => resolve());
    client.query(query);
  });
}

/** Read with no time limit: a large database takes longer than a write may. */
export async function loadSnapshot(pool: pg.Pool): Promise<Snapshot> {
  const client = await pool.connect();
  let failed: Error | undefined;
  const query = (text: string) => client.query({ text, query_timeout: NO_TIME_LIMIT_MS } as pg.QueryConfig);
  try {
    // The small reads in one round trip (several statements, so no parameters: the collections are the store's own names).
    const [, , last, docs, blobs] = await query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
      SET LOCAL statement_timeout = 0;
      SELECT greatest(coalesce(max(seq), 0), (SELECT seq FROM changes_horizon)) AS seq FROM changes;
      SELECT collection, key, rev, body FROM documents WHERE collection IN (${DOC_COLLECTIONS.map((c) => client.escapeLiteral(c)).join(', ')});
      SELECT key FROM blobs;`) as unknown as pg.QueryResult[];
    // Past the horizon too: with every change pruned the table is empty, and memory is as current as the horizon.
    const seq = String(last.rows[0].seq);
    const loaded: Loaded = { docs: [], logs: [], blobs: blobs.rows.map((r) => r.key as string), problems: [] };
    const docRevs: Array<[string, string]> = [];
    for (const row of docs.rows as Array<{ collection: string; key: string; rev: string; body: string }>) {
      const c = row.collection as DocCollection;
      loaded.docs.push([c, row.key, deepFreeze(JSON.parse(row.body) as Json)]);
      docRevs.push([documentName(c, row.key), row.rev]);
    }
    // Each log's latest entry, read as the rows arrive: the database finds the next logs while this
    // replica parses the bodies it has (a result read whole first, then parsed, took about twice as long).
    await stream(client, LOGS, [LOG_COLLECTIONS], (row) => {
      const [collection, key, count, latest, listed, body] = row as LogRow;
      const c = collection as LogCollection;
      // A log's numbers come as its count and latest when they run without a gap, listed only otherwise.
      const versions = listed ? listed.sort((a, b) => a - b) : Array.from({ length: count }, (_, i) => latest - count + 1 + i);
      try {
        loaded.logs.push({ collection: c, key, versions, head: deepFreeze(JSON.parse(body) as Entry) });
      } catch (error) {
        const problem = { collection: c, key, where: whereEntry(c, key, latest), message: `is not valid JSON (${(error as Error).message})` };
        loaded.logs.push({ collection: c, key, versions, problem });
      }
    });
    await query('COMMIT');
    return { loaded, seq, docRevs };
  } catch (error) {
    failed = error as Error;
    throw error;
  } finally {
    client.release(failed);
  }
}
