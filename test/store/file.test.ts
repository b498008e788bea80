// File-adapter specifics beyond the shared contract: the order of file-system
// calls that makes a version, a result or a document durable; failures (full
// disk, short writes); files put on disk under the running service; what the
// open does (temp files swept, odd names ignored, unreadable files making only
// their own resource unavailable); the private folder, the owner lock; and
// what a long history costs: bytes written per version, and memory.
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../errors.ts';
import { canonicalJson } from '../../store/canonical-json.ts';
import { openFileStore } from '../../store/file.ts';
import { MAX_FILE_BYTES } from '../../store/keys.ts';
import { outlineOf, outlineText } from '../../store/outline.ts';
import type { Entry, Store } from '../../store/types.ts';
import { errno, spyFs, type Op, type Spy } from './fs-spy.ts';

let dir: string;
const logs: string[] = [];
const log = (m: string) => void logs.push(m);
/** `opts` is read at each write, so a test can limit writes after opening. */
const open = (spy?: Spy, opts?: { maxWriteBytes?: number }) =>
  openFileStore(dir, { log, ...(spy ? spyFs(spy, opts) : {}) });
const rel = (file: string) => path.relative(dir, file) || '.';
const at = (...parts: string[]) => path.join(dir, ...parts);
const mode = async (file: string) => (await stat(file)).mode & 0o777;
/** A call as the tests list it: temp names with their random part replaced, paths relative to the data folder. */
const describeCall = (op: Op, file: string, to?: string, flags?: string) =>
  `${op} ${rel(file).replace(/\.[0-9a-f]{12}\.tmp$/, '.<rand>.tmp')}${to ? ` -> ${rel(to)}` : ''}${flags ? ` ${flags}` : ''}`;
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
const tempsUnder = async (folder: string) => (await walk(folder)).filter((n) => n.endsWith('.tmp'));
/** The next entry after `head`, with `fields`. */
const next = (fields: Record<string, unknown> = {}) => (head: Entry | undefined) => ({ ...fields, version: (head?.version ?? 0) + 1 }) as Entry;
/** Writes files by hand, as a checkout or an older service would have left them. */
async function put(files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(at(name)), { recursive: true });
    await writeFile(at(name), text);
  }
}
/** The ServiceError `promise` rejects with (fails when it resolves or rejects with anything else). */
async function serviceError(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${error}`);
  return error;
}
function thrownBy(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${error}`);
    return error;
  }
  assert.fail('expected a ServiceError, nothing was thrown');
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mts-store-file-'));
  logs.length = 0;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('durability order', () => {
  /** Opens a store that records calls (once `recording` is set) in `events`, with the bytes written; `annotate` adds a line after each call. */
  async function recorded(annotate?: (store: Store) => string) {
    const state = { recording: false, events: [] as string[], written: '', store: undefined as unknown as Store };
    state.store = await open((op, file, { to, flags, bytes }) => {
      if (!state.recording) return;
      state.events.push(describeCall(op, file, to, flags));
      if (annotate) state.events.push(`  ${annotate(state.store)}`);
      if (bytes) state.written += Buffer.from(bytes).toString();
    });
    return state;
  }

  it('a version: temp file written, fsynced, closed; checked that no file is there; renamed; the folder fsynced; its outline appended and fsynced; then the promise resolves; memory changes last', async () => {
    // What memory holds at each call (made before the call): a version must not be served before it is durable.
    const memory = (store: Store) => `memory: head v${store.head('maps', 'm1')?.version}, versions ${store.versions('maps', 'm1').join(',')}`;
    const s = await recorded(memory);
    const v1 = await s.store.append('maps', 'm1', next({ name: 'first' }));
    const v1Bytes = await readFile(at('maps/m1/v1.json'), 'utf8');
    s.recording = true;
    const v2 = await s.store.append('maps', 'm1', next({ name: 'second' }));
    s.events.push('resolved', memory(s.store));
    assert.deepEqual(s.events, [
      'open maps/m1/.v2.json.<rand>.tmp wx', '  memory: head v1, versions 1',
      'write maps/m1/.v2.json.<rand>.tmp', '  memory: head v1, versions 1',
      'sync maps/m1/.v2.json.<rand>.tmp', '  memory: head v1, versions 1',
      'close maps/m1/.v2.json.<rand>.tmp', '  memory: head v1, versions 1',
      'stat maps/m1/v2.json', '  memory: head v1, versions 1', // no file there: a version file is never replaced
      'rename maps/m1/.v2.json.<rand>.tmp -> maps/m1/v2.json', '  memory: head v1, versions 1',
      'sync maps/m1', '  memory: head v1, versions 1', // the folder's handle stays open between writes (opened by the first one)
      // The outline only once its version is on disk: an outline never describes a version that is not stored.
      'stat maps/m1/.outlines', '  memory: head v1, versions 1',
      'open maps/m1/.outlines a', '  memory: head v1, versions 1',
      'write maps/m1/.outlines', '  memory: head v1, versions 1',
      'sync maps/m1/.outlines', '  memory: head v1, versions 1',
      'close maps/m1/.outlines', '  memory: head v1, versions 1',
      'resolved', 'memory: head v2, versions 1,2',
    ]);
    assert.equal(s.written, `${canonicalJson(v2)}\n2 ${outlineText(outlineOf(v2))}`);
    assert.equal(await readFile(at('maps/m1/.outlines'), 'utf8'), `\n1 ${outlineText(outlineOf(v1))}\n2 ${outlineText(outlineOf(v2))}`);
    assert.equal(await readFile(at('maps/m1/v2.json'), 'utf8'), canonicalJson(v2));
    assert.equal(await readFile(at('maps/m1/v1.json'), 'utf8'), v1Bytes, 'the earlier version is left as it was');
    assert.equal(v1Bytes, canonicalJson(v1));
    await s.store.close();
  });

  it('the first version of a resource: its folder is created and the collection folder fsynced before the version is written; its outlines file is made durable', async () => {
    const s = await recorded();
    s.recording = true;
    await s.store.append('datasets', 'd1', next()).then(() => s.events.push('resolved'));
    assert.deepEqual(s.events, [
      'mkdir datasets/d1', 'open datasets r', 'sync datasets', 'close datasets',
      'open datasets/d1/.v1.json.<rand>.tmp wx', 'write datasets/d1/.v1.json.<rand>.tmp', 'sync datasets/d1/.v1.json.<rand>.tmp',
      'close datasets/d1/.v1.json.<rand>.tmp', 'stat datasets/d1/v1.json', 'rename datasets/d1/.v1.json.<rand>.tmp -> datasets/d1/v1.json',
      'open datasets/d1 r', 'sync datasets/d1',
      'stat datasets/d1/.outlines', 'open datasets/d1/.outlines a', 'write datasets/d1/.outlines', 'sync datasets/d1/.outlines',
      'close datasets/d1/.outlines', 'sync datasets/d1', // made by this append: its folder entry fsynced too
      'resolved',
    ]);
    await s.store.close();
  });

  it('a result is written under the hash of its content; equal content later writes nothing', async () => {
    const s = await recorded();
    s.recording = true;
    const key = await s.store.put({ b: [1, 2], a: 'é' });
    s.events.push('resolved');
    assert.deepEqual(s.events, [
      `open results/.${key}.json.<rand>.tmp wx`, `write results/.${key}.json.<rand>.tmp`, `sync results/.${key}.json.<rand>.tmp`,
      `close results/.${key}.json.<rand>.tmp`,
      // No check of the target: a file of that name holds these very bytes.
      `rename results/.${key}.json.<rand>.tmp -> results/${key}.json`, 'open results r', 'sync results',
      'resolved',
    ]);
    assert.equal(await readFile(at('results', `${key}.json`), 'utf8'), canonicalJson({ a: 'é', b: [1, 2] }));
    s.events.length = 0;
    assert.equal(await s.store.put({ a: 'é', b: [1, 2] }), key);
    assert.deepEqual(s.events, [], 'no second write');
    await s.store.close();
  });

  it('a private document: checked to be the file the service knows, then replaced as a version is', async () => {
    const s = await recorded();
    await s.store.update('private', 'users', () => ({ users: [] }));
    s.recording = true;
    const doc = await s.store.update('private', 'users', () => ({ users: ['admin'] }));
    s.events.push('resolved');
    assert.deepEqual(s.events, [
      'open private/.users.json.<rand>.tmp wx', 'write private/.users.json.<rand>.tmp', 'sync private/.users.json.<rand>.tmp',
      'close private/.users.json.<rand>.tmp',
      'stat private/users.json', // still the file the service wrote last (see "files changed on disk")
      'rename private/.users.json.<rand>.tmp -> private/users.json', 'sync private',
      'resolved',
    ]);
    assert.equal(s.written, canonicalJson(doc));
    await s.store.close();
  });

  it('a private document deleted: checked, unlinked, the folder fsynced, then the promise resolves', async () => {
    const s = await recorded();
    await s.store.update('private', 't', () => ({}));
    s.recording = true;
    await s.store.delete('private', 't').then(() => s.events.push('resolved'));
    assert.deepEqual(s.events, ['stat private/t.json', 'unlink private/t.json', 'sync private', 'resolved']);
    await assert.rejects(stat(at('private/t.json')), { code: 'ENOENT' });
    await s.store.close();
  });

  it('a dropped log: its outlines then every version unlinked, its folder removed; started again, its new folder is fsynced through a descriptor of its own', async () => {
    const s = await recorded();
    for (let i = 0; i < 2; i++) await s.store.append('maps', 'm', next());
    s.recording = true;
    await s.store.drop('maps', 'm').then(() => s.events.push('resolved'));
    assert.deepEqual(s.events, ['unlink maps/m/.outlines', 'sync maps/m', 'unlink maps/m/v1.json', 'sync maps/m', 'unlink maps/m/v2.json', 'sync maps/m', 'rmdir maps/m', 'resolved']);
    assert.ok(!existsSync(at('maps/m')));
    s.events.length = 0;
    await s.store.append('maps', 'm', next({ again: true }));
    // The descriptor kept for the removed folder would fsync a folder no longer in the tree.
    // Synced twice through it: for the version's rename, then for its new outlines file.
    assert.deepEqual(s.events.filter((e) => /^(open|sync) maps\/m$/.test(e.replace(/ r$/, ''))), ['open maps/m r', 'sync maps/m', 'sync maps/m']);
    await s.store.close();
  });

  it('versions of growing size, written by the writer threads, hold their canonical bytes; earlier files are never rewritten', async () => {
    const store = await openFileStore(dir, { log });
    const identities: string[] = [];
    const identity = async (file: string) => {
      const st = await stat(file, { bigint: true });
      return `${st.ino}:${st.size}:${st.mtimeNs}`;
    };
    for (let n = 1; n <= 150; n++) {
      // Versions of a few KB with non-ASCII text: the file passes the writer's first scratch size early on.
      const entry = await store.append('maps', 'grown', next({ name: `Zürich ${n} → é`, note: `Zürich ${n} `.repeat(n % 7 * 400) }));
      assert.equal(await readFile(at('maps/grown', `v${n}.json`), 'utf8'), canonicalJson(entry), `version ${n}`);
      identities.push(await identity(at('maps/grown', `v${n}.json`)));
    }
    for (let n = 1; n <= 150; n++) assert.equal(await identity(at('maps/grown', `v${n}.json`)), identities[n - 1], `v${n}.json untouched`);
    await store.close();
  });

  it('writes the file in canonical form, continuing short writes', async () => {
    const store = await open(() => undefined, { maxWriteBytes: 7 });
    const entry = await store.append('datasets', 'd', () => ({ b: 'x'.repeat(100), a: [1, 2], version: 1 }));
    assert.equal(await readFile(at('datasets/d/v1.json'), 'utf8'), canonicalJson(entry));
    await store.close();
  });

  it('a write that makes no progress fails instead of looping', async () => {
    const limits: { maxWriteBytes?: number } = {};
    const store = await open(() => undefined, limits);
    limits.maxWriteBytes = 0;
    assert.equal((await serviceError(store.append('maps', 'm', next()))).code, 'storage_unavailable');
    assert.equal(store.head('maps', 'm'), undefined);
    assert.deepEqual(await walk(at('maps')), []);
    await store.close();
  });
});

