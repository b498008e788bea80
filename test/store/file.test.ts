// File-adapter specifics beyond the shared contract: the order of file-system
// calls that makes a write durable, failures (full disk, short writes), the
// sweep of leftover temp files, files changed on disk under the running
// service, the private folder, the owner lock and unreadable data files at
// open.
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../errors.ts';
import { canonicalJson } from '../../store/canonical-json.ts';
import { openFileStore } from '../../store/file.ts';
import type { Store } from '../../store/types.ts';
import { errno, spyFs, type Op, type Spy } from './fs-spy.ts';

let dir: string;
const logs: string[] = [];
const log = (m: string) => void logs.push(m);
/** `opts` is read at each write, so a test can limit writes after opening. */
const open = (spy?: Spy, opts?: { maxWriteBytes?: number }) =>
  openFileStore(dir, { log, ...(spy ? spyFs(spy, opts) : {}) });
const rel = (file: string) => path.relative(dir, file) || '.';
const mode = async (file: string) => (await stat(file)).mode & 0o777;
const tempsIn = async (folder: string) => (await readdir(folder)).filter((n) => n.endsWith('.tmp'));

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mts-store-file-'));
  logs.length = 0;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('durability order', () => {
  it('write, fsync file, close, check the target is unchanged, rename, fsync folder, then the promise resolves; memory changes last', async () => {
    const events: string[] = [];
    let recording = false;
    let store!: Store;
    let written = '';
    store = await open((op, file, { to, flags, bytes }) => {
      if (!recording) return;
      const name = rel(file).replace(/\.[0-9a-f]{12}\.tmp$/, '.<rand>.tmp');
      events.push(`${op} ${name}${to ? ` -> ${rel(to)}` : ''}${flags ? ` ${flags}` : ''}`);
      if (bytes) written += Buffer.from(bytes).toString();
      if (op === 'rename' || (op === 'sync' && name === 'maps')) {
        events.push(`  memory: ${JSON.stringify(store.get('maps', 'm1'))}`);
      }
    });
    await store.update('maps', 'm1', () => ({ version: 1 }));
    recording = true;
    await store.update('maps', 'm1', () => ({ version: 2 })).then(() => events.push('resolved'));
    assert.deepEqual(events, [
      'open maps/.m1.json.<rand>.tmp wx',
      'write maps/.m1.json.<rand>.tmp',
      'sync maps/.m1.json.<rand>.tmp',
      'close maps/.m1.json.<rand>.tmp',
      'stat maps/m1.json', // still the file the service wrote last (see "files changed on disk")
      'rename maps/.m1.json.<rand>.tmp -> maps/m1.json',
      '  memory: {"version":1}',
      'sync maps', // the folder's handle stays open between writes (opened by the first one)
      '  memory: {"version":1}',
      'resolved',
    ]);
    assert.equal(written, canonicalJson({ version: 2 }));
    assert.deepEqual(store.get('maps', 'm1'), { version: 2 });
    await store.close();
  });

  it('delete: check the file is unchanged, unlink, fsync folder, then the promise resolves', async () => {
    const events: string[] = [];
    let recording = false;
    const store = await open((op, file, { flags }) => void (recording && events.push(`${op} ${rel(file)}${flags ? ` ${flags}` : ''}`)));
    await store.update('templates', 't', () => ({}));
    recording = true;
    await store.delete('templates', 't').then(() => events.push('resolved'));
    assert.deepEqual(events, ['stat templates/t.json', 'unlink templates/t.json', 'sync templates', 'resolved']);
    await assert.rejects(stat(path.join(dir, 'templates', 't.json')), { code: 'ENOENT' });
    await store.close();
  });

  it('a document grown over 150 writes on the writer threads holds its canonical bytes after each one', async () => {
    const store = await openFileStore(dir, { log });
    type Doc = { name: string; versions: unknown[] };
    let doc: Doc | undefined;
    for (let n = 1; n <= 150; n++) {
      // Versions of a few KB with non-ASCII text: the file passes the writer's first scratch size early on.
      doc = await store.update<Doc>('maps', 'grown', (cur) => ({
        name: n % 40 === 0 ? `renamed ${n} → é` : cur?.name ?? 'grown',
        versions: [...(cur?.versions ?? []), { version: n, note: `Zürich ${n} `.repeat(n % 7 * 40) }],
      }));
      assert.equal(await readFile(path.join(dir, 'maps', 'grown.json'), 'utf8'), canonicalJson(doc), `write ${n}`);
    }
    await store.close();
  });

  it('writes the file in canonical form, continuing short writes', async () => {
    const store = await open(() => undefined, { maxWriteBytes: 7 });
    const doc = await store.update('datasets', 'd', () => ({ b: 'x'.repeat(100), a: [1, 2] }));
    assert.equal(await readFile(path.join(dir, 'datasets', 'd.json'), 'utf8'), canonicalJson(doc));
    await store.close();
  });
});

