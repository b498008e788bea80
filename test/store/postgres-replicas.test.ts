// Replicas over one PostgreSQL database (docs/api.md, "Several replicas"):
// what one writes the others serve, version numbers are never handed out
// twice, an acknowledged write survives a replica killed mid-flight and a
// database restart, and with the database gone writes answer 503 while reads
// go on from memory. Two replicas run in this process over their own store
// instances; the killed one is a child process.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openPostgresStore } from '../../store/postgres/adapter.ts';
import { noPostgres, startCluster, type Cluster } from '../helpers/postgres.ts';
import { startReplica, type Replica } from '../helpers/replica.ts';
import { sampleMap } from '../routes/fixtures.ts';
import { runTs, waitForOutput } from './child.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it holds. What it waits for (another replica's change
 * notification) comes when it comes: under load that was
 * more than the second these waits once allowed, and the test failed with
 * nothing wrong. No deadline here but a guard against a hang, far beyond any
 * load: the test asserts that it happens, not how fast.
 */
async function eventually(probe: () => Promise<boolean>): Promise<void> {
  const guard = Date.now() + HANG_MS;
  while (!(await probe())) {
    if (Date.now() > guard) throw new Error(`still not so after ${HANG_MS / 1000} s`);
    await sleep(5);
  }
}
const HANG_MS = 120_000;

