// The data folder seen from outside, through HTTP (docs/deployment.md: The data folder): stored
// bytes stay proportional to the body whatever its shape, a long history
// costs neither the start nor other requests, a file that cannot be read
// makes only its own resource unavailable (503 naming it, /healthz degraded),
// and a full disk still serves reads while writes answer 507.
import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { mkdir, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../store/canonical-json.ts';
import type { SyncFs } from '../../store/write-thread.mjs';
import { body, createMap, sampleMap, start } from './fixtures.ts';

/** A body of about `bytes` whose content is many tiny arrays nested `depth` levels deep (indentation's worst case). */
function nestedBody(bytes: number, depth: number): string {
  const zeros = new Array(Math.floor((bytes - 4 * depth - 200) / 2)).fill(0).join(',');
  return `{"name":"nested","overrides":{},"configuration":{"layers":[],"blob":${'['.repeat(depth)}${zeros}${']'.repeat(depth)}}}`;
}

describe('stored bytes stay proportional to the body', () => {
  it('ten PUTs of 1 MiB of deeply nested arrays are stored within 2x their size, and the service starts again', async () => {
    const first = await start();
    const dir = first.dir;
    let mapId = '';
    const text = nestedBody(1024 * 1024 - 1024, 55);
    try {
      mapId = (await createMap(first, 'Deep')).mapId;
      for (let i = 0; i < 10; i++) {
        const res = await first.request(`/api/v1/map/id/${mapId}/`, {
          method: 'PUT', token: first.write, headers: { 'Content-Type': 'application/json' }, body: text,
        });
        assert.equal(res.status, 200, await res.clone().text());
      }
    } finally {
      await first.close(false);
    }
    const folder = path.join(dir, 'maps', mapId);
    assert.deepEqual((await readdir(folder)).filter((name) => name !== '.outlines').length, 11, 'one file per version, beside their outlines');
    const { size: outlines } = await stat(path.join(folder, '.outlines'));
    assert.ok(outlines < 11 * 1024, `the outlines of 11 versions take ${outlines} bytes: their short fields only`);
    for (let v = 2; v <= 11; v++) {
      const { size } = await stat(path.join(folder, `v${v}.json`));
      assert.ok(size < 2 * text.length, `v${v}.json is ${size} bytes for a body of ${text.length}`);
    }
    const second = await start({ dir });
    try {
      const res = await second.request(`/api/v1/map/id/${mapId}/`, { token: second.read });
      assert.equal(res.status, 200);
      const map = await body(res);
      assert.equal(map.version, 11);
      let inner = map.configuration.blob;
      for (let d = 1; d < 55; d++) inner = inner[0];
      assert.equal(inner.length, (text.match(/0/g) ?? []).length);
      assert.equal((await body(await second.request('/healthz'))).status, 'ok');
    } finally {
      await second.close(true);
    }
  });
});

describe('a map with 10,000 versions', () => {
  it('starts, takes a PUT and serves old versions, and a full history list does not hold up other requests', async () => {
    const first = await start();
    const dir = first.dir;
    const map = await createMap(first, 'Long');
    await first.close(false);
    // Versions 2..10,000 written as an earlier service would have: one file each.
    const folder = path.join(dir, 'maps', map.mapId);
    const { mapId: _id, version: _v, lastUpdatedBy: _b, lastUpdatedOn: _o, ...content } = map;
    // Written 250 at a time: one at a time, the file system's round trips made up most of this test's time.
    for (let from = 2; from <= 10_000; from += 250) {
      await Promise.all(Array.from({ length: Math.min(250, 10_001 - from) }, (_, i) => {
        const v = from + i;
        const version = { ...content, mapId: map.mapId, name: `Long ${v}`, version: v, lastUpdatedBy: 'admin', lastUpdatedOn: '2026-11-22T10:00:00.000Z' };
        return writeFile(path.join(folder, `v${v}.json`), canonicalJson(version));
      }));
    }
    const t = await start({ dir });
    try {
      const put = await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.write, json: sampleMap('Long next') });
      assert.equal(put.status, 200);
      assert.equal((await body(put)).version, 10_001);
      assert.equal((await body(await t.request(`/api/v1/map/id/${map.mapId}/?version=5`, { token: t.read }))).name, 'Long 5');
      assert.equal((await body(await t.request(`/api/v1/map/id/${map.mapId}/`, { token: t.read }))).name, 'Long next');

      // The whole list (asked for: lists of versions are paged by default), first after the start, reads 10,000 files; requests that arrive meanwhile are answered first.
      const order: string[] = [];
      const all = t.request(`/api/v1/maps/?version=all&mapId=${map.mapId}&fields=version&limit=10001`, { token: t.read })
        .then(async (res) => (order.push('list'), (await body(res)).length));
      await new Promise((resolve) => setImmediate(resolve));
      const health = await t.request('/healthz');
      order.push('healthz');
      assert.equal(health.status, 200);
      assert.equal(await all, 10_001);
      assert.deepEqual(order, ['healthz', 'list']);

      // A page of a filtered list (the version summaries are known now: only its own versions are read).
      const page = await t.request(`/api/v1/maps/?version=all&mapId=${map.mapId}&fields=version,name&limit=2&offset=9999`, { token: t.read });
      assert.equal(page.headers.get('x-total-count'), '10001');
      assert.deepEqual(await body(page), [{ version: 10_000, name: 'Long 10000' }, { version: 10_001, name: 'Long next' }]);

      const history = await t.request(`/api/v1/map/id/${map.mapId}/history/?limit=3`, { token: t.read });
      assert.equal(history.headers.get('x-total-count'), '10001');
      assert.deepEqual((await body(history)).map((h: any) => h.version), [10_001, 10_000, 9_999]);
    } finally {
      await t.close(true);
    }
  });
});