describe('a failed write keeps the previous state', () => {
  // Each step of the durable write failing on a full disk, once; `temp`: a call on the temp file, `outlines`: on the
  // outlines file (appended once the version is on disk), else on the folder.
  const steps: Array<[string, Op, 'temp' | 'folder' | 'outlines']> = [
    ['creating the temp file', 'open', 'temp'],
    ['writing', 'write', 'temp'],
    ['fsyncing the file', 'sync', 'temp'],
    ['closing the file', 'close', 'temp'],
    ['renaming', 'rename', 'temp'],
    ['fsyncing the folder after the rename', 'sync', 'folder'],
    ['opening the outlines file', 'open', 'outlines'],
    ['appending the outline', 'write', 'outlines'],
    ['fsyncing the outline', 'sync', 'outlines'],
  ];
  /** A spy that fails the first matching call while `armed.on`, then lets calls through (space was freed). */
  const failOnce = (armed: { on: boolean }, op: Op, where: 'temp' | 'folder' | 'outlines', folder: string, code = 'ENOSPC'): Spy => (o, file) => {
    if (!armed.on || o !== op) return;
    if (where === 'temp' ? !file.endsWith('.tmp') : file !== (where === 'outlines' ? at(folder, '.outlines') : at(folder))) return;
    armed.on = false;
    throw errno(code);
  };

  for (const [label, op, where] of steps) {
    it(`a version: ENOSPC ${label} gives 507, keeps the head, the version count and the files; the next append works`, async () => {
      const armed = { on: false };
      const store = await open(failOnce(armed, op, where, 'maps/m'));
      await store.append('maps', 'm', next());
      const head = await store.append('maps', 'm', next());
      const files = await walk(at('maps'));
      armed.on = true;
      const error = await serviceError(store.append('maps', 'm', next({ lost: true })));
      assert.equal(armed.on, false, 'the failure was injected');
      assert.equal(error.code, 'storage_unavailable');
      assert.equal(error.status, 507);
      assert.match(error.message, /data folder is full; maps\/m\/v3\.json was not saved/);
      assert.equal(store.head('maps', 'm'), head, 'memory keeps the previous head');
      assert.deepEqual(store.versions('maps', 'm'), [1, 2]);
      assert.deepEqual(await walk(at('maps')), files, 'no version file, no temp file left');
      assert.ok(logs.some((m) => m.includes('maps/m/v3.json') && m.includes('ENOSPC')), 'the failure is logged');
      // Space freed: the same version number is written now (nothing on disk claims it).
      const v3 = await store.append('maps', 'm', next());
      assert.equal(v3.version, 3);
      assert.equal(await readFile(at('maps/m/v3.json'), 'utf8'), canonicalJson(v3));
      await store.close();
      const reopened = await open();
      assert.deepEqual(reopened.versions('maps', 'm'), [1, 2, 3]);
      assert.deepEqual(reopened.head('maps', 'm'), v3);
      const outlines = await reopened.outlines('maps', 'm');
      assert.deepEqual([...outlines.keys()].sort(), [1, 2, 3]);
      assert.equal(outlines.get(3)?.fields.lost, undefined, 'the outline of the version stored, not of the one that failed');
      await reopened.close();
    });
  }

  it('a new resource: ENOSPC creating its folder gives 507 and no resource', async () => {
    const armed = { on: true };
    const store = await open((op, file) => {
      if (armed.on && op === 'mkdir' && file === at('maps/new')) {
        armed.on = false;
        throw errno('ENOSPC');
      }
    });
    assert.equal((await serviceError(store.append('maps', 'new', next()))).code, 'storage_unavailable');
    assert.equal(store.head('maps', 'new'), undefined);
    assert.deepEqual(store.heads('maps'), []);
    assert.deepEqual((await store.append('maps', 'new', next())).version, 1);
    await store.close();
  });

  it('a new resource: ENOSPC writing its first version gives 507 and leaves no empty folder', async () => {
    const armed = { on: false };
    const store = await open(failOnce(armed, 'write', 'temp', 'maps/first'));
    armed.on = true;
    assert.equal((await serviceError(store.append('maps', 'first', next()))).code, 'storage_unavailable');
    assert.equal(armed.on, false, 'the failure was injected');
    assert.deepEqual(await readdir(at('maps')), [], 'no folder, no file');
    assert.equal((await store.append('maps', 'first', next())).version, 1);
    await store.close();
  });

  it('a new resource: a failed fsync of the collection folder is made good by the next append', async () => {
    const armed = { on: true };
    const calls: string[] = [];
    const store = await open((op, file, { flags }) => {
      calls.push(describeCall(op, file, undefined, flags));
      if (armed.on && op === 'sync' && file === at('maps')) {
        armed.on = false;
        throw errno('EIO');
      }
    });
    calls.length = 0;
    assert.equal((await serviceError(store.append('maps', 'new', next()))).code, 'storage_unavailable');
    assert.equal(store.head('maps', 'new'), undefined);
    calls.length = 0;
    await store.append('maps', 'new', next());
    // The folder exists now, but its entry in maps/ was never made durable: the retry fsyncs maps/ before writing v1.
    assert.deepEqual(calls.slice(0, 4), ['mkdir maps/new', 'open maps r', 'sync maps', 'close maps']);
    await store.close();
  });

  for (const [label, op, where] of steps.filter(([, , w]) => w !== 'outlines')) { // documents have no outlines
    it(`a private document: ENOSPC ${label} gives 507 and keeps the previous document in memory; the next write works`, async () => {
      const armed = { on: false };
      const store = await open(failOnce(armed, op, where, 'private'));
      const before = await store.update('private', 'users', () => ({ users: ['a'] }));
      armed.on = true;
      const error = await serviceError(store.update('private', 'users', () => ({ users: ['a', 'lost'] })));
      assert.equal(armed.on, false, 'the failure was injected');
      assert.equal(error.code, 'storage_unavailable');
      assert.match(error.message, /data folder is full; private\/users was not saved/);
      assert.equal(store.get('private', 'users'), before);
      assert.deepEqual(await tempsUnder(at('private')), []);
      if (where === 'temp') assert.equal(await readFile(at('private/users.json'), 'utf8'), canonicalJson(before), 'disk keeps the previous document');
      // Space freed: the next write goes ahead (a failure after the rename must not read as a change made by someone else).
      const after = await store.update('private', 'users', (cur: any) => ({ users: [...cur.users, 'b'] }));
      assert.deepEqual(after, { users: ['a', 'b'] });
      assert.equal(await readFile(at('private/users.json'), 'utf8'), canonicalJson(after));
      await store.close();
    });
  }
});