describe('a failed write keeps the previous document', () => {
  const cases: Array<[string, Op, string, RegExp]> = [
    ['disk full while writing', 'write', 'ENOSPC', /data folder is full; maps\/m was not saved/],
    ['quota exceeded at fsync', 'sync', 'EDQUOT', /data folder is full/],
    ['disk full creating the temp file', 'open', 'ENOSPC', /data folder is full/],
    ['I/O error at rename', 'rename', 'EIO', /could not be written \(EIO\)/],
  ];
  for (const [label, failAt, code, message] of cases) {
    it(`${label} (${code} at ${failAt})`, async () => {
      let failing = false;
      const store = await open((op, file) => {
        if (failing && op === failAt && file.endsWith('.tmp')) throw errno(code);
      });
      // A growing versions array: the retry below appends to the bytes kept from the last good write.
      const append = (version: number) => (doc: { versions: unknown[] } | undefined) => ({ versions: [...(doc?.versions ?? []), { version }] });
      const before = await store.update('maps', 'm', append(1));
      const file = path.join(dir, 'maps', 'm.json');
      const bytes = await readFile(file, 'utf8');
      failing = true;
      const error = await store.update('maps', 'm', append(2)).catch((e) => e);
      assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${error}`);
      assert.equal(error.code, 'storage_unavailable');
      assert.match(error.message, message);
      assert.equal(store.get('maps', 'm'), before, 'memory keeps the previous document');
      assert.equal(await readFile(file, 'utf8'), bytes, 'disk keeps the previous document');
      assert.deepEqual(await tempsIn(path.join(dir, 'maps')), [], 'no temp file left');
      assert.ok(logs.some((m) => m.includes('maps/m') && m.includes(code)), 'the failure is logged');
      failing = false; // space freed: the next write works
      const after = await store.update('maps', 'm', append(2));
      assert.deepEqual(after, { versions: [{ version: 1 }, { version: 2 }] });
      assert.equal(await readFile(file, 'utf8'), canonicalJson(after));
      await store.close();
    });
  }

  it('a write that makes no progress fails instead of looping', async () => {
    const limits: { maxWriteBytes?: number } = {};
    const store = await open(() => undefined, limits);
    limits.maxWriteBytes = 0;
    const error = await store.update('maps', 'm', () => ({ n: 1 })).catch((e) => e);
    assert.equal(error.code, 'storage_unavailable');
    assert.equal(store.get('maps', 'm'), undefined);
    assert.deepEqual(await readdir(path.join(dir, 'maps')), []);
    await store.close();
  });

  it('a failed folder fsync after the rename still rejects and memory keeps the previous document', async () => {
    let failing = false;
    const store = await open((op, file) => {
      if (failing && op === 'sync' && rel(file) === 'maps') throw errno('EIO');
    });
    const before = await store.update('maps', 'm', () => ({ version: 1 }));
    failing = true;
    await assert.rejects(store.update('maps', 'm', () => ({ version: 2 })), { code: 'storage_unavailable' });
    assert.equal(store.get('maps', 'm'), before);
    await store.close();
  });
});

describe('files changed on disk', () => {
  // What a checkout, a merge or an editor does to a file the running service wrote.
  const file = () => path.join(dir, 'maps', 'm.json');
  const replace = async (text: string) => { // as git and most editors do: a new file renamed over the old one
    await writeFile(`${file()}.new`, text);
    await rename(`${file()}.new`, file());
  };
  const theirs = canonicalJson({ versions: [{ version: 1, name: 'theirs' }] });
  const ours = { versions: [{ version: 1, name: 'ours' }] };
  const next = () => ({ versions: [{ version: 1, name: 'ours' }, { version: 2, name: 'ours' }] });

  const refused: Array<[string, () => Promise<void>, string | undefined]> = [
    ['replaced by other content (a checkout)', () => replace(theirs), theirs],
    ['edited in place', () => writeFile(file(), theirs), theirs],
    ['deleted', () => rm(file()), undefined],
  ];
  for (const [label, change, left] of refused) {
    it(`a write over a file ${label} is refused with 409 changed_on_disk, and the change is kept`, async () => {
      const store = await open();
      const before = await store.update('maps', 'm', () => ours);
      await change();
      const error = await store.update('maps', 'm', next).catch((e) => e);
      assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${error}`);
      assert.equal(error.code, 'changed_on_disk');
      assert.equal(error.status, 409);
      assert.match(error.message, /maps\/m was changed on disk .* restart the service/);
      assert.equal(await readFile(file(), 'utf8').catch(() => undefined), left);
      assert.equal(store.get('maps', 'm'), before, 'memory keeps serving what the service had');
      assert.deepEqual(await tempsIn(path.join(dir, 'maps')), [], 'no temp file left');
      assert.ok(logs.some((m) => m.includes('maps/m') && m.includes('changed on disk')), 'the refusal is logged');
      await store.close();
      const reopened = await open();
      assert.deepEqual(reopened.get('maps', 'm'), left === undefined ? undefined : JSON.parse(left), 'a restart serves the file as it is');
      await reopened.close();
    });
  }

  const allowed: Array<[string, () => Promise<void>]> = [
    ['touched (same content, new modification time)', async () => {
      const later = new Date(Date.now() + 60_000);
      await utimes(file(), later, later);
    }],
    ['checked out again with the same content', () => replace(canonicalJson(ours))],
    ['rewritten with the same JSON in another layout', () => replace(JSON.stringify({ versions: [{ name: 'ours', version: 1 }] }))],
  ];
  for (const [label, change] of allowed) {
    it(`a write over a file ${label} goes ahead, and so do the writes after it`, async () => {
      const store = await open();
      await store.update('maps', 'm', () => ours);
      await change();
      const written = await store.update('maps', 'm', next);
      assert.equal(await readFile(file(), 'utf8'), canonicalJson(written));
      const third = await store.update('maps', 'm', (cur: any) => ({ versions: [...cur.versions, { version: 3 }] }));
      assert.equal(await readFile(file(), 'utf8'), canonicalJson(third));
      await store.close();
    });
  }

  it('a file that appeared for a key the service does not know is not overwritten by a create', async () => {
    const store = await open();
    await writeFile(file(), theirs);
    await assert.rejects(store.update('maps', 'm', () => ours), { code: 'changed_on_disk' });
    assert.equal(await readFile(file(), 'utf8'), theirs);
    assert.equal(store.get('maps', 'm'), undefined);
    await store.close();
  });

  it('a delete refuses a file replaced on disk, and goes ahead when the file is already gone', async () => {
    const store = await open();
    await store.update('maps', 'm', () => ours);
    await replace(theirs);
    await assert.rejects(store.delete('maps', 'm'), { code: 'changed_on_disk' });
    assert.equal(await readFile(file(), 'utf8'), theirs);
    assert.ok(store.get('maps', 'm'));
    await rm(file());
    await store.delete('maps', 'm');
    assert.equal(store.get('maps', 'm'), undefined);
    await store.close();
  });

  it('a file changed on disk before the service started is the one it knows', async () => {
    await mkdir(path.join(dir, 'maps'), { recursive: true });
    await writeFile(file(), theirs);
    const store = await open();
    const written = await store.update('maps', 'm', (cur: any) => ({ versions: [...cur.versions, { version: 2 }] }));
    assert.equal(await readFile(file(), 'utf8'), canonicalJson(written));
    await store.close();
  });
});

