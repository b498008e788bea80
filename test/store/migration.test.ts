// A data folder of the earlier layout, one file per resource holding every
// version (`<collection>/<id>.json` = {"versions": [...]}), opened by the
// append-only store: it becomes one file per version (`<collection>/<id>/v<N>.json`)
// with every version's content kept exactly; results named `<id>.v<N>.json`
// stay fetchable under that key. A crash at any step of the migration loses
// nothing: the next start finishes it. A file that cannot be migrated is left
// as it is and only its resource is unavailable.
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../errors.ts';
import { canonicalJson } from '../../store/canonical-json.ts';
import { openFileStore } from '../../store/file.ts';
import { MAX_FILE_BYTES } from '../../store/keys.ts';
import type { Entry, LogCollection, Store } from '../../store/types.ts';
import { errno, spyFs, type Op } from './fs-spy.ts';

let dir: string;
const logs: string[] = [];
const log = (m: string) => void logs.push(m);
const at = (...parts: string[]) => path.join(dir, ...parts);

/**
 * What a file left as it was keeps: its inode, size and change time (every write, truncation or rename moves it)
 * and its first 64 KiB; not all its bytes, which for the sparse 256 MiB file were most of this file's time.
 */
async function fileState(file: string) {
  const { ino, size, ctimeNs } = await stat(file, { bigint: true });
  const handle = await open(file);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
    return { ino, size, ctimeNs, head: buffer.subarray(0, bytesRead).toString('base64') };
  } finally {
    await handle.close();
  }
}

type OldFolder = Record<LogCollection, Record<string, Entry[]>>;

/** Versions as the earlier service stored them: deep configuration, non-ASCII text, numbers that skip. */
const mapVersion = (version: number, name: string): Entry => ({
  mapId: 'abc1234', version, name, lastUpdatedBy: 'admin', lastUpdatedOn: `2026-11-2${version}T03:47:25.800Z`,
  configuration: {
    background: '#eef3f8',
    viewport: { center: { lat: 46, lng: 8 }, zoom: 4 },
    layers: [{ name: 'Zürich → Genève', color: '#1f77b4', datasetId: 'ds00001', style: { edge: { width: { min: 1, max: [2, { at: 3 }] } } } }],
  },
});
const OLD: OldFolder = {
  maps: { abc1234: [mapVersion(1, 'first'), mapVersion(2, 'second'), mapVersion(5, 'fifth, after a gap')] },
  datasets: {
    ds00001: [
      { datasetId: 'ds00001', version: 1, name: 'Backbone', query: { endpoint: 'spreadsheet?sheet_id=a', filters: [] } },
      { datasetId: 'ds00001', version: 2, name: 'Backbone', query: { endpoint: 'spreadsheet?sheet_id=a', filters: [{ field: 'region', value: ['eu'] }] } },
    ],
  },
  templates: { tpl0001: [{ templateId: 'tpl0001', version: 1, name: 'Popup', body: '<b>{{name}}</b>\n' }] },
};
const OLD_RESULT = { nodes: [{ id: 'GVA', name: 'Genève' }], edges: [{ source: 'GVA', target: 'ZRH' }] };

/**
 * Writes an old-layout folder as the earlier service left it: its .gitignore
 * files, a private document, old results, and each resource as one file
 * (keys not in canonical order: the migration writes the canonical form).
 */
async function writeOldFolder(folder: OldFolder = OLD) {
  const files: Record<string, string> = {
    '.gitignore': '.lock\n.*.tmp\n',
    'private/.gitignore': '*\n',
    'private/users.json': canonicalJson({ users: [{ name: 'admin' }] }),
    'results/ds00001.v2.json': JSON.stringify(OLD_RESULT, null, 2),
  };
  for (const [c, resources] of Object.entries(folder)) {
    for (const [id, versions] of Object.entries(resources)) {
      const reversedKeys = versions.map((v) => Object.fromEntries(Object.entries(v).reverse()));
      files[`${c}/${id}.json`] = JSON.stringify({ versions: reversedKeys }, null, 2);
    }
  }
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(at(name)), { recursive: true });
    await writeFile(at(name), text);
  }
}

/** Every file under `folder` (relative paths, sorted). */
async function walk(folder: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(folder, prefix), { withFileTypes: true })) {
    const name = path.join(prefix, e.name);
    if (e.isDirectory()) out.push(...(await walk(folder, name)));
    else out.push(name);
  }
  return out.sort();
}