describe('full disk: nothing can be written, everything can be read', () => {
  // Two shapes of a full disk: data blocks gone (files can be created empty, not written)
  // and inodes gone too (nothing can be created). Either way the service starts and serves reads.
  const variants: Array<[string, boolean]> = [['no free blocks', false], ['no free blocks nor inodes', true]];
  for (const [label, noInodes] of variants) {
    it(`${label}: the open succeeds, reads are served, writes answer 507`, async () => {
      const first = await open();
      const v1 = await first.append('maps', 'm', next({ n: 1 }));
      const v2 = await first.append('maps', 'm', next({ n: 2 }));
      const users = await first.update('private', 'users', () => ({ users: ['admin'] }));
      const blob = await first.put({ rows: [1, 2, 3] });
      await first.close();
      const before = await walk(dir);

      const full: Spy = (op, file, { flags }) => {
        if (op === 'write') throw errno('ENOSPC');
        if (op === 'mkdir' && !existsSync(file)) throw errno('ENOSPC');
        if (noInodes && op === 'open' && /[wax+]/.test(flags ?? '')) throw errno('ENOSPC');
      };
      const store = await open(full);
      assert.ok(logs.some((m) => m.includes('.lock') && /full/.test(m)), `the lock that could not be written is logged: ${logs.join(' | ')}`);
      // Reads
      assert.deepEqual(store.head('maps', 'm'), v2);
      assert.deepEqual(await store.read('maps', 'm', 1), v1);
      assert.deepEqual(store.get('private', 'users'), users);
      assert.deepEqual(await store.fetch(blob), { rows: [1, 2, 3] });
      assert.deepEqual(store.problems(), []);
      // Writes
      const writes: Array<[string, () => Promise<unknown>]> = [
        ['append', () => store.append('maps', 'm', next())],
        ['append to a new resource', () => store.append('maps', 'other', next())],
        ['update', () => store.update('private', 'users', () => ({ users: [] }))],
        ['put', () => store.put({ rows: [4] })],
      ];
      for (const [what, write] of writes) {
        const error = await serviceError(write());
        assert.equal(error.code, 'storage_unavailable', what);
        assert.match(error.message, /data folder is full/, what);
      }
      assert.deepEqual(store.versions('maps', 'm'), [1, 2]);
      assert.deepEqual(store.head('maps', 'm'), v2);
      assert.equal(store.head('maps', 'other'), undefined);
      assert.deepEqual(store.get('private', 'users'), users);
      assert.deepEqual(store.blobKeys(), [blob]);
      await store.close();
      assert.deepEqual(await walk(dir), before, 'nothing left behind: no temp file, no lock');
      const again = await open();
      assert.deepEqual(again.head('maps', 'm'), v2);
      await again.close();
    });
  }
});

