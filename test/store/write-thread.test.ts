// The durable write sequence of store/write-thread.mjs run as a group, as a
// writer thread runs the writes that queued while it was busy: the calls it
// makes, in order, and how one write's failure stays its own. The sequence
// runs here on the test's thread over a facade that records or fails calls.
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { statSync } from 'node:fs';
import { durableWriter, identityOf } from '../../store/write-thread.mjs';
import { errno, spyFs, type Op, type Spy } from './fs-spy.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mts-write-group-'));
  await mkdir(path.join(dir, 'maps'));
  await mkdir(path.join(dir, 'datasets'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The group used throughout: two files in maps/, one in datasets/. */
const group = () => [
  { file: path.join(dir, 'maps', 'a.json'), bytes: Buffer.from('{"a":2}'), mode: 0o666 },
  { file: path.join(dir, 'maps', 'b.json'), bytes: Buffer.from('{"b":2}'), mode: 0o666 },
  { file: path.join(dir, 'datasets', 'c.json'), bytes: Buffer.from('{"c":2}'), mode: 0o666 },
];

/** Each file of the group holding its first content, `{"x":1}`. */
async function seed() {
  for (const { file } of group()) await writeFile(file, `{"${path.basename(file, '.json')}":1}`);
}

/** A temp file's call named by the file it stands for: "sync .a.json" for the temp of a.json. */
const describeCall = (op: Op, file: string, to?: string) => {
  const name = path.basename(file);
  const temp = name.match(/^\.(.+)\.[0-9a-f]{12}\.tmp$/);
  if (to) return `${op} .${temp?.[1]} -> ${path.relative(dir, to)}`;
  return temp ? `${op} .${temp[1]}` : `${op} ${path.relative(dir, file)}`;
};

/** The errno code of a write's failure; undefined when it was written. */
const codeOf = (outcome: { identity: string } | { error: unknown }) =>
  'error' in outcome ? (outcome.error as NodeJS.ErrnoException).code : undefined;

async function contents() {
  return Promise.all(group().map(({ file }) => readFile(file, 'utf8')));
}
async function temps() {
  return [...await readdir(path.join(dir, 'maps')), ...await readdir(path.join(dir, 'datasets'))].filter((n) => n.endsWith('.tmp'));
}

describe('a group of writes', () => {
  it('puts every temp file on disk, then renames each, then fsyncs each folder once', async () => {
    await seed();
    const calls: string[] = [];
    const writer = durableWriter(spyFs((op, file, { to }) => void calls.push(describeCall(op, file, to))).syncFs);
    const outcomes = writer.writeAll(group());
    writer.close();
    assert.deepEqual(outcomes.map((o) => Object.keys(o)), [['identity'], ['identity'], ['identity']]);
    assert.deepEqual(calls, [
      'open .a.json', 'write .a.json', 'sync .a.json', 'close .a.json',
      'open .b.json', 'write .b.json', 'sync .b.json', 'close .b.json',
      'open .c.json', 'write .c.json', 'sync .c.json', 'close .c.json',
      'rename .a.json -> maps/a.json', 'rename .b.json -> maps/b.json', 'rename .c.json -> datasets/c.json',
      'open maps', 'sync maps', 'open datasets', 'sync datasets',
      'close maps', 'close datasets',
    ]);
    assert.deepEqual(await contents(), ['{"a":2}', '{"b":2}', '{"c":2}']);
  });

  const stagingFailures: Array<[Op, string]> = [['open', 'ENOSPC'], ['write', 'EIO'], ['sync', 'EDQUOT'], ['rename', 'EIO']];
  for (const [failAt, code] of stagingFailures) {
    it(`a write that fails at ${failAt} (${code}) fails alone; the others land`, async () => {
      await seed();
      const calls: string[] = [];
      const spy: Spy = (op, file, { to }) => {
        calls.push(describeCall(op, file, to));
        if (op === failAt && path.basename(file).startsWith('.b.json.')) throw errno(code);
      };
      const writer = durableWriter(spyFs(spy).syncFs);
      const outcomes = writer.writeAll(group());
      writer.close();
      assert.deepEqual(outcomes.map(codeOf), [undefined, code, undefined]);
      assert.deepEqual(await contents(), ['{"a":2}', '{"b":1}', '{"c":2}']);
      assert.deepEqual(await temps(), [], 'the failed write leaves no temp file');
      // The folder of the failed write is still fsynced, once, for the write beside it.
      assert.equal(calls.filter((c) => c === 'sync maps').length, 1);
    });
  }

  it('a write whose file changed since the identity it expects fails alone, checked just before its rename', async () => {
    await seed();
    const identities = group().map(({ file }) => identityOf(statSync(file, { bigint: true })));
    await writeFile(group()[1].file, '{"b":"theirs"}');
    const calls: string[] = [];
    const writer = durableWriter(spyFs((op, file, { to }) => void calls.push(describeCall(op, file, to))).syncFs);
    const outcomes = writer.writeAll(group().map((w, i) => ({ ...w, expect: identities[i] })));
    writer.close();
    assert.deepEqual(outcomes.map(codeOf), [undefined, 'ECHANGED', undefined]);
    assert.deepEqual(await contents(), ['{"a":2}', '{"b":"theirs"}', '{"c":2}']);
    assert.deepEqual(await temps(), []);
    assert.deepEqual(calls.slice(12, 17), ['stat maps/a.json', 'rename .a.json -> maps/a.json', 'stat maps/b.json', 'unlink .b.json', 'stat datasets/c.json']);
    assert.equal((outcomes[0] as { identity: string }).identity, identityOf(statSync(group()[0].file, { bigint: true })));
  });

  it('a failed folder fsync fails every write renamed into that folder, and only those', async () => {
    await seed();
    const writer = durableWriter(spyFs((op, file) => {
      if (op === 'sync' && file === path.join(dir, 'maps')) throw errno('EIO');
    }).syncFs);
    const outcomes = writer.writeAll(group());
    writer.close();
    assert.deepEqual(outcomes.map(codeOf), ['EIO', 'EIO', undefined]);
  });

  it('a group of one is the single write', async () => {
    const calls: string[] = [];
    const writer = durableWriter(spyFs((op, file, { to }) => void calls.push(describeCall(op, file, to))).syncFs);
    const [write] = group();
    writer.write(write.file, write.bytes, write.mode);
    assert.throws(() => writer.write(path.join(dir, 'missing', 'd.json'), write.bytes, write.mode), { code: 'ENOENT' });
    writer.close();
    assert.deepEqual(calls, [
      'open .a.json', 'write .a.json', 'sync .a.json', 'close .a.json', 'rename .a.json -> maps/a.json', 'open maps', 'sync maps',
      'open .d.json', 'unlink .d.json', 'close maps',
    ]);
    assert.equal(await readFile(write.file, 'utf8'), '{"a":2}');
  });

  it('a folder removed and made again (a dropped log started anew) is fsynced through a descriptor of the new folder', async () => {
    // A descriptor kept for the removed folder would still fsync without error, and make nothing durable.
    const calls: string[] = [];
    const writer = durableWriter(spyFs((op, file, { to }) => void calls.push(describeCall(op, file, to))).syncFs);
    const folder = path.join(dir, 'maps', 'm');
    await mkdir(folder);
    writer.write(path.join(folder, 'v1.json'), Buffer.from('{"version":1}'), 0o666);
    writer.remove(path.join(folder, 'v1.json'));
    await rmdir(folder);
    await mkdir(folder);
    calls.length = 0;
    writer.write(path.join(folder, 'v1.json'), Buffer.from('{"version":1,"again":true}'), 0o666);
    assert.deepEqual(calls.slice(-4), ['rename .v1.json -> maps/m/v1.json', 'close maps/m', 'open maps/m', 'sync maps/m']);
    writer.close();
    assert.equal(await readFile(path.join(folder, 'v1.json'), 'utf8'), '{"version":1,"again":true}');
  });
});