describe('open', () => {
  it('creates the folder tree and loads every document', async () => {
    const nested = path.join(dir, 'a', 'b');
    await mkdir(path.join(nested, 'maps'), { recursive: true });
    await writeFile(path.join(nested, 'maps', 'abc1234.json'), canonicalJson({ name: 'n' }));
    const store = await openFileStore(nested, { log });
    assert.deepEqual(store.entries('maps'), [['abc1234', { name: 'n' }]]);
    for (const c of ['maps', 'datasets', 'templates', 'results', 'private']) assert.ok((await stat(path.join(nested, c))).isDirectory());
    await store.close();
  });

  it('sweeps temp files left by interrupted writes and keeps the documents', async () => {
    const first = await open();
    await first.update('maps', 'keep', () => ({ n: 1 }));
    await first.update('private', 'users', () => ({ users: [] }));
    await first.close();
    const leftovers = ['maps/.keep.json.0123456789ab.tmp', 'private/.users.json.ba9876543210.tmp', '.lock.0123456789ab.stale.tmp'];
    for (const f of leftovers) await writeFile(path.join(dir, f), '{"half');
    await writeFile(path.join(dir, 'backup.tmp'), 'a file of the user, not ours');
    const store = await open();
    for (const f of leftovers) await assert.rejects(stat(path.join(dir, f)), { code: 'ENOENT' }, f);
    assert.equal(await readFile(path.join(dir, 'backup.tmp'), 'utf8'), 'a file of the user, not ours');
    assert.deepEqual(store.get('maps', 'keep'), { n: 1 });
    assert.ok(logs.some((m) => /removed 1 unfinished temp file/.test(m)));
    await store.close();
  });

  it('fails naming a data file that is not valid JSON, and releases the folder', async () => {
    await mkdir(path.join(dir, 'maps'), { recursive: true });
    const bad = path.join(dir, 'maps', 'broken1.json');
    await writeFile(bad, '{"name": "cut off');
    await assert.rejects(open(), (e: Error) => e.message.includes(bad) && /not valid JSON/.test(e.message));
    await writeFile(bad, '{}\n');
    const store = await open();
    assert.deepEqual(store.get('maps', 'broken1'), {});
    await store.close();
  });

  it('fails naming a data file that holds no object or array', async () => {
    await mkdir(path.join(dir, 'datasets'), { recursive: true });
    const bad = path.join(dir, 'datasets', 'scalar.json');
    await writeFile(bad, '42\n');
    await assert.rejects(open(), (e: Error) => e.message.includes(bad));
  });

  it('ignores other files with a notice, without deleting them', async () => {
    await mkdir(path.join(dir, 'maps'), { recursive: true });
    await writeFile(path.join(dir, 'maps', 'README.md'), 'notes');
    await writeFile(path.join(dir, 'maps', 'bad name.json'), '{}');
    await writeFile(path.join(dir, 'maps', '.gitkeep'), '');
    const store = await open();
    assert.deepEqual(store.entries('maps'), []);
    assert.ok(logs.some((m) => m.includes('README.md')));
    assert.ok(logs.some((m) => m.includes('bad name.json')));
    assert.ok(!logs.some((m) => m.includes('.gitkeep')));
    assert.deepEqual((await readdir(path.join(dir, 'maps'))).sort(), ['.gitkeep', 'README.md', 'bad name.json']);
    await store.close();
  });
});