describe('files changed on disk', () => {
  describe('a private document', () => {
    // What a checkout, a merge or an editor does to a file the running service wrote.
    const file = () => at('private', 'm.json');
    const replace = async (text: string) => { // as git and most editors do: a new file renamed over the old one
      await writeFile(`${file()}.new`, text);
      await rename(`${file()}.new`, file());
    };
    const theirs = canonicalJson({ users: [{ name: 'theirs' }] });
    const ours = { users: [{ name: 'ours' }] };
    const nextDoc = () => ({ users: [{ name: 'ours' }, { name: 'second' }] });

    const refused: Array<[string, () => Promise<void>, string | undefined]> = [
      ['replaced by other content (a checkout)', () => replace(theirs), theirs],
      ['edited in place', () => writeFile(file(), theirs), theirs],
      ['deleted', () => rm(file()), undefined],
    ];
    for (const [label, change, left] of refused) {
      it(`a write over a file ${label} is refused with 409 changed_on_disk, and the change is kept`, async () => {
        const store = await open();
        const before = await store.update('private', 'm', () => ours);
        await change();
        const error = await serviceError(store.update('private', 'm', nextDoc));
        assert.equal(error.code, 'changed_on_disk');
        assert.equal(error.status, 409);
        assert.match(error.message, /private\/m was changed on disk .* restart the service/);
        assert.equal(await readFile(file(), 'utf8').catch(() => undefined), left);
        assert.equal(store.get('private', 'm'), before, 'memory keeps serving what the service had');
        assert.deepEqual(await tempsUnder(at('private')), [], 'no temp file left');
        assert.ok(logs.some((m) => m.includes('private/m') && m.includes('changed on disk')), 'the refusal is logged');
        await store.close();
        const reopened = await open();
        assert.deepEqual(reopened.get('private', 'm'), left === undefined ? undefined : JSON.parse(left), 'a restart serves the file as it is');
        await reopened.close();
      });
    }

    const allowed: Array<[string, () => Promise<void>]> = [
      ['touched (same content, new modification time)', async () => {
        const later = new Date(Date.now() + 60_000);
        await utimes(file(), later, later);
      }],
      ['checked out again with the same content', () => replace(canonicalJson(ours))],
      ['rewritten with the same JSON in another layout', () => replace(JSON.stringify({ users: [{ name: 'ours' }] }))],
    ];
    for (const [label, change] of allowed) {
      it(`a write over a file ${label} goes ahead, and so do the writes after it`, async () => {
        const store = await open();
        await store.update('private', 'm', () => ours);
        await change();
        const written = await store.update('private', 'm', nextDoc);
        assert.equal(await readFile(file(), 'utf8'), canonicalJson(written));
        const third = await store.update('private', 'm', (cur: any) => ({ users: [...cur.users, { name: 'third' }] }));
        assert.equal(await readFile(file(), 'utf8'), canonicalJson(third));
        await store.close();
      });
    }

    it('a file that appeared for a key the service does not know is not overwritten by a create', async () => {
      const store = await open();
      await writeFile(file(), theirs);
      await assert.rejects(store.update('private', 'm', () => ours), { code: 'changed_on_disk' });
      assert.equal(await readFile(file(), 'utf8'), theirs);
      assert.equal(store.get('private', 'm'), undefined);
      await store.close();
    });

    it('a delete refuses a file replaced on disk, and goes ahead when the file is already gone', async () => {
      const store = await open();
      await store.update('private', 'm', () => ours);
      await replace(theirs);
      await assert.rejects(store.delete('private', 'm'), { code: 'changed_on_disk' });
      assert.equal(await readFile(file(), 'utf8'), theirs);
      assert.ok(store.get('private', 'm'));
      await rm(file());
      await store.delete('private', 'm');
      assert.equal(store.get('private', 'm'), undefined);
      await store.close();
    });

    it('a file changed on disk before the service started is the one it knows', async () => {
      await put({ 'private/m.json': theirs });
      const store = await open();
      const written = await store.update('private', 'm', (cur: any) => ({ users: [...cur.users, { name: 'second' }] }));
      assert.equal(await readFile(file(), 'utf8'), canonicalJson(written));
      await store.close();
    });
  });

  describe('a version file', () => {
    const theirs = canonicalJson({ name: 'theirs', version: 3 });
    const cases: Array<[string, string, number]> = [
      ['the next version of a resource', 'maps/m/v3.json', 2],
      ['the first version of a resource the service does not know', 'maps/m/v1.json', 0],
    ];
    for (const [label, name, existing] of cases) {
      it(`put on disk for ${label} is not overwritten: the append is 409 changed_on_disk and the file kept`, async () => {
        const store = await open();
        for (let i = 0; i < existing; i++) await store.append('maps', 'm', next({ name: 'ours' }));
        const head = store.head('maps', 'm');
        await put({ [name]: theirs });
        const error = await serviceError(store.append('maps', 'm', next({ name: 'ours' })));
        assert.equal(error.code, 'changed_on_disk');
        assert.equal(error.status, 409);
        assert.match(error.message, new RegExp(`version ${existing + 1} of maps/m is already on disk .* restart the service`));
        assert.equal(await readFile(at(name), 'utf8'), theirs, 'their file is kept');
        assert.equal(store.head('maps', 'm'), head, 'memory keeps serving what the service had');
        assert.deepEqual(store.versions('maps', 'm'), Array.from({ length: existing }, (_, i) => i + 1));
        assert.deepEqual(await tempsUnder(at('maps')), []);
        assert.ok(logs.some((m) => m.includes(name) && m.includes('something other than the service')), 'the refusal is logged');
        await store.close();
      });
    }
  });
});

