// Writer threads (store/writer.ts): the durable write sequence run on the
// pool the service uses, over the real file system. The order of the calls
// is asserted in file.test.ts, where the same sequence runs inline.
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { identityOf } from '../../store/write-thread.mjs';
import { jobLength, threadWriter, type Job, type Writer } from '../../store/writer.ts';

let dir: string;
let writer: Writer;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mts-writer-'));
  writer = threadWriter();
});
afterEach(async () => {
  await writer.close();
  await rm(dir, { recursive: true, force: true });
});

describe('threadWriter', () => {
  it('writes the exact bytes with the requested mode and leaves no temp file', async () => {
    const file = path.join(dir, 'key.json');
    const bytes = Buffer.from('{\n  "ünïcode": "ok"\n}\n');
    await writer.write(file, [bytes], 0o600);
    assert.equal(await readFile(file, 'utf8'), '{\n  "ünïcode": "ok"\n}\n');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(dir), ['key.json']);
  });

  it('answers the identity of the file written, and refuses a write or removal whose file is no longer that one', async () => {
    const file = path.join(dir, 'doc.json');
    const first = await writer.write(file, [Buffer.from('{"n":1}')], 0o666, '');
    assert.equal(first, identityOf(await stat(file, { bigint: true })));
    const second = await writer.write(file, [Buffer.from('{"n":2}')], 0o666, first);
    assert.notEqual(second, first);
    await assert.rejects(writer.write(file, [Buffer.from('{"n":3}')], 0o666, first), { code: 'ECHANGED' });
    await assert.rejects(writer.write(file, [Buffer.from('{"n":3}')], 0o666, ''), { code: 'ECHANGED' });
    await assert.rejects(writer.remove(file, first), { code: 'ECHANGED' });
    assert.equal(await readFile(file, 'utf8'), '{"n":2}');
    assert.deepEqual(await readdir(dir), ['doc.json'], 'no temp file left');
    assert.equal(await writer.remove(file, second), true);
    assert.deepEqual(await readdir(dir), []);
  });

  it('writes a file given in chunks, larger writes after smaller ones and smaller after larger', async () => {
    const file = path.join(dir, 'doc.json');
    for (const kb of [1, 300, 2, 900, 0]) {
      const chunks = [Buffer.from('{"a":"'), Buffer.alloc(kb * 1024, 'é'.charCodeAt(0) % 26 + 97), Buffer.from(`","kb":${kb}}`)];
      await writer.write(file, chunks, 0o666);
      assert.deepEqual(await readFile(file), Buffer.concat(chunks), `${kb} KB`);
    }
  });

  it('takes writes to many files at once, each file ending with its last write', async () => {
    const files = Array.from({ length: 12 }, (_, i) => path.join(dir, `f${i}.json`));
    // Writes to one file follow each other (as the store's per-document lock makes them); files run in parallel.
    await Promise.all(files.map(async (file, i) => {
      for (let n = 1; n <= 5; n++) await writer.write(file, [Buffer.from(`${i}:${n}:${'x'.repeat(20_000 * (n % 2))}`)], 0o666);
    }));
    for (const [i, file] of files.entries()) assert.match(await readFile(file, 'utf8'), new RegExp(`^${i}:5:x{20000}$`));
    assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);
  });

  it('gives each of many writes queued at once its own outcome, failures among them', async () => {
    // Far more writes than threads: most wait in the queue and run in groups.
    const files = Array.from({ length: 40 }, (_, i) => path.join(dir, `q${i}.json`));
    files[7] = path.join(dir, 'no-such-folder', 'q7.json');
    files[23] = path.join(dir, 'q23-is-a-folder');
    await mkdir(path.join(files[23], 'inner'), { recursive: true });
    const outcomes = await Promise.allSettled(files.map((file, i) => writer.write(file, [Buffer.from(`${i}:`), Buffer.alloc(i * 500, 'x')], 0o666)));
    for (const [i, outcome] of outcomes.entries()) {
      if (i === 7) assert.equal(outcome.status === 'rejected' && outcome.reason.code, 'ENOENT');
      else if (i === 23) assert.equal(outcome.status, 'rejected');
      else {
        assert.equal(outcome.status, 'fulfilled', `write ${i}`);
        assert.equal(await readFile(files[i], 'utf8'), `${i}:${'x'.repeat(i * 500)}`);
      }
    }
    assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);
  });

  it('close settles every write: queued ones are refused, none is left waiting', { timeout: 10_000 }, async () => {
    const settled = Promise.allSettled(Array.from({ length: 40 }, (_, i) => writer.write(path.join(dir, `c${i}.json`), [Buffer.from(`${i}`)], 0o666)));
    await writer.close();
    const outcomes = await settled;
    const refused = outcomes.filter((o) => o.status === 'rejected');
    // Those still queued are refused; those a thread had begun may have landed, or failed as it stopped.
    assert.ok(refused.filter((o) => o.reason.code === 'ESHUTDOWN').length >= 30, 'most writes were still queued at close');
    for (const o of refused) assert.ok(['ESHUTDOWN', 'EIO'].includes(o.reason.code), o.reason.message);
    for (const [i, o] of outcomes.entries()) {
      if (o.status === 'fulfilled') assert.equal(await readFile(path.join(dir, `c${i}.json`), 'utf8'), `${i}`);
    }
  });

  it('reports a failure with its errno code and removes the temp file', async () => {
    const missing = path.join(dir, 'no-such-folder', 'a.json');
    await assert.rejects(writer.write(missing, [Buffer.from('{}')], 0o666), { code: 'ENOENT' });
    // Renaming a file over a non-empty folder fails after the temp file was written.
    const intoFolder = path.join(dir, 'taken');
    await mkdir(path.join(intoFolder, 'inner'), { recursive: true });
    await assert.rejects(writer.write(intoFolder, [Buffer.from('{}')], 0o666), (e: NodeJS.ErrnoException) => ['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(e.code!));
    assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);
  });

  it('removes a file, answering whether it existed', async () => {
    const file = path.join(dir, 'gone.json');
    await writer.write(file, [Buffer.from('{}')], 0o666);
    assert.equal(await writer.remove(file), true);
    await assert.rejects(stat(file), { code: 'ENOENT' });
    assert.equal(await writer.remove(file), false);
  });

  it('close releases the folder descriptors its threads kept open', async () => {
    /** Descriptors of this process that point into the test's folder. */
    const held = async () => (await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => ''))))
      .filter((target) => target === dir || target.startsWith(dir + path.sep));
    await Promise.all([1, 2, 3, 4].map((n) => writer.write(path.join(dir, `f${n}.json`), [Buffer.from('{}')], 0o666)));
    assert.ok((await held()).length > 0, 'the threads keep the folder open for its fsyncs');
    await writer.close();
    assert.deepEqual(await held(), []);
  });

  it('refuses writes once closed', async () => {
    await writer.write(path.join(dir, 'a.json'), [Buffer.from('{}')], 0o666);
    await writer.close();
    await assert.rejects(writer.write(path.join(dir, 'b.json'), [Buffer.from('{}')], 0o666), { code: 'ESHUTDOWN' });
  });
});

describe('jobLength: how many queued jobs the next free thread takes', () => {
  const write = (file: string, kib = 1): Job => ({ op: 'write', file, chunks: [Buffer.alloc(kib * 1024)], mode: 0o666 });
  const writes = (count: number, kib = 1) => Array.from({ length: count }, (_, i) => write(`f${i}`, kib));
  const remove = (file: string): Job => ({ op: 'remove', file });
  const cases: Array<[string, Job[], number]> = [
    ['one write alone', writes(1), 1],
    ['an even share of the queue among the four threads', writes(12), 3],
    ['a share rounded up', writes(13), 4],
    ['eight writes at most', writes(40), 8],
    ['a removal alone', [remove('f0'), ...writes(11)], 1],
    ['writes up to a removal', [...writes(2), remove('f9'), ...writes(9)], 2],
    ['writes up to a second write to the same file', [write('a'), write('b'), write('a'), ...writes(9)], 2],
    ['1 MB together at most', writes(32, 300), 3],
    ['a first write over 1 MB, alone', [write('big', 2048), ...writes(31)], 1],
  ];
  for (const [title, queue, expected] of cases) {
    it(`${title}: ${expected} of ${queue.length}`, () => assert.equal(jobLength(queue, 4), expected));
  }
});