/** Asserts the folder and `store` hold the new layout of `folder`, every version's content exactly the old one. */
async function assertMigrated(store: Store, folder: OldFolder = OLD) {
  for (const [c, resources] of Object.entries(folder) as Array<[LogCollection, Record<string, Entry[]>]>) {
    for (const [id, versions] of Object.entries(resources)) {
      assert.ok(!existsSync(at(c, `${id}.json`)), `${c}/${id}.json is gone`);
      // Beside them, once a version is appended, the versions' outlines (.outlines).
      assert.deepEqual((await readdir(at(c, id))).filter((name) => name !== '.outlines').sort(), versions.map((v) => `v${v.version}.json`).sort(),
        `${c}/${id}/ holds one file per version`);
      for (const v of versions) {
        assert.equal(await readFile(at(c, id, `v${v.version}.json`), 'utf8'), canonicalJson(v), `${c}/${id}/v${v.version}.json is canonical`);
        assert.deepEqual(await store.read(c, id, v.version), v, `${c}/${id} version ${v.version} is the old content`);
      }
      assert.deepEqual(store.versions(c, id), versions.map((v) => v.version));
      assert.deepEqual(store.head(c, id), versions.at(-1));
    }
  }
  assert.deepEqual(await store.fetch('ds00001.v2'), OLD_RESULT, 'a result named by the old scheme is fetched by its old key');
  assert.deepEqual(store.get('private', 'users'), { users: [{ name: 'admin' }] });
  assert.deepEqual(store.problems(), []);
  assert.deepEqual((await walk(dir)).filter((f) => f.endsWith('.tmp')), [], 'no temp file');
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mts-store-migration-'));
  logs.length = 0;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('migration from one file per resource', () => {
  it('opens an old-layout folder as the new layout, every version readable with exactly its old content', async () => {
    // One resource with more versions than the migration writes at once (32).
    const many = Array.from({ length: 45 }, (_, i) => ({ templateId: 'tplmany', version: i + 1, name: `v${i + 1}`, body: 'x'.repeat(i * 40) }));
    const folder: OldFolder = { ...OLD, templates: { ...OLD.templates, tplmany: many } };
    await writeOldFolder(folder);
    const store = await openFileStore(dir, { log });
    await assertMigrated(store, folder);
    assert.deepEqual(store.heads('maps').map(([id]) => id), ['abc1234']);
    assert.deepEqual(store.heads('templates').map(([id]) => id), ['tpl0001', 'tplmany']);
    for (const name of ['maps/abc1234.json', 'datasets/ds00001.json', 'templates/tpl0001.json', 'templates/tplmany.json']) {
      assert.ok(logs.some((m) => m.startsWith(`migrated ${name} `)), `the migration of ${name} is logged: ${logs.join(' | ')}`);
    }
    // The new layout is what is written on: the next version is a file of its own beside the migrated ones.
    const v6 = await store.append('maps', 'abc1234', (head) => ({ ...head!, version: 6, name: 'sixth' }));
    assert.equal(await readFile(at('maps/abc1234/v6.json'), 'utf8'), canonicalJson(v6));
    await store.close();

    logs.length = 0;
    const again = await openFileStore(dir, { log });
    await assertMigrated(again, { ...folder, maps: { abc1234: [...OLD.maps.abc1234, v6] } });
    assert.ok(!logs.some((m) => m.startsWith('migrated')), 'nothing is migrated twice');
    await again.close();
  });

  it('a crash at any step of the migration loses nothing: the next start finishes it', async () => {
    // The process "dies" at its N-th call that changes the disk, for N = 1, 2, ... until an open runs to the
    // end: that call and every later one fails (as nothing runs after a crash), so clean-ups that would
    // follow a mere error (removing a temp file) do not happen either. Reads and closes still go through.
    // A smaller folder than OLD: every kind of step is still there (a resource of each collection, one with
    // two versions), in fewer repetitions; each crash costs two opens.
    const folder: OldFolder = { maps: { abc1234: OLD.maps.abc1234.slice(0, 2) }, datasets: { ds00001: OLD.datasets.ds00001.slice(1) }, templates: OLD.templates };
    const changes = new Set<Op>(['mkdir', 'write', 'sync', 'rename', 'unlink', 'rmdir', 'chmod']);
    let partial = 0; // crashes that left a resource half migrated: its old file beside some version files
    let oldFileGone = 0; // crashes after an old file was removed
    let n = 1;
    for (; ; n++) {
      await rm(dir, { recursive: true, force: true }); // a fresh old-layout folder for each crash
      await mkdir(dir);
      await writeOldFolder(folder);
      let calls = 0;
      const { fs, syncFs } = spyFs((op, _file, { flags }) => {
        if (changes.has(op) || (op === 'open' && /[wax+]/.test(flags ?? ''))) {
          if (++calls >= n) throw errno('EIO');
        }
      });
      const dying = await openFileStore(dir, { fs, syncFs, log: () => undefined }).catch((e: Error) => e);
      if (!(dying instanceof Error)) await dying.close().catch(() => undefined);
      const crashed = calls >= n;
      if (crashed) {
        for (const [c, resources] of Object.entries(folder)) {
          for (const id of Object.keys(resources)) {
            const oldThere = existsSync(at(c, `${id}.json`));
            const versionFiles = existsSync(at(c, id)) ? (await readdir(at(c, id))).filter((f) => /^v\d+\.json$/.test(f)) : [];
            if (oldThere && versionFiles.length > 0) partial++;
            if (!oldThere) oldFileGone++;
          }
        }
      }
      // The next start, on the real file system (writes inline: no writer threads to start for each crash).
      const store = await openFileStore(dir, { syncFs: nodeFs, log: () => undefined });
      await assertMigrated(store, folder).catch((error) => {
        throw new Error(`after a crash at change ${n}: ${(error as Error).message}`, { cause: error });
      });
      await store.close();
      if (!crashed) break; // the open ran to its end without reaching change n: every step has been crashed at
    }
    assert.ok(n > 25, `the open made ${n - 1} changes: fewer than the migration of its version files needs`);
    assert.ok(partial > 0, 'some crashes came in the middle of a resource\'s migration');
    assert.ok(oldFileGone > 0, 'some crashes came after an old file was removed');
  });

  describe('an old file that cannot be migrated is left in place and reported; the rest is migrated and served', () => {
    const bad: Array<[string, () => Promise<void>, RegExp]> = [
      ['is not valid JSON', () => writeFile(at('maps/bad0001.json'), '{"versions": [{"version": 1, "cut'), /is not valid JSON/],
      ['has versions that do not increase', () => writeFile(at('maps/bad0001.json'), '{"versions": [{"version": 2}, {"version": 1}]}'), /versions\[1\] is not an object with a whole version number above 2/],
      ['has a version twice', () => writeFile(at('maps/bad0001.json'), '{"versions": [{"version": 1}, {"version": 1}]}'), /versions\[1\]/],
      ['has version 0', () => writeFile(at('maps/bad0001.json'), '{"versions": [{"version": 0}]}'), /versions\[0\]/],
      ['has a fractional version', () => writeFile(at('maps/bad0001.json'), '{"versions": [{"version": 1.5}]}'), /versions\[0\]/],
      ['has a version that is no object', () => writeFile(at('maps/bad0001.json'), '{"versions": [1]}'), /versions\[0\]/],
      ['holds no versions list', () => writeFile(at('maps/bad0001.json'), '{"name": "x", "version": 1}'), /expected \{"versions": \[\.\.\.\]\}/],
      ['is larger than the store reads', async () => {
        await writeFile(at('maps/bad0001.json'), '{"versions": []}');
        await truncate(at('maps/bad0001.json'), MAX_FILE_BYTES + 1); // sparse: no 256 MiB written
      }, /more than the/],
    ];
    for (const [label, write, message] of bad) {
      it(`when it ${label}`, async () => {
        await writeOldFolder();
        await write();
        const before = await fileState(at('maps/bad0001.json'));
        for (let start = 1; start <= 2; start++) { // the same at every start, until someone repairs the file
          const store = await openFileStore(dir, { log });
          assert.deepEqual(await fileState(at('maps/bad0001.json')), before, 'the old file is left as it was');
          assert.deepEqual(store.problems().map((p) => ({ ...p, message: '' })), [{ collection: 'maps', key: 'bad0001', where: 'maps/bad0001.json', message: '' }]);
          assert.match(store.problems()[0].message, /could not be moved to the layout of one file per version/);
          assert.match(store.problems()[0].message, message);
          let error: unknown;
          try {
            store.head('maps', 'bad0001');
          } catch (e) {
            error = e;
          }
          assert.ok(error instanceof ServiceError && error.code === 'resource_unavailable', `head throws resource_unavailable: ${error}`);
          assert.match(error.message, /maps\/bad0001\.json/);
          assert.deepEqual(store.heads('maps').map(([id]) => id), ['abc1234'], 'left out of the list');
          // Nothing is appended on top of a resource whose history is still in its old file.
          await assert.rejects(store.append('maps', 'bad0001', () => ({ version: 1 })), { code: 'resource_unavailable' });
          assert.deepEqual(existsSync(at('maps/bad0001')) ? await readdir(at('maps/bad0001')) : [], []);
          // Everything else is migrated and served.
          for (const [c, resources] of Object.entries(OLD) as Array<[LogCollection, Record<string, Entry[]>]>) {
            for (const [id, versions] of Object.entries(resources)) {
              assert.ok(!existsSync(at(c, `${id}.json`)));
              for (const v of versions) assert.deepEqual(await store.read(c, id, v.version), v);
            }
          }
          assert.deepEqual(await store.fetch('ds00001.v2'), OLD_RESULT);
          await store.close();
        }
      });
    }
  });
});
