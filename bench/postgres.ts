// The PostgreSQL store (issue 17), on a throwaway cluster with fsync and
// synchronous commits on, as a deployment runs it:
// - PUT versions/s through the service (app.request, one map, one after
//   another) beside a raw loop inserting the same rows with the same driver,
//   and the same PUTs on the memory store (no database at all): the service's
//   own cost per PUT, the most the PostgreSQL figure could reach; and the raw
//   loop again with that cost spent on the CPU before each insert; all of
//   them after 1,000 warm-up writes each, so the figures are a running
//   service's (the first hundreds of PUTs run at a third of the speed);
// - GET map by ID on a replica (50 connections) beside a bare route returning
//   the same bytes;
// - replica start-up over 10,000 maps x 5 versions (openPostgresStore) beside
//   a plain SELECT of the latest versions with the same driver;
// - propagation of a write on replica A to replica B's memory, median and
//   99th percentile, beside the write on A alone (the difference is what
//   propagation adds to a write).
import { Hono } from 'hono';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { parseSettings, type Settings } from '../config/settings.ts';
import { createMemoryLogger } from '../log.ts';
import { createApp } from '../server.ts';
import { canonicalJson } from '../store/canonical-json.ts';
import { createMemoryStore } from '../store/memory.ts';
import { openPostgresStore } from '../store/postgres/adapter.ts';
import type { Store } from '../store/types.ts';
import { noPostgres, startCluster } from '../test/helpers/postgres.ts';
import { listen, requestsPerSecond } from './service.ts';

const PUTS = Number(process.env.BENCH_PUTS ?? 1000);
/** PUTs (and raw inserts) before the clock starts: a running service's code is compiled by then (the first hundreds run slower). */
const WARM_UP = 1000;
const MAPS = 10_000;
const VERSIONS = 5;
const STARTS = 7;
const ROUNDS = 5;
const SAMPLES = 200;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const PASSWORD = 'benchmark password 1';
const quiet = () => undefined;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const mapVersion = (mapId: string, version: number) => ({
  mapId, version, name: `Map ${mapId} v${version}`, lastUpdatedBy: 'admin', lastUpdatedOn: new Date(Date.UTC(2026, 0, 1, 0, version)).toISOString(),
  public: false, change: version === 1 ? 'created' : 'updated', overrides: {},
  configuration: { initialViewStrategy: 'manual', viewport: { center: { lat: 40, lng: -100 }, zoom: 4 }, background: '#ffffff',
    layers: [{ name: 'Core', color: '#1f77b4', datasetId: 'AbCdEf1', layout: 'geographic' }] },
});