describe('a file that cannot be read', () => {
  it('makes only its resource unavailable: 503 naming the file, /healthz degraded, the rest served', async () => {
    const first = await start();
    const dir = first.dir;
    const [broken, huge, wrong, fine] = [await createMap(first, 'Broken'), await createMap(first, 'Huge'), await createMap(first, 'Wrong'), await createMap(first, 'Fine')];
    await first.request(`/api/v1/map/id/${broken.mapId}/`, { method: 'PUT', token: first.write, json: sampleMap('Broken 2') });
    await first.close(false);
    await writeFile(path.join(dir, 'maps', broken.mapId, 'v2.json'), '{"versions": [ {"mapId": ');
    await truncate(path.join(dir, 'maps', huge.mapId, 'v1.json'), 300 * 1024 * 1024); // sparse: no disk used
    await writeFile(path.join(dir, 'maps', wrong.mapId, 'v1.json'), canonicalJson({ ...wrong, mapId: fine.mapId }));

    const t = await start({ dir });
    try {
      const health = await body(await t.request('/healthz'));
      assert.equal(health.status, 'degraded');
      assert.deepEqual(health.problems.map((p: any) => p.file).sort(),
        [`maps/${broken.mapId}/v2.json`, `maps/${huge.mapId}/v1.json`, `maps/${wrong.mapId}/v1.json`].sort());
      for (const [map, file] of [[broken, 'v2.json'], [huge, 'v1.json'], [wrong, 'v1.json']] as const) {
        for (const res of [
          await t.request(`/api/v1/map/id/${map.mapId}/`, { token: t.read }),
          await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.write, json: sampleMap('over it') }),
        ]) {
          assert.equal(res.status, 503, map.name);
          const problem = await body(res);
          assert.equal(problem.code, 'resource_unavailable');
          assert.ok(problem.detail.includes(`maps/${map.mapId}/${file}`), problem.detail);
        }
      }
      assert.equal((await t.request(`/api/v1/map/id/${fine.mapId}/`, { token: t.read })).status, 200);
      const listed = (await body(await t.request('/api/v1/maps/', { token: t.read }))).map((m: any) => m.mapId);
      assert.deepEqual(listed, [fine.mapId]);
      const created = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: sampleMap('New') });
      assert.equal(created.status, 201);
    } finally {
      await t.close(true);
    }
  });
});

describe('a full disk', () => {
  it('still starts and serves reads; writes answer 507 and change nothing', async () => {
    const first = await start();
    const dir = first.dir;
    const map = await createMap(first, 'Kept');
    await first.close(false);
    const enospc = () => Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    // Every file the writer would create fails as a full disk does; reads are untouched.
    const full: SyncFs = { ...nodeFs, openSync: (file, flags, mode) => { if (flags !== 'r') throw enospc(); return nodeFs.openSync(file, flags, mode); } };
    await mkdir(path.join(dir, 'private'), { recursive: true });
    const t = await start({ dir, storeOptions: { syncFs: full, log: () => undefined } });
    try {
      assert.equal((await body(await t.request(`/api/v1/map/id/${map.mapId}/`, { token: t.read }))).name, 'Kept');
      for (const res of [
        await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'PUT', token: t.write, json: sampleMap('Lost') }),
        await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: sampleMap('Lost too') }),
        await t.request(`/api/v1/map/id/${map.mapId}/`, { method: 'DELETE', token: t.write }),
      ]) {
        assert.equal(res.status, 507);
        assert.match((await body(res)).detail, /full/);
      }
      assert.equal((await body(await t.request(`/api/v1/map/id/${map.mapId}/`, { token: t.read }))).version, 1);
      assert.deepEqual((await readdir(path.join(dir, 'maps', map.mapId))).sort(), ['.outlines', 'v1.json']);
      assert.equal((await readFile(path.join(dir, 'maps', map.mapId, '.outlines'), 'utf8')).split('\n').filter(Boolean).length, 1,
        'the outline of version 1 only');
    } finally {
      await t.close(true);
    }
  });
});