describe('private folder', () => {
  it('is owner-only, ignored by git, and its files are 0600', async () => {
    const store = await open();
    await store.update('private', 'signing-key', () => ({ secret: 's' }));
    assert.equal(await mode(path.join(dir, 'private')), 0o700);
    assert.equal(await readFile(path.join(dir, 'private', '.gitignore'), 'utf8'), '*\n');
    assert.equal(await mode(path.join(dir, 'private', 'signing-key.json')), 0o600);
    await store.close();
  });

  it('has loose permissions and a missing .gitignore repaired at open', async () => {
    const first = await open();
    await first.update('private', 'users', () => ({ users: [] }));
    await first.close();
    await chmod(path.join(dir, 'private'), 0o755);
    await chmod(path.join(dir, 'private', 'users.json'), 0o644);
    await rm(path.join(dir, 'private', '.gitignore'));
    const store = await open();
    assert.equal(await mode(path.join(dir, 'private')), 0o700);
    assert.equal(await mode(path.join(dir, 'private', 'users.json')), 0o600);
    assert.equal(await readFile(path.join(dir, 'private', '.gitignore'), 'utf8'), '*\n');
    await store.close();
  });
});

describe('root .gitignore', () => {
  it('a folder without one gets one that ignores the lock and temp files', async () => {
    const store = await open();
    const lines = (await readFile(path.join(dir, '.gitignore'), 'utf8')).split('\n');
    assert.ok(lines.includes('.lock') && lines.includes('.*.tmp'), lines.join(' | '));
    await store.close();
  });

  it('a folder with its own is left as it is', async () => {
    await writeFile(path.join(dir, '.gitignore'), 'mine\n');
    const store = await open();
    assert.equal(await readFile(path.join(dir, '.gitignore'), 'utf8'), 'mine\n');
    await store.close();
  });
});

describe('owner lock', () => {
  const lockFile = () => path.join(dir, '.lock');
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