export async function benchPostgres(): Promise<string[]> {
  if (noPostgres) return [noPostgres];
  const cluster = await startCluster({ durable: true });
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-pg-'));
  const lines: string[] = [];
  try {
    lines.push(...await puts(await cluster.createDatabase('puts'), dir));
    lines.push(...await startUp(await cluster.createDatabase('startup')));
    lines.push(...await propagation(await cluster.createDatabase('propagation')));
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return lines;
}

const json = { 'content-type': 'application/json' };
const body = (i: number) => JSON.stringify({ name: `Backbone rev ${i}`, overrides: {},
  configuration: { initialViewStrategy: 'manual', viewport: { center: { lat: 39.8, lng: -98.5 }, zoom: 4 }, background: '#f8f8f8', layers: [] } });

/** A service over `store` with one map, warmed up: PUTs of its next versions, one after another. */
async function putter(settings: Settings, store: Store) {
  const app = await createApp({ settings, store, log: createMemoryLogger(), adminPassword: PASSWORD });
  const res = await app.request('/api/v1/auth/token', { method: 'POST', headers: json,
    body: JSON.stringify({ grant_type: 'password', username: 'admin', password: PASSWORD }) });
  const headers = { ...json, authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}` };
  const created = await app.request('/api/v1/map/', { method: 'POST', headers, body: body(0) });
  const id = ((await created.json()) as { mapId: string }).mapId;
  let n = 1;
  const put = async () => {
    // With its Content-Length, as every HTTP client sends a JSON body (app.request's Request has none,
    // which would make the body limit count a stream that no real PUT brings).
    const text = body(n++);
    const answer = await app.request(`/api/v1/map/id/${id}/`, { method: 'PUT',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(text)) }, body: text });
    if (answer.status !== 200) throw new Error(`PUT: ${answer.status} ${await answer.text()}`);
  };
  for (let i = 0; i < WARM_UP; i++) await put();
  /** Versions per second over `count` PUTs. */
  const rate = async (count: number) => {
    const started = performance.now();
    for (let i = 0; i < count; i++) await put();
    return count / ((performance.now() - started) / 1000);
  };
  return { app, headers, id, rate };
}

async function puts(url: string, dir: string): Promise<string[]> {
  const settings = parseSettings({ data: { dir }, store: { backend: 'postgres', postgres: { url } } }, {}, dir);
  const store = await openPostgresStore(url, { log: quiet });
  const memoryStore = createMemoryStore();
  const lines: string[] = [];
  try {
    const { app, headers, id, rate } = await putter(settings, store);
    const inMemory = await putter(settings, memoryStore);
    // Alternating rounds, medians kept: the machine's load moves between the two otherwise. Each raw
    // round inserts, one statement each, the very rows the service stored in the round before it.
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await pool.query('CREATE TABLE raw_entries (LIKE entries INCLUDING ALL)');
    const sample = canonicalJson(store.head('maps', id));
    for (let v = 1; v <= WARM_UP; v++) { // warmed up as the service was, on a key of its own
      await pool.query('INSERT INTO raw_entries (collection, key, version, body) VALUES ($1, $2, $3, $4)', ['maps', `${id}w`, v, sample]);
    }
    const oursRates: number[] = [];
    const rawRates: number[] = [];
    const memoryRates: number[] = [];
    const busyRates: number[] = [];
    const perRound = Math.ceil(PUTS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      oursRates.push(await rate(perRound));
      memoryRates.push(await inMemory.rate(perRound));
      const versions = store.versions('maps', id).slice(-perRound);
      const rows = await Promise.all(versions.map(async (v) => canonicalJson(await store.read('maps', id, v))));
      const started = performance.now();
      for (const [i, text] of rows.entries()) {
        await pool.query('INSERT INTO raw_entries (collection, key, version, body) VALUES ($1, $2, $3, $4)', ['maps', id, versions[i], text]);
      }
      rawRates.push(perRound / ((performance.now() - started) / 1000));
      // The same inserts with the service's own time per PUT (this round's memory-store PUT) spent on the
      // CPU before each: on a small machine a database round trip after busy work takes longer than one
      // in a tight loop, so this is the raw loop a service doing any work per write could at best match.
      const busyMs = 1000 / memoryRates[round];
      const busyStarted = performance.now();
      for (const [i, text] of rows.entries()) {
        const until = performance.now() + busyMs;
        while (performance.now() < until);
        await pool.query('INSERT INTO raw_entries (collection, key, version, body) VALUES ($1, $2, $3, $4)', ['maps', `${id}b`, versions[i], text]); // its own key: the rows above stay
      }
      busyRates.push(perRound / ((performance.now() - busyStarted) / 1000));
    }
    await pool.end();
    const ours = median(oursRates);
    const raw = median(rawRates);
    lines.push(`PUT /api/v1/map/id/{id}/ via app.request (${ROUNDS} rounds of ${perRound} versions of one map, one after another; medians): ${ours.toFixed(0)} versions/s ` +
      `vs raw INSERT loop with pg ${raw.toFixed(0)} rows/s = ${(ours / raw).toFixed(2)}x (target >= 0.5x)`);
    const memory = median(memoryRates);
    lines.push(`  the same PUTs on the memory store (no database: the service's own cost, the most the line above could reach): ${memory.toFixed(0)} versions/s ` +
      `vs the raw INSERT loop = ${(memory / raw).toFixed(2)}x; PostgreSQL store vs memory store = ${(ours / memory).toFixed(2)}x`);
    const busy = median(busyRates);
    lines.push(`  the raw INSERT loop spending the memory-store PUT's time (${(1000 / memory).toFixed(2)} ms) on the CPU before each insert: ${busy.toFixed(0)} rows/s; ` +
      `PUT on PostgreSQL = ${(ours / busy).toFixed(2)}x of it (no target: what the database adds once both do the same work between writes)`);

    const path1 = `/api/v1/map/id/${id}/`;
    const bytes = await (await app.request(path1, { headers })).text();
    const bare = new Hono();
    // The same bytes, answered the fastest way @hono/node-server has (a Response with a plain header object).
    const sameBytes = Buffer.from(bytes);
    bare.get('/one', () => new Response(sameBytes, { status: 200, headers: { 'content-type': 'application/json' } }));
    const service = await listen(app.fetch);
    const baseline = await listen(bare.fetch);
    try {
      // Alternating rounds, medians kept: the machine's load moves between the two otherwise.
      const served: number[] = [];
      const plain: number[] = [];
      for (let round = 0; round < 3; round++) {
        served.push(await requestsPerSecond(service.url + path1, headers, 50, DURATION_S / 2));
        plain.push(await requestsPerSecond(`${baseline.url}/one`, {}, 50, DURATION_S / 2));
      }
      lines.push(`GET /api/v1/map/id/{id}/ on a PostgreSQL replica (50 connections, median of 3 rounds of ${DURATION_S / 2} s): ` +
        `${median(served).toFixed(0)} req/s vs bare route, same bytes ${median(plain).toFixed(0)} req/s = ` +
        `${(median(served) / median(plain)).toFixed(2)}x (target >= 0.7x)`);
    } finally {
      service.close();
      baseline.close();
    }
  } finally {
    await store.close();
    await memoryStore.close();
  }
  return lines;
}

