// How a PostgreSQL replica recovers what it missed (docs/architecture.md,
// "Several replicas"): changes pruned before it read them make it load
// everything again, and a write whose COMMIT reply was lost (the outcome
// unknown to it) is read back from the database instead of staying missing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ServiceError } from '../../errors.ts';
import { openPostgresStore } from '../../store/postgres/adapter.ts';
import type { Store } from '../../store/types.ts';
import { noPostgres, startCluster, type Cluster } from '../helpers/postgres.ts';

/** Resolves once `probe` holds, checking after each turn of the event loop; fails after `ms`. */
async function until(ms: number, probe: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const entry = (version: number, name: string) => ({ version, name });

describe('PostgreSQL replicas catching up', { skip: noPostgres }, () => {
  let cluster: Cluster;
  let sql: pg.Client;
  const stores: Store[] = [];
  const open = async (url: string, lines: string[] = []) => {
    const store = await openPostgresStore(url, { log: (m) => lines.push(m) });
    stores.push(store);
    return store;
  };

  before(async () => {
    cluster = await startCluster();
    sql = new pg.Client({ connectionString: cluster.url('postgres') });
    await sql.connect();
  });
  after(async () => {
    for (const store of stores) await store.close();
    await sql?.end();
    await cluster?.stop();
  });

  it('starts from what the database holds: entry numbers with and without gaps, latest entries, documents, blobs, an unreadable entry', async () => {
    const url = await cluster.createDatabase('snapshot');
    const first = await open(url);
    await first.append('maps', 'plain1', () => entry(1, 'one'));
    await first.append('maps', 'plain1', () => entry(2, 'two'));
    await first.update('private', 'users', () => ({ admin: { scopes: ['read'] } }));
    const blob = await first.put({ rows: [1, 2] });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      // Numbers with gaps (as an imported folder may hold) and a latest entry that is not JSON, written behind the store's back.
      await db.query(`INSERT INTO entries (collection, key, version, body) VALUES
        ('datasets', 'gaps1', 7, '{"version": 7, "name": "seven"}'), ('datasets', 'gaps1', 2, '{"version": 2, "name": "two"}'),
        ('datasets', 'gaps1', 3, '{"version": 3, "name": "three"}'), ('templates', 'broken1', 1, '{"version": 1'),
        ('templates', 'later1', 4, '{"version": 4, "name": "four"}'), ('templates', 'later1', 5, '{"version": 5, "name": "five"}')`);
    } finally {
      await db.end();
    }
    const store = await open(url);
    assert.deepEqual(store.versions('maps', 'plain1'), [1, 2]);
    assert.deepEqual(store.head('maps', 'plain1'), entry(2, 'two'));
    assert.ok(Object.isFrozen(store.head('maps', 'plain1')));
    assert.deepEqual(store.versions('datasets', 'gaps1'), [2, 3, 7]);
    assert.deepEqual(store.head('datasets', 'gaps1'), entry(7, 'seven'));
    assert.deepEqual(store.versions('templates', 'later1'), [4, 5]);
    assert.deepEqual(await store.read('datasets', 'gaps1', 3), entry(3, 'three'));
    assert.deepEqual(store.get('private', 'users'), { admin: { scopes: ['read'] } });
    assert.deepEqual(await store.fetch(blob), { rows: [1, 2] });
    assert.throws(() => store.head('templates', 'broken1'), /templates\/broken1\/v1 \(table entries\) is not valid JSON/);
    assert.ok(store.problems().some((p) => p.key === 'broken1' && p.where === 'templates/broken1/v1 (table entries)'));
  });

  it('prunes changes every replica has seen without disturbing it, and makes one that missed pruned changes load everything again', async () => {
    const url = await cluster.createDatabase('pruned');
    const [a, bLines] = [await open(url), [] as string[]];
    const b = await open(url, bLines);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      await a.append('maps', 'seen1', () => entry(1, 'seen'));
      await until(2000, () => b.head('maps', 'seen1') !== undefined);
      // Pruning what B has seen: B goes on from the notifications as before.
      await db.query("SELECT mts_prune('0', 10000)");
      await a.append('maps', 'seen1', () => entry(2, 'seen again'));
      await until(2000, () => b.head('maps', 'seen1')?.version === 2);
      assert.ok(!bLines.some((l) => /loading everything again/.test(l)), bLines.join('\n'));

      // A change B never heard of (no notification: as if B's connection were lost meanwhile), then pruned.
      await db.query(`INSERT INTO entries (collection, key, version, body) VALUES ('maps', 'missed1', 1, $1), ('maps', 'missed1', 2, $2)`,
        [JSON.stringify(entry(1, 'missed')), JSON.stringify(entry(2, 'missed twice'))]);
      await db.query("INSERT INTO changes (origin, kind, collection, key, version) VALUES ('elsewhere', 'entry', 'maps', 'missed1', 2)");
      const horizon = (await db.query<{ h: string }>("SELECT mts_prune('0', 10000) AS h")).rows[0].h;
      assert.equal((await db.query('SELECT count(*)::int AS n FROM changes')).rows[0].n, 0, 'every change older than the window is gone');
      assert.ok(Number(horizon) > 0);
      // The next change B hears of shows the gap: it loads everything again, and so has the missed map with its history.
      await a.append('maps', 'after1', () => entry(1, 'after the gap'));
      await until(2000, () => b.head('maps', 'after1') !== undefined && b.head('maps', 'missed1') !== undefined);
      assert.deepEqual(b.head('maps', 'missed1'), entry(2, 'missed twice'));
      assert.deepEqual(b.versions('maps', 'missed1'), [1, 2]);
      assert.deepEqual(await b.read('maps', 'missed1', 1), entry(1, 'missed'));
      assert.deepEqual(b.versions('maps', 'seen1'), [1, 2], 'what B held stays');
      assert.ok(bLines.some((l) => /pruned before this replica read them: loading everything again/.test(l)), bLines.join('\n'));
      // And it follows changes as before afterwards.
      await a.append('maps', 'after1', () => entry(2, 'later'));
      await until(2000, () => b.head('maps', 'after1')?.version === 2);

      // Pruning also drops expired sign-ins in progress and ended login counts, nothing live.
      await db.query(`INSERT INTO shared_entries (kind, id, payload, expires_at) VALUES
        ('Interaction', 'expired', '{}', 1), ('Interaction', 'live', '{}', extract(epoch FROM now())::bigint + 600)`);
      await db.query(`INSERT INTO shared_counters (key, count, reset_at) VALUES
        ('pair:ended', 3, now() - interval '1 second'), ('pair:running', 3, now() + interval '1 minute')`);
      // A replica started when every change is pruned starts from the horizon, with nothing to load again.
      await db.query("SELECT mts_prune('0', 10000)");
      assert.deepEqual((await db.query('SELECT id FROM shared_entries')).rows, [{ id: 'live' }]);
      assert.deepEqual((await db.query('SELECT key FROM shared_counters')).rows, [{ key: 'pair:running' }]);
      const cLines: string[] = [];
      const c = await open(url, cLines);
      assert.deepEqual(c.head('maps', 'after1'), entry(2, 'later'));
      await a.append('maps', 'after1', () => entry(3, 'seen by the new one'));
      await until(2000, () => c.head('maps', 'after1')?.version === 3 && b.head('maps', 'after1')?.version === 3);
      assert.ok(!cLines.some((l) => /loading everything again/.test(l)), cLines.join('\n'));
    } finally {
      await db.end();
    }
  });

  it('reads back a write whose COMMIT went through but whose reply was lost: 503 to the caller, then served as stored', async () => {
    const url = await cluster.createDatabase('ambiguous');
    await (await openPostgresStore(url, { log: () => undefined })).close(); // the schema, before commits may wait
    // Commits in this database wait for a standby that never comes: committed locally, not yet answered.
    await sql.query('ALTER DATABASE ambiguous SET synchronous_commit = on');
    await sql.query("ALTER SYSTEM SET synchronous_standby_names = 'nobody'");
    await sql.query('SELECT pg_reload_conf()');
    try {
      const store = await open(url);
      const writing = store.append('maps', 'doubt1', () => entry(1, 'in doubt'));
      // The fault: the connection ends while the COMMIT waits for its reply.
      let waiting: number | undefined;
      await until(3000, async () => {
        const { rows } = await sql.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = 'ambiguous' AND wait_event = 'SyncRep'");
        waiting = rows[0]?.pid;
        return waiting !== undefined;
      });
      await sql.query('SELECT pg_terminate_backend($1)', [waiting]);
      const failed = await writing.then(() => undefined, (error: unknown) => error);
      assert.ok(failed instanceof ServiceError && failed.status === 503, `503, got ${String(failed)}`);
      assert.match(failed.message, /may or may not have been saved/);
      // It was stored: the replica reads the key back instead of keeping the view it had before the write.
      await until(2000, () => store.head('maps', 'doubt1') !== undefined);
      assert.deepEqual(store.head('maps', 'doubt1'), entry(1, 'in doubt'));
      assert.deepEqual(store.versions('maps', 'doubt1'), [1]);
    } finally {
      await sql.query('ALTER SYSTEM RESET synchronous_standby_names');
      await sql.query('SELECT pg_reload_conf()');
    }
  });
});
