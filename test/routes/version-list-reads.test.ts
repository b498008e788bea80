// Filtered lists of older versions read only their page (docs/api.md,
// Paging): filters, counts and sort keys are judged on the outline the store
// keeps of each version beside it, so X-Total-Count over a long history
// costs no version read, after a restart too. Reads are counted at the file
// system, and on PostgreSQL at the driver.
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { noPostgres, startCluster, type Cluster } from '../helpers/postgres.ts';
import { startReplica, type Replica } from '../helpers/replica.ts';
import { spyFs } from '../store/fs-spy.ts';
import { body, createMap, sampleMap, start, steppingClock, type Started } from './fixtures.ts';

const VERSIONS = 60;
/** Versions 2..60: every third is named "Core", the others "Edge"; version 1 is "Backbone". */
const nameOf = (v: number) => (v === 1 ? 'Backbone' : v % 3 === 0 ? 'Core' : 'Edge');
const CORE = Array.from({ length: VERSIONS }, (_, i) => i + 1).filter((v) => nameOf(v) === 'Core');

let t: Started;
let mapId: string;
const versionReads: string[] = [];
/** A file system that notes every version file read. */
const counting = () => spyFs((op, file) => {
  if (op === 'readFile' && /^v\d+\.json$/.test(path.basename(file))) versionReads.push(file);
}).fs;

before(async () => {
  t = await start({ storeOptions: { fs: counting() } });
  mapId = (await createMap(t, nameOf(1))).mapId;
  for (let v = 2; v <= VERSIONS; v++) {
    const res = await t.request(`/api/v1/map/id/${mapId}/`, { method: 'PUT', token: t.write, json: sampleMap(nameOf(v)) });
    assert.equal(res.status, 200);
  }
});
after(async () => { await t.close(true); });

describe('GET /api/v1/maps/?version=all with filters', () => {
  for (const [query, expected] of [
    ['name=Core&limit=5', CORE.slice(0, 5)],
    ['name=Core&limit=5&offset=5', CORE.slice(5, 10)],
    ['name=Core&sort=-version&limit=4', [...CORE].reverse().slice(0, 4)],
    ['name=Core&name=Backbone&limit=3', [1, ...CORE].slice(0, 3)],
    [`lastUpdatedBy=nobody&limit=5`, []],
  ] as const) {
    it(`${query}: the right count and page, reading at most the page's versions`, async () => {
      versionReads.length = 0;
      const res = await t.request(`/api/v1/maps/?version=all&fields=version,name&${query}`, { token: t.read });
      assert.equal(res.status, 200);
      const items = await body<Array<{ version: number; name: string }>>(res);
      const total = query.startsWith('lastUpdatedBy') ? 0 : query.includes('Backbone') ? CORE.length + 1 : CORE.length;
      assert.equal(res.headers.get('x-total-count'), String(total));
      assert.deepEqual(items.map((i) => i.version), expected);
      assert.ok(items.every((i) => i.name === nameOf(i.version)));
      assert.ok(versionReads.length <= expected.length, `${versionReads.length} version files read for a page of ${expected.length}`);
    });
  }
});

describe('GET /api/v1/public/output/map/{mapId}/svg/?at=', () => {
  it('finds the public version current then on the outlines: one version read however many private ones lie between', async () => {
    const noLayers = (name: string) => sampleMap(name, { configuration: { ...sampleMap().configuration, layers: [] } });
    const { mapId: id } = await createMap(t, 'Published', { configuration: noLayers('x').configuration });
    const write = async (method: string, url: string, json?: unknown) => {
      const res = await t.request(url, { method, token: t.all, json });
      assert.ok(res.status < 300, await res.clone().text());
      return body<{ version: number; lastUpdatedOn: string }>(res);
    };
    const published = await write('POST', `/api/v1/map/id/${id}/publish/`);
    await write('POST', `/api/v1/map/id/${id}/unpublish/`);
    let last = published;
    for (let i = 0; i < 40; i++) last = await write('PUT', `/api/v1/map/id/${id}/`, noLayers(`Private ${i}`));
    await write('POST', `/api/v1/map/id/${id}/publish/`);
    // Nothing of the map's older versions in memory; the new app's clock an hour on (an instant of its past is asked).
    await t.close(false);
    t = await start({ dir: t.dir, storeOptions: { fs: counting() }, now: steppingClock(new Date(Date.parse(last.lastUpdatedOn) + 3_600_000).toISOString()) });
    versionReads.length = 0;
    const res = await t.request(`/api/v1/public/output/map/${id}/svg/?at=${encodeURIComponent(last.lastUpdatedOn)}`);
    assert.equal(res.status, 200, await res.clone().text());
    const read = versionReads.filter((f) => f.includes(id)).map((f) => path.basename(f));
    assert.deepEqual([...new Set(read)], [`v${published.version}.json`], `the version stored public then, only (read ${read.length} files)`);
  });
});

/** The first filtered page of 5 after a restart: right, and how many version files it read. */
async function firstPageReads(): Promise<number> {
  const url = '/api/v1/maps/?version=all&fields=version&name=Core&limit=5';
  versionReads.length = 0;
  const res = await t.request(url, { token: t.read });
  assert.equal(res.headers.get('x-total-count'), String(CORE.length));
  assert.deepEqual((await body(res)).map((i: { version: number }) => i.version), CORE.slice(0, 5));
  return new Set(versionReads).size;
}