describe('open', () => {
  it('creates the folder tree and loads the head of every log, the blob names and the documents', async () => {
    const nested = path.join(dir, 'a', 'b');
    const files = {
      'maps/abc1234/v1.json': '{"name":"one","version":1}',
      'maps/abc1234/v2.json': '{"version": 2, "name": "two"}', // any JSON layout is read
      'datasets/ds1/v1.json': canonicalJson({ version: 1 }),
      [`results/${'a'.repeat(64)}.json`]: '[1,2]',
      'results/ds1.v1.json': '[3]', // a result named by an older service: still a valid key
      'private/users.json': canonicalJson({ users: [] }),
    };
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(nested, name)), { recursive: true });
      await writeFile(path.join(nested, name), text);
    }
    const store = await openFileStore(nested, { log });
    assert.deepEqual(store.heads('maps'), [['abc1234', { name: 'two', version: 2 }]]);
    assert.deepEqual(store.versions('maps', 'abc1234'), [1, 2]);
    assert.deepEqual(await store.read('maps', 'abc1234', 1), { name: 'one', version: 1 });
    assert.deepEqual(store.heads('datasets'), [['ds1', { version: 1 }]]);
    assert.deepEqual(store.blobKeys(), ['a'.repeat(64), 'ds1.v1']);
    assert.deepEqual(await store.fetch('ds1.v1'), [3]);
    assert.deepEqual(store.get('private', 'users'), { users: [] });
    assert.deepEqual(store.problems(), []);
    for (const c of ['maps', 'datasets', 'templates', 'results', 'private']) assert.ok((await stat(path.join(nested, c))).isDirectory());
    await store.close();
  });

  it('sweeps temp files left by interrupted writes, in collection folders and in resource folders, and keeps the rest', async () => {
    const first = await open();
    await first.append('maps', 'keep', next());
    await first.update('private', 'users', () => ({ users: [] }));
    await first.close();
    const leftovers = [
      'maps/keep/.v2.json.0123456789ab.tmp', // an append cut off
      'maps/.keep.json.0123456789ab.tmp', // a migration or an older service's write cut off
      `results/.${'b'.repeat(64)}.json.0123456789ab.tmp`,
      'private/.users.json.ba9876543210.tmp',
      '.lock.0123456789ab.stale.tmp',
    ];
    await put(Object.fromEntries(leftovers.map((f) => [f, '{"half'])));
    await put({ 'backup.tmp': 'a file of the user, not ours' });
    const store = await open();
    for (const f of leftovers) assert.ok(!existsSync(at(f)), `${f} swept`);
    assert.equal(await readFile(at('backup.tmp'), 'utf8'), 'a file of the user, not ours');
    assert.deepEqual(store.head('maps', 'keep'), { version: 1 });
    assert.deepEqual(store.versions('maps', 'keep'), [1]);
    for (const folder of ['', 'maps/keep', 'maps', 'results', 'private']) {
      assert.ok(logs.some((m) => m === `removed 1 unfinished temp file(s) from ${at(folder)}`), `${folder}: ${logs.join(' | ')}`);
    }
    await store.close();
  });

  it('ignores names that are not of the layout, with a notice, and deletes none of them', async () => {
    const odd = {
      'maps/README.md': 'notes', // a file where resource folders are
      'maps/bad name/v1.json': '{"version":1}', // a folder whose name is no ID
      'maps/empty/.gitkeep': '', // a folder with no versions
      'maps/abc/notes.txt': 'notes',
      'maps/abc/v01.json': '{"version":1}',
      'maps/abc/v0.json': '{"version":0}',
      'maps/abc/V2.json': '{"version":2}',
      'results/notes.txt': 'notes',
      'private/notes.txt': 'notes',
    };
    await put({ ...odd, 'maps/.gitkeep': '', 'maps/abc/v1.json': '{"version":1}' });
    const store = await open();
    assert.deepEqual(store.heads('maps'), [['abc', { version: 1 }]]);
    assert.deepEqual(store.versions('maps', 'abc'), [1]);
    assert.deepEqual(store.versions('maps', 'empty'), []);
    assert.deepEqual(store.blobKeys(), []);
    assert.deepEqual(store.entries('private'), []);
    assert.deepEqual(store.problems(), [], 'odd names are no problem of any resource');
    for (const name of Object.keys(odd)) {
      const shown = name.endsWith('.gitkeep') ? path.dirname(name) : name.startsWith('maps/bad name') ? 'maps/bad name' : name;
      assert.ok(logs.some((m) => m.includes(at(shown)) && /ignoring/.test(m)), `a notice for ${shown}: ${logs.join(' | ')}`);
    }
    assert.ok(!logs.some((m) => m.includes(at('maps/.gitkeep'))), 'hidden files are passed over silently');
    for (const name of [...Object.keys(odd), 'maps/.gitkeep']) assert.ok(existsSync(at(name)), `${name} kept`);
    await store.close();
  });

  describe('a resource whose latest file cannot be served is a problem; the others are served', () => {
    const cases: Array<[string, () => Promise<void>, RegExp]> = [
      ['is not valid JSON', () => put({ 'maps/bad/v2.json': '{"version": 2, "name": "cut off' }), /is not valid JSON/],
      ['holds another version', () => put({ 'maps/bad/v2.json': '{"version":1}' }), /does not hold an object with version 2/],
      ['holds no object', () => put({ 'maps/bad/v2.json': '[{"version":2}]' }), /does not hold an object with version 2/],
      ['holds null', () => put({ 'maps/bad/v2.json': 'null' }), /does not hold an object with version 2/],
      // Sparse: the size is what the store checks, no 256 MiB are written.
      ['is larger than the store reads', async () => {
        await put({ 'maps/bad/v2.json': '{"version":2}' });
        await truncate(at('maps/bad/v2.json'), MAX_FILE_BYTES + 1);
      }, new RegExp(`is ${MAX_FILE_BYTES + 1} bytes, more than the ${MAX_FILE_BYTES}`)],
      ['is a folder', () => mkdir(at('maps/bad/v2.json'), { recursive: true }).then(() => undefined), /cannot be read \(EISDIR\)/],
    ];
    for (const [label, damage, message] of cases) {
      it(`when it ${label}`, async () => {
        await put({ 'maps/good/v1.json': '{"version":1}', 'maps/bad/v1.json': '{"version":1,"n":"old"}', 'templates/t/v1.json': '{"version":1}' });
        await damage();
        const store = await open(); // the open does not fail
        assert.deepEqual(store.problems().map((p) => ({ ...p })), [
          { collection: 'maps', key: 'bad', where: 'maps/bad/v2.json', message: store.problems()[0]?.message },
        ]);
        assert.match(store.problems()[0].message, message);
        const error = thrownBy(() => store.head('maps', 'bad'));
        assert.equal(error.code, 'resource_unavailable');
        assert.equal(error.status, 503);
        assert.match(error.message, /maps\/bad cannot be served: data file maps\/bad\/v2\.json /);
        assert.match(error.message, message);
        assert.deepEqual(store.heads('maps'), [['good', { version: 1 }]], 'left out of the list');
        assert.deepEqual(store.head('maps', 'good'), { version: 1 });
        assert.deepEqual(store.heads('templates'), [['t', { version: 1 }]]);
        assert.deepEqual(store.versions('maps', 'bad'), [1, 2]);
        assert.deepEqual(await store.read('maps', 'bad', 1), { n: 'old', version: 1 }, 'its readable history is still served');
        // No version is added over a file the service cannot read.
        assert.equal((await serviceError(store.append('maps', 'bad', next()))).code, 'resource_unavailable');
        assert.ok(!existsSync(at('maps/bad/v3.json')));
        assert.ok(logs.some((m) => m.includes('maps/bad/v2.json') && m.includes('unavailable')), logs.join(' | '));
        await store.append('maps', 'good', next());
        await store.close();
      });
    }
  });

  describe('an older version that cannot be read: read() answers 503 and it becomes a problem; the rest is served', () => {
    const cases: Array<[string, () => Promise<void>, RegExp]> = [
      ['is not valid JSON', () => put({ 'maps/m/v2.json': '{"cut' }), /is not valid JSON/],
      ['holds another version', () => put({ 'maps/m/v2.json': '{"version":3}' }), /does not hold version 2/],
      ['is missing', () => rm(at('maps/m/v2.json')), /is missing/],
      ['is larger than the store reads', () => truncate(at('maps/m/v2.json'), MAX_FILE_BYTES + 1), /more than the/],
    ];
    for (const [label, damage, message] of cases) {
      it(`when it ${label}`, async () => {
        const first = await open();
        for (let i = 0; i < 3; i++) await first.append('maps', 'm', next({ i }));
        await first.close();
        const store = await open();
        await damage(); // under the running service: the open read the latest version only
        assert.deepEqual(store.problems(), []);
        for (let attempt = 0; attempt < 2; attempt++) {
          const error = await serviceError(store.read('maps', 'm', 2));
          assert.equal(error.code, 'resource_unavailable');
          assert.match(error.message, /data file maps\/m\/v2\.json /);
          assert.match(error.message, message);
        }
        assert.equal(store.problems().length, 1, 'listed once however often it is read');
        assert.deepEqual({ ...store.problems()[0], message: '' }, { collection: 'maps', key: 'm', where: 'maps/m/v2.json', message: '' });
        assert.deepEqual(store.head('maps', 'm'), { i: 2, version: 3 });
        assert.deepEqual(await store.read('maps', 'm', 1), { i: 0, version: 1 });
        await store.close();
      });
    }
  });

  const privateCases: Array<[string, string]> = [['is not valid JSON', '{"users": [cut'], ['holds no object or array', '42\n']];
  for (const [label, text] of privateCases) {
    it(`fails naming a private file that ${label}, and releases the folder`, async () => {
      await put({ 'private/users.json': text, 'maps/m/v1.json': '{"version":1}' });
      await assert.rejects(open(), (e: Error) => e.message.includes(at('private/users.json')));
      assert.ok(!existsSync(at('.lock')), 'the lock is released');
      await writeFile(at('private/users.json'), '{"users":[]}\n');
      const store = await open();
      assert.deepEqual(store.get('private', 'users'), { users: [] });
      await store.close();
    });
  }
});

