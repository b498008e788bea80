// The PostgreSQL adapter: the store's persistence in a database that several
// replicas share. The core (../core.ts) keeps memory and the rules, as for the
// data folder; here every write is one call of a database function
// (migrations.ts) that refuses what another replica made stale (a version
// number stored already, a document revised since), which the core answers by
// refreshing the key and trying again. What others write reaches memory
// through notifications (notifications.ts). With the database gone, writes
// answer 503 at once and reads go on from memory.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { ServiceError } from '../../errors.ts';
import { canonicalJson } from '../canonical-json.ts';
import { createStoreCore } from '../core.ts';
import { replicaWrites, type Remote } from '../replica.ts';
import { documentName } from '../keys.ts';
import { StaleWrite, UnsettledWrite, type Persistence } from '../persistence.ts';
import type { DocCollection, Store } from '../types.ts';
import { createPool, describeUrl, isUnreachable, unavailable, waitForDatabase, type Log } from './connection.ts';
import { databaseCounters } from './counters.ts';
import { loadSnapshot, whereEntry, type Snapshot } from './load.ts';
import { migrate } from './migrations.ts';
import { Follower } from './notifications.ts';
import { databaseEntries } from './shared-entries.ts';
import { KEEP_CHANGES_MS, keepPruning } from './prune.ts';

/** Outlines of older entries stored by one statement at most. */
const OUTLINES_PER_STATEMENT = 1000;

export interface PostgresStoreOptions {
  /** Where notices go (waiting for the database, migrations, lost connections). */
  log?: Log;
  /** How long rows of the changes table are kept (prune.ts); a replica further behind loads everything again. */
  keepChangesMs?: number;
}

