// store/postgres/migrations.ts. Migration 3: the shared entries and counters
// of a database at migration 2 (sign-ins in progress, login counts) survive
// the move to the store's generic form, and the built-in provider finds them
// under the names it gives its lookup values (auth/oidc/shared-form.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { fromShared } from '../../auth/oidc/shared-form.ts';
import { canonicalJson } from '../../store/canonical-json.ts';
import { openPostgresStore } from '../../store/postgres/adapter.ts';
import { migrate } from '../../store/postgres/migrations.ts';
import type { Outline } from '../../store/types.ts';
import { noPostgres, startCluster, type Cluster } from '../helpers/postgres.ts';

describe('postgres migration 3: shared entries and counters in the store\'s own terms', { skip: noPostgres }, () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster(); });
  after(() => cluster?.stop());

  it('keeps the rows of migration 2: entries found by their former fields, the consumed mark moved, counts kept', async () => {
    const url = await cluster.createDatabase();
    const pool = new pg.Pool({ connectionString: url });
    const soon = Math.floor(Date.now() / 1000) + 600;
    try {
      await migrate(pool, () => undefined, 2);
      await pool.query(`INSERT INTO shared_entries (kind, id, payload, expires_at, uid, user_code, grant_id, account_id) VALUES
        ('Interaction', 'i1', '{"uid":"u1","n":1}', $1, 'u1', NULL, NULL, NULL),
        ('AuthorizationCode', 'c1', '{"grantId":"g1","accountId":"a1","consumed":1234}', $1, NULL, NULL, 'g1', 'a1'),
        ('DeviceCode', 'd1', '{"userCode":"UC-1"}', NULL, NULL, 'UC-1', NULL, NULL)`, [soon]);
      await pool.query("INSERT INTO login_failures (key, failures, reset_at) VALUES ('pair:x', 4, now() + interval '1 minute')");
    } finally {
      await pool.end();
    }

    const lines: string[] = [];
    const store = await openPostgresStore(url, { log: (line) => lines.push(line) });
    try {
      assert.ok(lines.some((l) => /applied migration 3/.test(l)), lines.join('\n'));
      const entries = store.sharedEntries!;
      assert.deepEqual(await entries.findBy('Interaction', 'uid', 'u1'), { payload: { uid: 'u1', n: 1 }, exp: soon, lookup: { uid: 'u1' } });
      assert.deepEqual(fromShared(await entries.findBy('DeviceCode', 'userCode', 'UC-1'))?.payload, { userCode: 'UC-1' });
      const code = await entries.get('AuthorizationCode', 'c1');
      assert.equal(code?.consumed, 1234);
      assert.deepEqual(code?.payload, { grantId: 'g1', accountId: 'a1' }, 'the mark left the payload');
      assert.deepEqual(fromShared(code)?.payload, { grantId: 'g1', accountId: 'a1', consumed: 1234 }, 'and the provider sees it there again');
      assert.equal(await entries.consume('AuthorizationCode', 'c1', 5), 'reused');
      await entries.deleteWhere('accountId', 'a1');
      assert.equal(await entries.get('AuthorizationCode', 'c1'), undefined);
      assert.equal((await store.counters!.get(['pair:x'])).get('pair:x')?.count, 4);
      assert.equal((await store.counters!.add('pair:x', 1, 60_000)).count, 5);
    } finally {
      await store.close();
    }
  });
});

// Migration 4: each entry's outline in its row. Rows of a database at migration 3 have none: they list right, their
// outlines are made from the bodies once and stored; the previous release's mts_append still writes (a rolling upgrade).
describe('postgres migration 4: the outlines of entries stored before it', { skip: noPostgres }, () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster(); });
  after(() => cluster?.stop());

  it('makes the outlines of older rows from their bodies once, stores them, and keeps the previous release writing', async () => {
    const url = await cluster.createDatabase();
    const pool = new pg.Pool({ connectionString: url });
    const body = (version: number, name: string) => canonicalJson({ mapId: 'm1', name, version, configuration: { layers: [] } });
    const outlineOf = (version: number, name: string) => ({ fields: { mapId: 'm1', name, version }, omitted: ['configuration'] });
    const plain = (outlines: ReadonlyMap<number, Outline>) => [...outlines].sort(([a], [b]) => a - b).map(([n, o]) => [n, { fields: { ...o.fields }, omitted: [...o.omitted] }]);
    const missing = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM entries WHERE outline IS NULL')).rows[0].n;
    try {
      await migrate(pool, () => undefined, 3);
      for (const [v, name] of [[1, 'Core'], [2, 'Edge']] as const) {
        await pool.query('SELECT mts_append($1, $2, $3, $4, $5)', ['old-release', 'maps', 'm1', v, body(v, name)]);
      }

      const lines: string[] = [];
      let store = await openPostgresStore(url, { log: (line) => lines.push(line) });
      try {
        assert.ok(lines.some((l) => /applied migration 4/.test(l)), lines.join('\n'));
        assert.equal(await missing(), 2, 'the migration itself rewrites no row');
        assert.deepEqual(plain(await store.outlines('maps', 'm1')), [[1, outlineOf(1, 'Core')], [2, outlineOf(2, 'Edge')]]);
        assert.equal(await missing(), 0, 'made once, then stored');
        // A replica of the previous release, still running during the upgrade, appends as it did.
        const { rows } = await pool.query('SELECT mts_append($1, $2, $3, $4, $5) AS ok', ['old-release', 'maps', 'm1', 3, body(3, 'Old')]);
        assert.equal(rows[0].ok, true);
        await store.append('maps', 'm1', (head) => ({ ...JSON.parse(body(4, 'New')), version: (head?.version ?? 0) + 1 }));
      } finally {
        await store.close();
      }
      assert.equal(await missing(), 1, 'the entry of the previous release has none; this release stored its own');
      store = await openPostgresStore(url, { log: () => undefined });
      try {
        assert.deepEqual(plain(await store.outlines('maps', 'm1')),
          [[1, outlineOf(1, 'Core')], [2, outlineOf(2, 'Edge')], [3, outlineOf(3, 'Old')], [4, outlineOf(4, 'New')]]);
        assert.equal(await missing(), 0);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
    }
  });
});