describe('private folder', () => {
  it('is owner-only, ignored by git, and its files are 0600', async () => {
    const store = await open();
    await store.update('private', 'signing-key', () => ({ secret: 's' }));
    assert.equal(await mode(at('private')), 0o700);
    assert.equal(await readFile(at('private', '.gitignore'), 'utf8'), '*\n');
    assert.equal(await mode(at('private', 'signing-key.json')), 0o600);
    await store.close();
  });

  it('has loose permissions and a missing .gitignore repaired at open', async () => {
    const first = await open();
    await first.update('private', 'users', () => ({ users: [] }));
    await first.close();
    await chmod(at('private'), 0o755);
    await chmod(at('private', 'users.json'), 0o644);
    await rm(at('private', '.gitignore'));
    const store = await open();
    assert.equal(await mode(at('private')), 0o700);
    assert.equal(await mode(at('private', 'users.json')), 0o600);
    assert.equal(await readFile(at('private', '.gitignore'), 'utf8'), '*\n');
    await store.close();
  });
});

describe('root .gitignore', () => {
  it('a folder without one gets one that ignores the lock, temp files and outlines', async () => {
    const store = await open();
    const text = await readFile(at('.gitignore'), 'utf8');
    const lines = text.split('\n');
    assert.ok(lines.includes('.lock') && lines.includes('.*.tmp') && lines.includes('.outlines'), lines.join(' | '));
    assert.equal(text, await readFile(new URL('../../data/.gitignore', import.meta.url), 'utf8'), 'the demo data folder has the same');
    await store.close();
  });

  it('a folder with its own is left as it is', async () => {
    await writeFile(at('.gitignore'), 'mine\n');
    const store = await open();
    assert.equal(await readFile(at('.gitignore'), 'utf8'), 'mine\n');
    await store.close();
  });
});

