// Concurrent writers on one map, through HTTP on createApp over the file
// store: 100 concurrent PUTs give versions 2..101, each exactly once, each
// holding the body that its response acknowledged, all readable after a
// restart (store reopened, new app), and on disk one file per version,
// maps/<id>/v1.json..v101.json, each holding its own number and body.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

type MapVersion = { mapId: string; version: number; name: string; configuration: Record<string, unknown> };

const revision = (i: number) => ({
  name: `revision ${i}`,
  configuration: { background: '#ffffff', viewport: { center: { lat: i % 90, lng: -i % 180 }, zoom: 3 }, layers: [] },
  overrides: {},
});

describe('100 concurrent PUTs on one map', () => {
  const apps: TestApp[] = [];
  after(async () => {
    for (const t of apps.slice(0, -1)) await t.close(false);
    await apps.at(-1)?.close(true);
  });

  it('give versions 2..101, all distinct, all readable after a restart', async () => {
    const t = await makeTestApp();
    apps.push(t);
    const token = await t.token();
    const created = await t.request('/api/v1/map/', { method: 'POST', token, json: revision(0) });
    assert.equal(created.status, 201);
    const { mapId } = (await created.json()) as MapVersion;

    const responses = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      t.request(`/api/v1/map/id/${mapId}/`, { method: 'PUT', token, json: revision(i + 1) })));
    const acked: MapVersion[] = [];
    for (const res of responses) {
      assert.equal(res.status, 200, await res.clone().text());
      acked.push((await res.json()) as MapVersion);
    }
    const versions = acked.map((v) => v.version).sort((a, b) => a - b);
    assert.deepEqual(versions, Array.from({ length: 100 }, (_, i) => i + 2));
    // Each response's version holds that request's own body.
    assert.equal(new Set(acked.map((v) => v.name)).size, 100);

    // Restart: close the store, open the same folder with a new app.
    await t.close(false);
    const again = await makeTestApp({ dir: t.dir });
    apps.push(again);
    const token2 = await again.token();
    for (const ack of acked) {
      const res = await again.request(`/api/v1/map/id/${mapId}/?version=${ack.version}`, { token: token2 });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), ack, `version ${ack.version} after restart`);
    }
    const latest = (await (await again.request(`/api/v1/map/id/${mapId}/`, { token: token2 })).json()) as MapVersion;
    assert.equal(latest.version, 101);
    // Lists of versions are paged (100 by default): all 101 asked for.
    const all = await again.request(`/api/v1/maps/?version=all&mapId=${mapId}&fields=version&limit=101`, { token: token2 });
    assert.deepEqual(await all.json(), Array.from({ length: 101 }, (_, i) => ({ version: i + 1 })));

    // On disk: the versions from the file names, contiguous, each file whole and holding what was acknowledged.
    const files = await readdir(path.join(t.dir, 'maps', mapId));
    const names = files.filter((name) => name !== '.outlines').sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    assert.deepEqual(names, Array.from({ length: 101 }, (_, i) => `v${i + 1}.json`));
    // Beside them, one outline line per version (each appended in its version's write turn).
    const outlines = (await readFile(path.join(t.dir, 'maps', mapId, '.outlines'), 'utf8')).split('\n').filter(Boolean);
    assert.deepEqual(outlines.map((line) => Number(line.split(' ')[0])).sort((a, b) => a - b), Array.from({ length: 101 }, (_, i) => i + 1));
    const byVersion = new Map(acked.map((v) => [v.version, v]));
    for (const name of names) {
      const stored = JSON.parse(await readFile(path.join(t.dir, 'maps', mapId, name), 'utf8'));
      assert.equal(`v${stored.version}.json`, name);
      assert.equal(stored.mapId, mapId);
      assert.equal(stored.name, stored.version === 1 ? 'revision 0' : byVersion.get(stored.version)!.name, name);
    }
    const everything = await readdir(t.dir, { recursive: true });
    assert.deepEqual(everything.filter((f) => f.endsWith('.tmp')), [], 'no temp file');
    assert.deepEqual(everything.filter((f) => /^maps\/[^/]+\.json$/.test(f)), [], 'no file of the old layout');
  });
});
