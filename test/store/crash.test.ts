// Crash safety: a child process serving the real app on the file store gets
// 500 concurrent map writes (creates and updates) and is killed with SIGKILL
// while they are in flight, 5 times in a row on the same data folder. After
// each restart: every write acknowledged with a 2xx is readable with exactly
// the acknowledged content, on disk as well as through the API; every file in
// the data folder parses; every map's folder holds v1.json..v<n>.json with no
// gap, each holding its own number; and no temp file is left behind.
// The kill comes after 25 to 225 acknowledgements, a random point in a fifth
// of that range per round, so the five rounds cover all of it; each kill cuts
// off hundreds of writes at every stage (queued, half written, renamed, not
// yet fsynced). Ten rounds at a random point each took twice the CPU (each
// round starts the service anew, over a folder the last kill left) and
// checked nothing more.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAP_FIELDS } from '../../schema/objects.ts';
import { outlineOf, outlineText, parseOutline } from '../../store/outline.ts';
import { REPO, runTs, waitForOutput, type Child } from './child.ts';

const FIXTURE = path.join(REPO, 'test/store/fixtures/serve.ts');
const ROUNDS = 5;
const WRITES = 500;
const PASSWORD = 'crash test password';

type Version = { mapId: string; version: number; name: string; [key: string]: unknown };

const revision = (name: string) => ({
  name,
  configuration: { background: '#102030', viewport: { center: { lat: 10, lng: 20 }, zoom: 5 }, layers: [{ name, color: '#ff0000' }] },
  overrides: {},
});

/** Every file under `dir`, relative paths. */
async function walk(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(dir, rel)));
    else out.push(rel);
  }
  return out;
}