describe('owner lock', () => {
  const lockFile = () => at('.lock');
  /** A child process that stays alive until killed. */
  const sleeper = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = (child: ReturnType<typeof spawn>) => new Promise((resolve) => child.once('exit', resolve));

  it('holds the pid while open and is removed by close', async () => {
    const store = await open();
    assert.equal(await readFile(lockFile(), 'utf8'), `${process.pid}\n`);
    await store.close();
    await assert.rejects(stat(lockFile()), { code: 'ENOENT' });
  });

  it('refuses a second opener in this process until the first closes', async () => {
    const store = await open();
    await assert.rejects(open(), (e: Error) =>
      e.message === `data folder ${dir} is in use by process ${process.pid}; stop it or point MTS_DATA_DIR elsewhere ` +
        `(if no such process is running, delete ${lockFile()})`);
    await store.close();
    const again = await open();
    await again.close();
  });

  it('refuses a folder locked by another running process, and takes it over once that process is gone', async () => {
    const child = sleeper();
    await writeFile(lockFile(), `${child.pid}\n`);
    try {
      await assert.rejects(open(), new RegExp(`in use by process ${child.pid};`));
      assert.equal(await readFile(lockFile(), 'utf8'), `${child.pid}\n`, 'a live lock is left alone');
    } finally {
      child.kill('SIGKILL');
      await exited(child);
    }
    const store = await open();
    assert.equal(await readFile(lockFile(), 'utf8'), `${process.pid}\n`);
    await store.close();
  });

  const staleContents: Array<[string, () => Promise<string>]> = [
    ['the pid of a finished process', async () => {
      const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
      await exited(child);
      return `${child.pid}\n`;
    }],
    ['garbage', async () => 'not a pid'],
    ['nothing (owner died while creating it)', async () => ''],
    ['pid 0 (never a valid owner)', async () => '0\n'],
    ['this process\'s pid from an earlier life (e.g. pid 1 in a restarted container)', async () => `${process.pid}\n`],
  ];
  for (const [label, content] of staleContents) {
    it(`takes over a stale lock holding ${label}`, async () => {
      await writeFile(lockFile(), await content());
      const store = await open();
      assert.equal(await readFile(lockFile(), 'utf8'), `${process.pid}\n`);
      assert.deepEqual((await readdir(dir)).filter((n) => n.startsWith('.lock')), ['.lock']);
      await store.close();
    });
  }
});