/** A store over the database at `url`: waits for it, migrates its schema, loads the latest versions and follows changes. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const log = options.log ?? ((message: string) => console.error(`[store] ${message}`));
  const pool = createPool(url, log);
  let stopped = false;
  let follower: Follower | undefined;
  try {
    await waitForDatabase(pool, url, log, () => stopped);
    const origin = randomUUID();
    /** Each document's revision as memory holds it (compare-and-set on write). */
    const revs = new Map<string, string>();
    let remote!: Remote;
    follower = new Follower(url, pool, origin, {
      remote: {
        entry: (...a) => remote.entry(...a), versions: (...a) => remote.versions(...a), doc: (...a) => remote.doc(...a),
        dropped: (...a) => remote.dropped(...a), blob: (...a) => remote.blob(...a), outage: (...a) => remote.outage(...a),
      },
      docRev: (c, key, rev) => noteRev(revs, documentName(c, key), rev),
      reload: async () => {
        const snapshot = await loadSnapshot(pool);
        applySnapshot(snapshot, revs, remote);
        return snapshot.seq;
      },
      log,
    });
    // Listening beside the migrations and the snapshot: from(seq) catches up once both are there, so a change made in
    // between is read then.
    const [, { loaded, seq, docRevs }] = await Promise.all([follower.start(), migrate(pool, log).then(() => loadSnapshot(pool))]);
    for (const [name, rev] of docRevs) revs.set(name, rev);
    const running = follower;
    const stopPruning = keepPruning(pool, options.keepChangesMs ?? KEEP_CHANGES_MS, log);
    const persistence = databasePersistence(pool, origin, revs, () => running.up, () => remote, async () => {
      stopped = true;
      stopPruning();
      await running.stop();
      await pool.end();
    });
    const core = createStoreCore(persistence, loaded, replicaWrites);
    remote = core.remote;
    follower.from(seq);
    log(`serving ${describeUrl(url)}`);
    return { ...core.store, counters: databaseCounters(pool), sharedEntries: databaseEntries(pool) };
  } catch (error) {
    stopped = true;
    await follower?.stop();
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/**
 * Brings memory up to a snapshot read again (the changes since the last one
 * applied were pruned): every document, log and blob it holds; documents it
 * lacks that memory holds from before it are removed. Logs it lacks are kept
 * (only the store command drops whole logs).
 */
function applySnapshot({ loaded, docRevs }: Snapshot, revs: Map<string, string>, remote: Remote) {
  const snapshotRevs = new Map(docRevs);
  const newest = docRevs.reduce((max, [, rev]) => (BigInt(rev) > max ? BigInt(rev) : max), 0n);
  for (const [c, key, doc] of loaded.docs) {
    if (noteRev(revs, documentName(c, key), snapshotRevs.get(documentName(c, key)))) remote.doc(c, key, canonicalJson(doc));
  }
  for (const [name, rev] of [...revs]) {
    if (snapshotRevs.has(name) || BigInt(rev) > newest) continue; // written since the snapshot was read
    const [c, key] = [name.slice(0, name.indexOf('/')), name.slice(name.indexOf('/') + 1)];
    revs.delete(name);
    remote.doc(c as DocCollection, key, undefined);
  }
  for (const log of loaded.logs) {
    if (!log.head) continue;
    remote.entry(log.collection, log.key, canonicalJson(log.head)); // first: entry() skips a number memory knows
    remote.versions(log.collection, log.key, log.versions);
  }
  for (const key of loaded.blobs) remote.blob(key, true);
}

/** Records a document revision read from the database; false when memory holds a newer one (the read was older than a write made since). */
function noteRev(revs: Map<string, string>, name: string, rev: string | undefined): boolean {
  const known = revs.get(name);
  if (rev === undefined) {
    revs.delete(name);
    return true;
  }
  if (known !== undefined && BigInt(known) > BigInt(rev)) return false;
  revs.set(name, rev);
  return true;
}

function databasePersistence(pool: pg.Pool, origin: string, revs: Map<string, string>, up: () => boolean,
  remote: () => Remote, close: () => Promise<void>): Persistence {
  /**
   * Runs one write; the database out of reach is 503 (at once while the
   * notification connection is down). A connection lost once the statement
   * was sent leaves its outcome unknown (UnsettledWrite: the core reads the
   * key back).
   */
  const write = async <R extends pg.QueryResultRow>(what: string, sql: string, params: unknown[]): Promise<R> => {
    if (!up()) throw unavailable(what, new Error('the connection is being made again'));
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw unavailable(what, error);
    }
    let broken: Error | undefined;
    // A checked-out client also emits the lost connection as an event: heard here, answered through the rejection.
    const lost = (error: Error) => { broken = error; };
    client.on('error', lost);
    try {
      return (await client.query<R>(sql, params)).rows[0];
    } catch (error) {
      if (isUnreachable(error)) {
        broken = error as Error;
        throw new UnsettledWrite(`the connection to the database was lost while ${what} was being saved ` +
          `(${(error as Error).message}); it may or may not have been saved: read it back before trying again`, error);
      }
      if ((error as { code?: string }).code === '23505') throw new StaleWrite(what); // unique: another replica's version N
      throw new ServiceError('store_unavailable', `the database refused to save ${what} (${(error as Error).message})`, { cause: error });
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  };
  /** Runs one read; the database out of reach is 503, never taken for a missing or broken row. */
  const read = async <R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> => {
    try {
      return (await pool.query<R>(sql, params)).rows;
    } catch (error) {
      if (!isUnreachable(error)) throw error;
      throw new ServiceError('store_unavailable', `the database cannot be reached (${(error as Error).message}); try again shortly`, { cause: error });
    }
  };

  const persistence: Persistence = {
    async writeDoc(c, key, text) {
      const name = documentName(c, key);
      const row = await write<{ rev: string | null }>(name, 'SELECT mts_write_doc($1, $2, $3, $4, $5) AS rev',
        [origin, c, key, revs.get(name) ?? '0', text]);
      if (row.rev === null) throw new StaleWrite(name);
      revs.set(name, row.rev);
    },
    async removeDoc(c, key) {
      const name = documentName(c, key);
      const row = await write<{ ok: boolean }>(name, 'SELECT mts_remove_doc($1, $2, $3, $4) AS ok', [origin, c, key, revs.get(name) ?? '0']);
      if (!row.ok) throw new StaleWrite(name);
      revs.delete(name);
    },
    async writeEntry(c, key, version, text, _first, outline) {
      const where = persistence.whereEntry(c, key, version);
      const row = await write<{ ok: boolean }>(where, 'SELECT mts_append($1, $2, $3, $4, $5, $6) AS ok', [origin, c, key, version, text, outline]);
      if (!row.ok) throw new StaleWrite(where);
    },
    async readOutlines(c, key) {
      const rows = await read<{ version: number; outline: string }>(
        'SELECT version, outline FROM entries WHERE collection = $1 AND key = $2 AND outline IS NOT NULL', [c, key]);
      return rows.map((row) => [row.version, row.outline] as const);
    },
    async keepOutlines(c, key, outlines) {
      // Only where none is stored (another replica may have stored the same outline meanwhile); in batches, each
      // well within a statement's time limit however long the history.
      for (let i = 0; i < outlines.length; i += OUTLINES_PER_STATEMENT) {
        const batch = outlines.slice(i, i + OUTLINES_PER_STATEMENT);
        await read(`UPDATE entries e SET outline = o.outline FROM unnest($3::int[], $4::text[]) AS o(version, outline)
          WHERE e.collection = $1 AND e.key = $2 AND e.version = o.version AND e.outline IS NULL`,
        [c, key, batch.map(([n]) => n), batch.map(([, outline]) => outline)]);
      }
    },
    async readEntry(c, key, version) {
      const rows = await read<{ body: string }>('SELECT body FROM entries WHERE collection = $1 AND key = $2 AND version = $3', [c, key, version]);
      if (rows.length === 0) throw new Error('is missing');
      return rows[0].body;
    },
    whereEntry,
    async dropLog(c, key) {
      await write(`${c}/${key}`, 'SELECT mts_drop($1, $2, $3)', [origin, c, key]);
    },
    async writeBlob(key, text) {
      await write(`results/${key}`, 'SELECT mts_put_blob($1, $2, $3)', [origin, key, text]);
    },
    async readBlob(key) {
      const rows = await read<{ body: string }>('SELECT body FROM blobs WHERE key = $1', [key]);
      if (rows.length === 0) throw new Error('is missing');
      return rows[0].body;
    },
    // The driver hands every text column over decoded: the bytes are its string encoded again.
    readBlobBytes: async (key) => Buffer.from(await persistence.readBlob(key)),
    whereBlob: (key) => `results/${key} (table blobs)`,
    async removeBlob(key) {
      await write(`results/${key}`, 'SELECT mts_remove_blob($1, $2)', [origin, key]);
    },
    close,
    async refresh(c, key, since) {
      if (c === 'private') {
        const name = documentName(c, key);
        const rows = await read<{ rev: string; body: string }>('SELECT rev, body FROM documents WHERE collection = $1 AND key = $2', [c, key]);
        const rev = rows[0]?.rev;
        if (rev === revs.get(name)) return false;
        noteRev(revs, name, rev);
        remote().doc(c, key, rows[0]?.body);
        return true;
      }
      const rows = await read<{ body: string }>(
        'SELECT body FROM entries WHERE collection = $1 AND key = $2 AND version > $3 ORDER BY version',
        [c, key, since]);
      for (const row of rows) remote().entry(c, key, row.body);
      return rows.length > 0;
    },
    async hasBlob(key) {
      return (await read('SELECT 1 FROM blobs WHERE key = $1', [key])).length > 0;
    },
  };
  return persistence;
}