/** Polls `probe` until it holds; the guard only turns a hang into a failure. */
async function until(probe: () => Promise<boolean>, ms = 60_000) {
  const guard = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > guard) throw new Error(`still not so after ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

type Answer = { status: number; text: string };

/**
 * One request to the child (node:http, not fetch: the storm's 500 requests a round cost the test process a third of
 * the CPU); rejects when the connection fails, as it does for the requests the kill cuts off.
 */
function request(agent: http.Agent, port: number, token: string, method: string, url: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: url, method, agent,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => resolve({ status: res.statusCode!, text })).on('error', reject);
    });
    req.on('error', reject).end(payload);
  });
}

async function inParallel<T>(items: T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await task(items[next++]);
  }));
}

describe('SIGKILL while 500 writes are in flight, 5 times in a row', () => {
  const children: Child[] = [];
  let dir = '';
  after(async () => {
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loses no acknowledged write and leaves every file whole', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mts-crash-'));
    const data = path.join(dir, 'data');
    const acked: Version[] = [];
    const maps: string[] = [];
    let checkedBefore = 0;
    let token = '';

    const start = async () => {
      const child = runTs(FIXTURE, [data], { MTS_ADMIN_PASSWORD: PASSWORD });
      children.push(child);
      const port = Number((await waitForOutput(child, /listening on (\d+)/))[1]);
      const base = `http://127.0.0.1:${port}`;
      if (!token) { // one token for all rounds: the signing key survives restarts
        const res = await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'password', username: 'admin', password: PASSWORD }) });
        assert.equal(res.status, 200, await res.clone().text());
        token = ((await res.json()) as { access_token: string }).access_token;
        // The login made 127.0.0.1 a known address for admin, a document written after the answer: once it is on
        // disk, the folder holds only what the rounds write (else verify may find its temp file mid-write).
        await until(() => stat(path.join(data, 'private', 'known-addresses.json')).then(() => true, () => false));
      }
      const agent = new http.Agent({ keepAlive: true });
      child.exited.then(() => agent.destroy(), () => undefined);
      return { child, send: (method: string, url: string, body?: unknown) => request(agent, port, token, method, url, body) };
    };

    const verify = async (send: (m: string, u: string) => Promise<Answer>, round: number) => {
      const files = await walk(data);
      assert.deepEqual(files.filter((f) => f.endsWith('.tmp')), [], `round ${round}: temp files left`);
      const parsed = new Map<string, Record<string, unknown>>();
      for (const f of files.filter((f) => f.endsWith('.json'))) {
        const text = await readFile(path.join(data, f), 'utf8');
        assert.doesNotThrow(() => parsed.set(f, JSON.parse(text)), `round ${round}: ${f} does not parse`);
      }
      // The layout on disk, read from the file names: maps/<id>/v1.json .. v<n>.json and the versions' outlines
      // (maps/<id>/.outlines), nothing else in maps/.
      const onDisk = new Map<string, number[]>();
      const outlineFiles = files.filter((f) => f.startsWith(`maps${path.sep}`) && path.basename(f) === '.outlines');
      for (const f of files.filter((f) => f.startsWith(`maps${path.sep}`) && !outlineFiles.includes(f))) {
        const m = /^maps\/([A-Za-z0-9]+)\/v([1-9][0-9]*)\.json$/.exec(f.split(path.sep).join('/'));
        assert.ok(m, `round ${round}: ${f} is not a version file maps/<id>/v<N>.json`);
        const version = Number(m[2]);
        onDisk.set(m[1], [...(onDisk.get(m[1]) ?? []), version]);
        const stored = parsed.get(f)!;
        assert.equal(stored.version, version, `round ${round}: ${f} holds version ${stored.version}`);
        assert.equal(stored.mapId, m[1], `round ${round}: ${f} holds map ${stored.mapId}`);
      }
      for (const [mapId, versions] of onDisk) {
        versions.sort((a, b) => a - b);
        assert.deepEqual(versions, versions.map((_, i) => i + 1), `round ${round}: the version files of ${mapId} are not contiguous from 1`);
      }
      // Every outline that counts (the last whole line for its version) describes a version file as it is.
      const outlines = new Map<string, string>();
      for (const f of outlineFiles) {
        for (const line of (await readFile(path.join(data, f), 'utf8')).split('\n').filter(Boolean)) {
          const [, n, text] = /^(\d+) (.*)$/.exec(line) ?? [];
          const at = path.join(path.dirname(f), `v${n}.json`);
          if (n && parseOutline(text)) outlines.set(at, text);
          else outlines.delete(at);
        }
      }
      for (const [f, text] of outlines) {
        assert.ok(parsed.has(f), `round ${round}: ${f} has an outline but no file`);
        assert.equal(text, outlineText(outlineOf(parsed.get(f)!)), `round ${round}: the outline of ${f} is not the version's`);
      }
      for (const ack of acked) {
        const stored = parsed.get(path.join('maps', ack.mapId, `v${ack.version}.json`));
        assert.ok(stored, `round ${round}: acknowledged ${ack.mapId} v${ack.version} has no file`);
        assert.equal(stored.name, ack.name, `round ${round}: maps/${ack.mapId}/v${ack.version}.json holds another write`);
        assert.ok(outlines.has(path.join('maps', ack.mapId, `v${ack.version}.json`)), `round ${round}: acknowledged ${ack.mapId} v${ack.version} has no outline`);
      }
      // The writes acknowledged just before the kill, one by one through GET by ID...
      await inParallel(acked.slice(checkedBefore), 32, async (ack) => {
        const res = await send('GET', `/api/v1/map/id/${ack.mapId}/?version=${ack.version}`);
        assert.equal(res.status, 200, `round ${round}: acknowledged ${ack.mapId} v${ack.version} is gone`);
        assert.deepEqual(JSON.parse(res.text), ack, `round ${round}: ${ack.mapId} v${ack.version} differs from its acknowledgement`);
      });
      checkedBefore = acked.length;
      // ...and every acknowledged write of every round through one list of all versions with all fields.
      // (Lists of versions are paged, 100 by default: the whole list asked for.)
      const listed = JSON.parse((await send('GET', `/api/v1/maps/?version=all&limit=100000&fields=${MAP_FIELDS.join(',')}`)).text) as Version[];
      const byId = new Map(listed.map((v) => [`${v.mapId} ${v.version}`, v]));
      for (const ack of acked) {
        const found = byId.get(`${ack.mapId} ${ack.version}`);
        assert.ok(found, `round ${round}: acknowledged ${ack.mapId} v${ack.version} is not listed`);
        for (const key of Object.keys(ack)) assert.deepEqual(found[key], ack[key], `round ${round}: ${ack.mapId} v${ack.version} ${key}`);
      }
      const byMap = new Map<string, number[]>();
      for (const v of listed) byMap.set(v.mapId, [...(byMap.get(v.mapId) ?? []), v.version]);
      for (const [mapId, versions] of byMap) {
        assert.deepEqual(versions, versions.map((_, i) => i + 1), `round ${round}: versions of ${mapId} are not contiguous`);
      }
      for (const ack of acked) assert.ok((byMap.get(ack.mapId)?.length ?? 0) >= ack.version, `round ${round}: ${ack.mapId} lost versions`);
    };

    for (let round = 1; round <= ROUNDS; round++) {
      let t = performance.now();
      const lap = (what: string) => { if (process.env.CRASH_TIMING) console.log(`round ${round} ${what}: ${(performance.now() - t).toFixed(0)} ms`); t = performance.now(); };
      const { child, send } = await start();
      lap('start');
      await verify(send, round);
      lap('verify');
      while (maps.length < 5) {
        const res = await send('POST', '/api/v1/map/', revision(`seed ${maps.length}`));
        const v = JSON.parse(res.text) as Version;
        acked.push(v);
        maps.push(v.mapId);
      }
      // Kill once a random share of the writes has been acknowledged, in this round's fifth of 25..225: always mid-flight.
      const killAt = 25 + Math.floor(((round - 1) + Math.random()) * (200 / ROUNDS));
      let acks = 0;
      const outcomes = await Promise.allSettled(Array.from({ length: WRITES }, async (_, i) => {
        const name = `round ${round} write ${i}`;
        const res = i % 10 === 0
          ? await send('POST', '/api/v1/map/', revision(name))
          : await send('PUT', `/api/v1/map/id/${maps[i % maps.length]}/`, revision(name));
        assert.ok(res.status === 200 || res.status === 201, `${res.status} ${res.text}`);
        const v = JSON.parse(res.text) as Version;
        assert.equal(v.name, name);
        acked.push(v);
        if (res.status === 201) maps.push(v.mapId);
        if (++acks === killAt) child.proc.kill('SIGKILL');
      }));
      lap('storm');
      assert.equal(await child.exited, 'SIGKILL', `round ${round}: the child was not killed (${child.stderr()})`);
      const failed = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
      // Requests cut off by the kill fail at the network level; an HTTP error status would be a bug.
      for (const f of failed) if (f.reason instanceof assert.AssertionError) throw f.reason;
      assert.ok(failed.length > 0, `round ${round}: every write finished before the kill`);
    }
    const { child, send } = await start();
    await verify(send, ROUNDS + 1);
    child.proc.kill('SIGTERM');
    assert.equal(await child.exited, 0);
    assert.ok(acked.length > ROUNDS * 25);
  });
});