const restart = async () => {
  await t.close(false);
  t = await start({ dir: t.dir, storeOptions: { fs: counting() } });
};

describe('after a restart (a new app on the same data folder)', () => {
  it('a filtered page of 5 reads at most its own versions: the outlines were stored with them', async () => {
    await restart();
    const reads = await firstPageReads();
    assert.ok(reads <= 5, `${reads} version files read for a page of 5`);
    const next = await t.request('/api/v1/maps/?version=all&fields=version&name=Core&limit=5&offset=5', { token: t.read });
    assert.equal(next.headers.get('x-total-count'), String(CORE.length));
    assert.deepEqual((await body(next)).map((i: { version: number }) => i.version), CORE.slice(5, 10));
  });

  it('a page of a history is answered from the outlines, reading no version', async () => {
    await restart();
    versionReads.length = 0;
    const res = await t.request(`/api/v1/map/id/${mapId}/history/?limit=20&offset=10`, { token: t.read });
    assert.equal(res.headers.get('x-total-count'), String(VERSIONS));
    const items = await body<Array<{ version: number; summary: string; lastUpdatedBy: string; lastUpdatedOn: string }>>(res);
    assert.deepEqual(items.map((i) => i.version), Array.from({ length: 20 }, (_, i) => VERSIONS - 10 - i));
    assert.ok(items.every((i) => i.lastUpdatedBy === 'admin' && /^2026-/.test(i.lastUpdatedOn) && i.summary.length > 0));
    assert.deepEqual(versionReads, []);
  });

  it('a folder written before outlines were kept: the first list reads each older version once and keeps their outlines', async () => {
    await t.close(false);
    await rm(path.join(t.dir, 'maps', mapId, '.outlines'));
    t = await start({ dir: t.dir, storeOptions: { fs: counting() } });
    assert.equal(await firstPageReads(), VERSIONS - 1, 'every version but the latest, which is in memory, read once');
    await restart();
    const reads = await firstPageReads();
    assert.ok(reads <= 5, `${reads} version files read for a page of 5 after the outlines were kept`);
  });

  it('outlines cut short by a crash are made again from their versions, never misread', async () => {
    await t.close(false);
    const file = path.join(t.dir, 'maps', mapId, '.outlines');
    const text = await readFile(file, 'utf8');
    // A later record for version 9 cut in its middle, as a crash during its append would leave it: 9's whole one
    // before it no longer counts, and 9 is judged on the version itself.
    await writeFile(file, `${text}\n9 {"fields":{"name":"Ed`);
    t = await start({ dir: t.dir, storeOptions: { fs: counting() } });
    assert.ok(await firstPageReads() <= 6, 'the page, and version 9 whose record was cut short');
    assert.ok(versionReads.some((f) => path.basename(f) === 'v9.json'), 'version 9 was read');
  });
});

describe('on PostgreSQL, after a restart (a new replica on the same database)', { skip: noPostgres }, () => {
  let cluster: Cluster;
  let url: string;
  let replica: Replica;
  let id: string;
  /** The versions whose body a statement read, counted at the driver. */
  const bodyReads: string[] = [];
  const query = pg.Pool.prototype.query;
  before(async () => {
    cluster = await startCluster();
    url = await cluster.createDatabase();
    pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].startsWith('SELECT body FROM entries')) bodyReads.push(JSON.stringify(args[1]));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    replica = await startReplica(url);
    const token = await replica.token();
    const created = await replica.request('/api/v1/map/', { method: 'POST', token, json: sampleMap(nameOf(1)) });
    id = (await body(created)).mapId;
    for (let v = 2; v <= VERSIONS; v++) {
      const res = await replica.request(`/api/v1/map/id/${id}/`, { method: 'PUT', token, json: sampleMap(nameOf(v)) });
      assert.equal(res.status, 200);
    }
  });
  after(async () => {
    pg.Pool.prototype.query = query;
    await replica?.close();
    await cluster?.stop();
  });

  /** A new replica's first filtered page of 5: right, and how many versions it read. */
  const firstPageReads = async () => {
    await replica.close();
    replica = await startReplica(url);
    const token = await replica.token();
    bodyReads.length = 0;
    const res = await replica.request('/api/v1/maps/?version=all&fields=version&name=Core&limit=5', { token });
    assert.equal(res.headers.get('x-total-count'), String(CORE.length));
    assert.deepEqual((await body(res)).map((i: { version: number }) => i.version), CORE.slice(0, 5));
    return new Set(bodyReads).size;
  };

  it('a filtered page of 5 reads at most its own versions', async () => {
    const reads = await firstPageReads();
    assert.ok(reads <= 5, `${reads} versions read for a page of 5`);
  });

  it('rows stored before outlines were kept: read once, their outlines stored, then only the page', async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('UPDATE entries SET outline = NULL');
      assert.equal(await firstPageReads(), VERSIONS - 1, 'every version but the latest, which is in memory, read once');
      const { rows } = await admin.query("SELECT count(*)::int AS n FROM entries WHERE collection = 'maps' AND outline IS NULL");
      assert.equal(rows[0].n, 0, 'every outline stored');
    } finally {
      await admin.end();
    }
    const reads = await firstPageReads();
    assert.ok(reads <= 5, `${reads} versions read for a page of 5 after the outlines were stored`);
  });
});
