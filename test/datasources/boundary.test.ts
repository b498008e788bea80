// The spreadsheet folder is a boundary (docs/api.md: Datasources; the listing is
// public): a symbolic link whose target lies outside the folder is not
// listed, not read and not named, nor is a hard link or a file that is not a
// regular file, and no listing or error quotes the content of a file the
// service cannot use.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { csvText, endpoint, query, registryFor, rejectsWith, tempDir, writeCsv, xlsxBuffer } from './helpers.ts';

const CANARY = 'CANARY-3f9a1c';

let dir: string;
let outside: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  outside = await mkdtemp(path.join(tmpdir(), 'mts-outside-'));
  await writeCsv(dir, 'good.csv', [['source', 'destination'], ['a', 'b']]);
});
afterEach(async () => {
  await cleanup();
  await rm(outside, { recursive: true, force: true });
});

const passwd = `root:x:0:0:${CANARY}:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n`;

describe('symbolic links', () => {
  it('a link to a file outside the folder is not listed, not runnable, and its content never shows', async () => {
    await writeFile(path.join(outside, 'passwd'), passwd);
    await symlink(path.join(outside, 'passwd'), path.join(dir, 'passwd.csv'));
    // A usable sheet outside is not used either: the folder is the boundary, not the format.
    await writeFile(path.join(outside, 'circuits.csv'), csvText([['source', 'destination', 'note'], ['x', 'y', CANARY]]));
    await symlink(path.join(outside, 'circuits.csv'), path.join(dir, 'outside.csv'));
    await writeFile(path.join(outside, 'book.xlsx'), await xlsxBuffer([{ name: 'Circuits', rows: [['source', 'destination', CANARY], ['x', 'y', 1]] }]));
    await symlink(path.join(outside, 'book.xlsx'), path.join(dir, 'book.xlsx'));

    const registry = registryFor(dir);
    const listed = await registry.list();
    assert.deepEqual(Object.keys(listed), [endpoint('good', 'good')]);
    assert.ok(!JSON.stringify(listed).includes(CANARY));
    for (const ep of [endpoint('passwd', 'passwd'), endpoint('outside', 'outside'), endpoint('book', 'Circuits')]) {
      const err = await rejectsWith(registry.run(query(ep)), 'datasource_unavailable');
      assert.match(err.message, /does not exist/);
      assert.ok(!err.message.includes(CANARY) && !err.message.includes(outside));
      assert.match((await registry.endpointProblems(ep))[0], /does not exist/);
    }
  });

  it('a link through a linked folder out of the folder is refused too; a dangling link is ignored', async () => {
    await mkdir(path.join(outside, 'sub'));
    await writeFile(path.join(outside, 'sub', 'c.csv'), csvText([['source', 'destination'], ['x', CANARY]]));
    await symlink(path.join(outside, 'sub'), path.join(dir, 'linked-dir'));
    await symlink(path.join(dir, 'linked-dir', 'c.csv'), path.join(dir, 'via.csv'));
    await symlink(path.join(dir, 'gone.csv'), path.join(dir, 'dangling.csv'));
    const listed = await registryFor(dir).list();
    assert.deepEqual(Object.keys(listed), [endpoint('good', 'good')]);
  });

  it('a link to a file inside the folder works, as does a folder that is itself reached through a link', async () => {
    await mkdir(path.join(dir, 'archive'));
    await writeCsv(path.join(dir, 'archive'), '2026.csv', [['source', 'destination'], ['c', 'd']]);
    await symlink(path.join(dir, 'archive', '2026.csv'), path.join(dir, 'current.csv'));
    const linkedFolder = path.join(outside, 'sheets-link');
    await symlink(dir, linkedFolder);
    for (const registry of [registryFor(dir), registryFor(linkedFolder)]) {
      assert.deepEqual(Object.keys(await registry.list()), [endpoint('current', 'current'), endpoint('good', 'good')]);
      assert.deepEqual((await registry.run(query(endpoint('current', 'current')))).records.map((r) => r.source), ['c']);
    }
  });

  it('an outside link does not hide a CSV of the same sheet_id inside', async () => {
    await writeFile(path.join(outside, 'x.xlsx'), await xlsxBuffer([{ name: 'x', rows: [['source', 'destination'], ['o', 'p']] }]));
    await symlink(path.join(outside, 'x.xlsx'), path.join(dir, 'same.xlsx'));
    await writeCsv(dir, 'same.csv', [['source', 'destination'], ['in', 'side']]);
    assert.deepEqual((await registryFor(dir).run(query(endpoint('same', 'same')))).records.map((r) => r.source), ['in']);
  });
});

describe('hard links and other files that are not plain files', () => {
  it('a hard link (to a file elsewhere) and a FIFO are not listed, not runnable, and never read', async () => {
    await writeFile(path.join(outside, 'passwd'), passwd);
    // Both names on one file system: the temp folder's (link() across devices fails, and the test with it).
    await link(path.join(outside, 'passwd'), path.join(dir, 'linked.csv'));
    // A FIFO would hang a reader for good.
    execFileSync('mkfifo', [path.join(dir, 'pipe.csv')]);
    const registry = registryFor(dir);
    assert.deepEqual(Object.keys(await registry.list()), [endpoint('good', 'good')]);
    for (const ep of [endpoint('linked', 'linked'), endpoint('pipe', 'pipe')]) {
      const err = await rejectsWith(registry.run(query(ep)), 'datasource_unavailable');
      assert.ok(!err.message.includes(CANARY));
    }
  });
});

describe('files the service cannot use', () => {
  it('a text file without the required columns is listed as unavailable, without quoting it', async () => {
    await writeFile(path.join(dir, 'notes.csv'), passwd);
    const registry = registryFor(dir);
    const entry = (await registry.list())[endpoint('notes', 'notes')];
    assert.equal(entry.available, false);
    assert.match(entry.error as string, /notes\.csv has no sheet with source and destination columns \(its first row has 1 filled cell/);
    assert.ok(!JSON.stringify(entry).includes(CANARY) && !JSON.stringify(entry).includes('root'));
    const err = await rejectsWith(registry.run(query(endpoint('notes', 'notes'))), 'validation_failed');
    assert.ok(!err.message.includes(CANARY));
  });

  it('text named .xlsx is unavailable without quoting it', async () => {
    await writeFile(path.join(dir, 'fake.xlsx'), `<x>${CANARY}</x>\n${passwd}`);
    const entry = (await registryFor(dir).list())[endpoint('fake', '')];
    assert.equal(entry.available, false);
    assert.match(entry.error as string, /fake\.xlsx is not a readable xlsx workbook/);
    assert.ok(!JSON.stringify(entry).includes(CANARY));
  });
});