describe('replicas over one PostgreSQL database', { skip: noPostgres }, () => {
  let cluster: Cluster;
  let url: string;
  let a: Replica;
  let b: Replica;
  let token: string;

  const createMap = async (on: Replica, name: string) => {
    const res = await on.request('/api/v1/map/', { method: 'POST', token, json: sampleMap(name) });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { mapId: string }).mapId;
  };
  const getMap = async (on: Replica, id: string, version?: number) =>
    on.request(`/api/v1/map/id/${id}/${version ? `?version=${version}` : ''}`, { token });

  before(async () => {
    cluster = await startCluster();
    url = await cluster.createDatabase();
    // Both at once on an empty database: one applies the migrations while the other waits, and
    // between them one first admin and one signing key are created.
    [a, b] = await Promise.all([startReplica(url), startReplica(url)]);
    token = await a.token();
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await cluster?.stop();
  });

  it('accepts on B a token issued by A, signs in on B a user created on A, and revokes on A what B revoked', async () => {
    const res = await b.request('/api/v1/current_user', { token });
    assert.equal(res.status, 200, await res.clone().text());
    const password = 'another long passphrase';
    const created = await a.request('/api/v1/user', { method: 'POST', token, json: { username: 'shared', password, scope: ['svc:maps:read'] } });
    assert.equal(created.status, 201, await created.clone().text());
    const login = (on: Replica, pw: string) => on.request('/api/v1/auth/token', { method: 'POST', json: { grant_type: 'password', username: 'shared', password: pw } });
    await eventually(async () => (await login(b, password)).status === 200);
    const fromB = ((await (await login(b, password)).json()) as { access_token: string }).access_token;
    assert.equal((await a.request('/api/v1/current_user', { token: fromB })).status, 200);
    const changed = await b.request('/api/v1/user/shared/set_password', { method: 'PUT', token, json: { password: 'a third long passphrase' } });
    assert.equal(changed.status, 200);
    await eventually(async () => (await a.request('/api/v1/current_user', { token: fromB })).status === 401);
  });

  it('counts failed logins on every replica: 5 on A and 5 on B use up the pair limit of 10 on both', async () => {
    const password = 'the right long passphrase';
    const created = await a.request('/api/v1/user', { method: 'POST', token, json: { username: 'guessed', password, scope: ['svc:maps:read'] } });
    assert.equal(created.status, 201);
    const login = (on: Replica, pw: string) => on.request('/api/v1/auth/token', { method: 'POST', json: { grant_type: 'password', username: 'guessed', password: pw } });
    await eventually(async () => (await login(b, password)).status === 200);
    for (let i = 0; i < 10; i++) assert.equal((await login(i % 2 ? b : a, `wrong guess ${i}`)).status, 400); // invalid_grant
    // Each failure is answered once its counts are stored: the database holds all ten now.
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      assert.equal((await sql.query("SELECT count FROM shared_counters WHERE key LIKE 'pair:guessed%'")).rows[0]?.count, 10);
    } finally {
      await sql.end();
    }
    for (const replica of [a, b]) {
      const res = await login(replica, password);
      assert.equal(res.status, 429, 'the pair is blocked, the right password too');
      assert.ok(Number(res.headers.get('retry-after')) > 0);
    }
  });

  it('shares known addresses: signed in on A from home, the user gets in on B from home while strangers used up the username\'s limit', async () => {
    const password = 'a roaming long passphrase';
    const created = await a.request('/api/v1/user', { method: 'POST', token, json: { username: 'roaming', password, scope: ['svc:maps:read'] } });
    assert.equal(created.status, 201);
    const login = (on: Replica, pw: string, remoteAddress: string) =>
      on.request('/api/v1/auth/token', { method: 'POST', remoteAddress, json: { grant_type: 'password', username: 'roaming', password: pw } });
    const home = '203.0.113.77';
    await eventually(async () => (await login(a, password, home)).status === 200);
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      // A's mark is in the database (the sign-in was answered once it was stored, as failures are).
      assert.equal((await sql.query("SELECT 1 FROM shared_counters WHERE key LIKE 'known:roaming%'")).rowCount, 1);
    } finally {
      await sql.end();
    }
    // 50 guesses on B from 50 addresses: the per-username limit (50 an hour) is used up.
    for (let i = 0; i < 50; i++) assert.equal((await login(b, `guess ${i}`, `198.51.100.${i}`)).status, 400);
    assert.equal((await login(b, password, '198.51.100.200')).status, 429, 'a new address is blocked');
    assert.equal((await login(b, password, home)).status, 200, 'the address known from A is not');
  });

  it('serves on B a map written on A, in its list too, and the next version', async () => {
    const listed = async () => (await (await b.request('/api/v1/maps', { token })).text());
    await listed(); // B's list of maps is cached now
    const id = await createMap(a, 'Propagated');
    await eventually(async () => (await getMap(b, id)).status === 200);
    assert.ok((await listed()).includes(id), "B's list shows it");
    const put = await a.request(`/api/v1/map/id/${id}/`, { method: 'PUT', token, json: sampleMap('Propagated v2') });
    assert.equal(put.status, 200);
    const v2 = await put.text();
    await eventually(async () => (await (await getMap(b, id)).text()) === v2);
  });

  it('serves on B, and updates on B, a map whose creation B has not heard of yet (it asks the database before answering 404)', async () => {
    const id = await createMap(a, 'Not heard of');
    await eventually(async () => (await getMap(b, id)).status === 200);
    // Another replica's map whose change notification has not reached B: its row is in the database, nothing told B.
    const unheard = 'Unheard';
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      await sql.query(`INSERT INTO entries (collection, key, version, body)
        SELECT collection, $2, version, replace(body, $1, $2) FROM entries WHERE collection = 'maps' AND key = $1`, [id, unheard]);
    } finally {
      await sql.end();
    }
    assert.equal(b.store.head('maps', unheard), undefined, 'B has not heard of it');
    const got = await getMap(b, unheard);
    assert.equal(got.status, 200, await got.clone().text());
    assert.equal(((await got.json()) as { mapId: string; name: string }).name, 'Not heard of');
    const put = await a.request(`/api/v1/map/id/${unheard}/`, { method: 'PUT', token, json: sampleMap('Updated where unknown') });
    assert.equal(put.status, 200, await put.clone().text());
    assert.equal(((await put.json()) as { version: number }).version, 2);
    // An ID the database does not hold either is still 404, for reads and writes alike.
    assert.equal((await getMap(b, 'Nowhere')).status, 404);
    assert.equal((await b.request('/api/v1/map/id/Nowhere/', { method: 'PUT', token, json: sampleMap('nowhere') })).status, 404);
  });

  it('numbers 100 concurrent PUTs alternating between A and B 2..101, each once, as both see it', async () => {
    const id = await createMap(a, 'Contended');
    await eventually(async () => (await getMap(b, id)).status === 200);
    const results = await Promise.all(Array.from({ length: 100 }, async (_, i) => {
      const res = await (i % 2 ? b : a).request(`/api/v1/map/id/${id}/`, { method: 'PUT', token, json: sampleMap(`put ${i}`) });
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as { version: number; name: string };
    }));
    const versions = results.map((r) => r.version).sort((x, y) => x - y);
    assert.deepEqual(versions, Array.from({ length: 100 }, (_, i) => i + 2));
    for (const replica of [a, b]) {
      await eventually(async () => ((await (await getMap(replica, id)).json()) as { version: number }).version === 101);
      for (const r of results.filter((_, i) => i % 10 === 0)) {
        const stored = (await (await getMap(replica, id, r.version)).json()) as { name: string };
        assert.equal(stored.name, r.name, `version ${r.version} on ${replica === a ? 'A' : 'B'}`);
      }
    }
  });

  it('applies If-Match across replicas: an ETag read on A is stale on B once B wrote', async () => {
    const id = await createMap(a, 'Guarded');
    await eventually(async () => (await getMap(b, id)).status === 200);
    const etag = (await getMap(a, id)).headers.get('etag')!;
    assert.equal((await b.request(`/api/v1/map/id/${id}/`, { method: 'PUT', token, json: sampleMap('B first') })).status, 200);
    const stale = await a.request(`/api/v1/map/id/${id}/`, { method: 'PUT', token, json: sampleMap('A late'), headers: { 'If-Match': etag } });
    assert.equal(stale.status, 412);
  });

  it('keeps every write acknowledged by a replica killed with SIGKILL during 200 in flight, and serves them after its restart', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mts-replica-child-'));
    // Replicas behind one load balancer share the public URL: it is the tokens' issuer.
    const env = { PORT: '0', HOST: '127.0.0.1', MTS_BASE_URL: 'http://localhost:8080', MTS_DATA_DIR: dir, MTS_STORE_BACKEND: 'postgres', MTS_DATABASE_URL: url };
    const LISTENING = /bound to 127\.0\.0\.1:(\d+)/;
    try {
      const child = runTs('server.ts', [], env);
      const port = Number((await waitForOutput(child, LISTENING))[1]);
      const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => createMap(b, `killed ${i}`)));
      await eventually(async () => (await getMap(a, ids[9])).status === 200);
      const acknowledged: Array<{ id: string; version: number; text: string }> = [];
      const failures: string[] = [];
      const writes = Array.from({ length: 200 }, async (_, i) => {
        const id = ids[i % ids.length];
        try {
          const res = await fetch(`http://127.0.0.1:${port}/api/v1/map/id/${id}/`, {
            method: 'PUT', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(sampleMap(`write ${i}`)),
          });
          const text = await res.text();
          if (res.ok) acknowledged.push({ id, version: (JSON.parse(text) as { version: number }).version, text });
          else failures.push(`${res.status} ${text.slice(0, 200)}`);
        } catch (error) {
          failures.push(String((error as Error).cause ?? error)); // the connection died with the process: not acknowledged
        }
      });
      await eventually(async () => acknowledged.length >= 20).catch((e) => {
        throw new Error(`${e.message}: ${acknowledged.length} acknowledged, ${failures.length} failed (${failures[0]}); ${child.stdout()} ${child.stderr()}`);
      });
      child.proc.kill('SIGKILL');
      await Promise.all(writes);
      await child.exited;
      assert.ok(acknowledged.length >= 20 && failures.length > 0, `some writes were acknowledged (${acknowledged.length}), some cut off (${failures.length})`);
      for (const w of acknowledged) {
        await eventually(async () => (await getMap(b, w.id, w.version)).status === 200);
        assert.equal(await (await getMap(b, w.id, w.version)).text(), w.text, `${w.id} v${w.version} on B`);
      }
      // The killed replica started again (here in this process: a fresh store instance reads the database as a restart does).
      const restarted = await startReplica(url);
      try {
        for (const w of acknowledged) assert.equal(await (await getMap(restarted, w.id, w.version)).text(), w.text, `${w.id} v${w.version} after the restart`);
      } finally {
        await restarted.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers writes 503 within 5 s while PostgreSQL restarts, keeps reads served, loses nothing acknowledged, and recovers by itself', async () => {
    const id = await createMap(a, 'Restarted');
    await eventually(async () => (await getMap(b, id)).status === 200);
    const acknowledged: Array<{ version: number; text: string }> = [];
    const statuses = new Set<number>();
    let slowest = 0;
    let reads = 0;
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const started = Date.now();
        const res = await (i % 2 ? b : a).request(`/api/v1/map/id/${id}/`, { method: 'PUT', token, json: sampleMap(`restart ${i}`) });
        slowest = Math.max(slowest, Date.now() - started);
        statuses.add(res.status);
        const text = await res.text();
        if (res.status === 500) console.error(`a write answered 500: ${(i % 2 ? b : a).log.lines.slice(-3).join('\n')}`);
        if (res.status === 200) acknowledged.push({ version: (JSON.parse(text) as { version: number }).version, text });
        else await sleep(20);
      }
    })();
    const reader = (async () => {
      while (!stop) {
        for (const replica of [a, b]) {
          const res = await getMap(replica, id);
          assert.equal(res.status, 200, `a read failed: ${await res.text()}`);
          reads++;
        }
        await sleep(10);
      }
    })();
    await eventually(async () => acknowledged.length >= 5);
    await cluster.stopServer();
    await eventually(async () => statuses.has(503));
    const health = (await (await a.request('/healthz')).json()) as { status: string };
    assert.equal(health.status, 'degraded');
    // A replica started now waits for the database, saying so.
    const lines: string[] = [];
    const late = openPostgresStore(url, { log: (m) => lines.push(m) });
    await eventually(async () => lines.some((l) => /waiting for postgresql:\/\/127\.0\.0\.1:\d+\/\w+/.test(l)));
    const before = acknowledged.length;
    await cluster.startServer();
    await eventually(async () => acknowledged.length > before + 5);
    const third = await late;
    stop = true;
    await Promise.all([writer, reader]);
    assert.ok(reads > 10, 'reads went on');
    assert.deepEqual([...statuses].sort(), [200, 503], 'writes answered 200 or 503, nothing else');
    assert.ok(slowest < 5000, `every write answered within 5 s (slowest ${slowest} ms)`);
    await eventually(async () => ((await (await b.request('/healthz')).json()) as { status: string }).status === 'ok');
    for (const w of acknowledged) {
      assert.equal(await (await getMap(b, id, w.version)).text(), w.text, `v${w.version} on B`);
      assert.equal(JSON.stringify(await third.read('maps', id, w.version)) !== undefined, true);
    }
    assert.equal(third.head('maps', id)?.version, acknowledged.at(-1)!.version);
    await third.close();
  });
});