describe('a long history', () => {
  it('writing a 10,000-version history costs the same bytes per version, the first or the ten-thousandth', async () => {
    // Bytes and files written per append, by append number (the old layout rewrote the whole history each time).
    const costs = new Map<number, { files: string[]; bytes: number }>();
    let current = 0;
    const recorder: Spy = (op, file, { flags, bytes }) => {
      if (!current) return;
      let cost = costs.get(current);
      if (!cost) costs.set(current, (cost = { files: [], bytes: 0 }));
      if (op === 'open' && flags === 'wx') cost.files.push(describeCall(op, file));
      if (op === 'write') cost.bytes += bytes!.length;
    };
    const content = { name: 'Backbone', layers: [{ name: 'links', color: '#ff0000', width: 2 }], note: 'ünïcödé' };
    const entry = (n: number) => ({ ...content, version: n });
    const appendThrough = async (store: Store, from: number, to: number) => {
      for (let n = from; n <= to; n++) {
        current = n;
        await store.append('maps', 'long', () => entry(n));
      }
      current = 0;
    };
    let store = await open(recorder);
    await appendThrough(store, 1, 1000);
    await store.close();
    // Versions 1001..9998 as the store writes them, put there by hand: a fsync each would make this test slow, not stronger.
    for (let n = 1001; n <= 9998; n += 250) {
      await Promise.all(Array.from({ length: Math.min(250, 9999 - n) }, (_, i) =>
        writeFile(at('maps/long', `v${n + i}.json`), canonicalJson(entry(n + i)))));
    }
    store = await open(recorder);
    assert.equal(store.versions('maps', 'long').length, 9998);
    await appendThrough(store, 9999, 10_000);
    // A version's own bytes and its outline's line.
    const sizeOf = (n: number) => Buffer.byteLength(canonicalJson(entry(n))) + Buffer.byteLength(`\n${n} ${outlineText(outlineOf(entry(n)))}`);
    for (const n of [1, 9, 10, 99, 1000, 9999, 10_000]) {
      assert.deepEqual(costs.get(n)!.files, [`open maps/long/.v${n}.json.<rand>.tmp`], `append ${n} writes one file, its own`);
      assert.equal(costs.get(n)!.bytes, sizeOf(n), `append ${n} writes its own bytes and its outline, nothing more`);
    }
    // Same content, as many digits in the version number: the same bytes, early or late in the history.
    assert.equal(costs.get(1000)!.bytes, costs.get(9999)!.bytes);
    assert.equal(costs.get(1)!.bytes, costs.get(9)!.bytes);
    assert.equal(costs.get(10)!.bytes, costs.get(99)!.bytes);
    assert.equal((await readdir(at('maps/long'))).filter((name) => name.endsWith('.json')).length, 10_000);
    assert.deepEqual(await store.read('maps', 'long', 500), entry(500));
    await store.close();
  });

  it('after a restart of 2,000 versions of one resource only the head is in memory: an older version is read from disk', async () => {
    const versions = 2000;
    const files: Record<string, string> = {};
    for (let n = 1; n <= versions; n++) files[`maps/big/v${n}.json`] = canonicalJson({ n, text: 'x'.repeat(100), version: n });
    await mkdir(at('maps/big'), { recursive: true });
    const names = Object.entries(files);
    for (let i = 0; i < names.length; i += 100) {
      await Promise.all(names.slice(i, i + 100).map(([name, text]) => writeFile(at(name), text)));
    }
    const reads: string[] = [];
    const store = await open((op, file) => void (op === 'readFile' && file.startsWith(at('maps/big')) && reads.push(rel(file))));
    assert.deepEqual(reads, ['maps/big/v2000.json'], 'the open reads the latest version only');
    assert.equal(store.versions('maps', 'big').length, versions);
    assert.deepEqual(store.head('maps', 'big'), JSON.parse(files['maps/big/v2000.json']));
    reads.length = 0;
    assert.deepEqual(await store.read('maps', 'big', versions), JSON.parse(files['maps/big/v2000.json']));
    assert.deepEqual(reads, [], 'the head is in memory');
    assert.deepEqual(await store.read('maps', 'big', 1), JSON.parse(files['maps/big/v1.json']));
    assert.deepEqual(await store.read('maps', 'big', 1500), JSON.parse(files['maps/big/v1500.json']));
    assert.deepEqual(reads, ['maps/big/v1.json', 'maps/big/v1500.json'], 'older versions come from disk');
    reads.length = 0;
    assert.deepEqual(await store.read('maps', 'big', 1), JSON.parse(files['maps/big/v1.json']));
    assert.deepEqual(reads, [], 'a version read recently is cached');
    // Never read, so never held: a version removed on disk since the open is missing.
    await rm(at('maps/big/v7.json'));
    assert.equal((await serviceError(store.read('maps', 'big', 7))).code, 'resource_unavailable');
    await store.close();
  });
});