async function startUp(url: string): Promise<string[]> {
  await (await openPostgresStore(url, { log: quiet })).close(); // the schema
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  for (let first = 0; first < MAPS; first += 1000) {
    const keys: string[] = [];
    const versions: number[] = [];
    const bodies: string[] = [];
    for (let i = first; i < first + 1000; i++) {
      const mapId = `m${i.toString(36).padStart(6, '0')}`;
      for (let v = 1; v <= VERSIONS; v++) {
        keys.push(mapId);
        versions.push(v);
        bodies.push(canonicalJson(mapVersion(mapId, v)));
      }
    }
    await pool.query(`INSERT INTO entries (collection, key, version, body)
      SELECT 'maps', * FROM unnest($1::text[], $2::int[], $3::text[])`, [keys, versions, bodies]);
  }
  await pool.query('VACUUM ANALYZE entries');
  await pool.end();
  const ours: number[] = [];
  const plain: number[] = [];
  for (let run = 0; run < STARTS; run++) {
    let started = performance.now();
    const store = await openPostgresStore(url, { log: quiet });
    ours.push(performance.now() - started);
    if (store.heads('maps').length !== MAPS) throw new Error('start-up did not load every map');
    await store.close();
    started = performance.now();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(`SELECT DISTINCT ON (collection, key) collection, key, version, body FROM entries
      ORDER BY collection, key, version DESC`);
    await client.end();
    plain.push(performance.now() - started);
    if (rows.length !== MAPS) throw new Error('the plain SELECT did not read every map');
  }
  return [`replica start-up over ${MAPS} maps x ${VERSIONS} versions (median of ${STARTS}): openPostgresStore ${median(ours).toFixed(0)} ms ` +
    `vs plain SELECT of the latest versions with pg ${median(plain).toFixed(0)} ms = ${(median(ours) / median(plain)).toFixed(2)}x (target <= 1.5x)`];
}

async function propagation(url: string): Promise<string[]> {
  const a = await openPostgresStore(url, { log: quiet });
  const b = await openPostgresStore(url, { log: quiet });
  const seen = (version: number) => new Promise<void>((resolve) => {
    const poll = () => (b.head('maps', 'prop')?.version === version ? resolve() : setImmediate(poll));
    poll();
  });
  const ours: number[] = [];
  const writes: number[] = [];
  try {
    for (let v = 1; v <= SAMPLES; v++) {
      const started = performance.now();
      await a.append('maps', 'prop', () => ({ ...mapVersion('prop', v) }));
      writes.push(performance.now() - started);
      await seen(v);
      ours.push(performance.now() - started);
    }
  } finally {
    await a.close();
    await b.close();
  }
  const line = (what: string, f: (xs: number[]) => number) =>
    `propagation A -> B, ${what} (${SAMPLES} writes): from the write on A until B serves it ${f(ours).toFixed(2)} ms ` +
    `vs the write on A alone (until acknowledged) ${f(writes).toFixed(2)} ms = ${(f(ours) / f(writes)).toFixed(2)}x`;
  return [line('median', median), line('99th percentile', (xs) => percentile(xs, 0.99))];
}
