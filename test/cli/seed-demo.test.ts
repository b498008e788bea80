// The demo seed (cli/seed-demo.ts): it rebuilds the demo content of a copy of
// the demo folder, and it refuses, changing nothing, a folder that is in use,
// has users, or lacks the demo sheets.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { seedDemo, seedDemoCli } from '../../cli/seed-demo.ts';
import { openFileStore } from '../../store/file.ts';
import { makeTestApp } from '../helpers/app.ts';
import { itAnswersItsCommandLine } from './command-line.ts';
import { copyDemoData } from '../helpers/demo-data.ts';

const root = path.resolve(import.meta.dirname, '../..');
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mts-seed-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function seed() {
  const out: string[] = [];
  const err: string[] = [];
  const code = await seedDemo(dir, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every file under the content folders, with its bytes: what a refusal must leave as it was. */
async function content() {
  const files: Record<string, string> = {};
  for (const folder of ['maps', 'datasets', 'templates', 'results']) {
    for (const entry of await readdir(path.join(dir, folder), { withFileTypes: true }).catch(() => [])) {
      const names = entry.isDirectory() ? (await readdir(path.join(dir, folder, entry.name))).map((n) => `${entry.name}/${n}`) : [entry.name];
      for (const name of names) files[`${folder}/${name}`] = await readFile(path.join(dir, folder, name), 'utf8');
    }
  }
  return files;
}

/** The resource folders of a collection among content() paths. */
const resources = (files: string[], folder: string) => [...new Set(files.filter((f) => f.startsWith(`${folder}/`)).map((f) => f.split('/')[1]))];

describe('seed-demo', () => {
  it('replaces the content of a demo folder with a new published map over three executed datasets, and leaves no account', async () => {
    await copyDemoData(dir);
    const before = Object.keys(await content());
    const { code, out, err } = await seed();
    assert.equal(err, '');
    assert.equal(code, 0);
    assert.equal(out.match(/^dataset \w{7} v2: [1-9]\d* records/gm)?.length, 3, out);
    const mapId = /^map (\w{7}) published/m.exec(out)?.[1];
    assert.ok(mapId, out);
    const after = Object.keys(await content());
    // Results are named by the hash of their content: the same records come back under the same name.
    assert.deepEqual(after.filter((f) => before.includes(f) && !f.startsWith('results/')), [], 'every old document is gone');
    assert.deepEqual(after.filter((f) => f.startsWith('maps/')), [`maps/${mapId}/.outlines`, `maps/${mapId}/v1.json`, `maps/${mapId}/v2.json`],
      'created, then published (beside the versions, their outlines)');
    assert.equal(resources(after, 'datasets').length, 3);
    assert.equal(resources(after, 'templates').length, 3, 'the two defaults and the demo badge');
    await assert.rejects(stat(path.join(dir, 'private')), { code: 'ENOENT' });

    const t = await makeTestApp({ dir });
    try {
      const svg = await t.request(`/api/v1/public/output/map/${mapId}/svg/`);
      assert.equal(svg.status, 200);
      assert.match(await svg.text(), /^<svg /);
    } finally {
      await t.close(false);
    }
  });

  it('refuses a folder with users and changes nothing', async () => {
    await copyDemoData(dir);
    const t = await makeTestApp({ dir }); // a start creates the admin user
    await t.close(false);
    const before = await content();
    const { code, err } = await seed();
    assert.equal(code, 2);
    assert.match(err, /has users \(private\/users\.json\), so it is not a demo folder; nothing was changed/);
    assert.deepEqual(await content(), before);
    assert.ok(await stat(path.join(dir, 'private', 'users.json')));
  });

  it('refuses a folder a running service holds and changes nothing', async () => {
    await copyDemoData(dir);
    const before = await content();
    const store = await openFileStore(dir, { log: () => undefined });
    try {
      const { code, err } = await seed();
      assert.equal(code, 2);
      assert.match(err, /^The service \(process \d+\) is running on .*Stop it, run the seed, then start it again\.$/);
      assert.deepEqual(await content(), before);
    } finally {
      await store.close();
    }
  });

  it('fails, changing nothing, when a demo sheet cannot be read (a rehearsal runs first)', async () => {
    await copyDemoData(dir);
    await writeFile(path.join(dir, 'sheets', 'rne-exchanges.csv'), 'not,a,circuit,sheet\n1,2,3,4\n');
    await writeFile(path.join(dir, 'sheets', 'rne-backbone.xlsx'), 'this is no workbook');
    const before = await content();
    const { code, err } = await seed();
    assert.equal(code, 1);
    assert.match(err, /would fail, so nothing was changed: PUT \/api\/v1\/dataset\/id\/\w{7}\/: 422 rne-backbone.xlsx is not a readable xlsx workbook/);
    assert.deepEqual(await content(), before);
    await assert.rejects(stat(path.join(dir, 'private')), { code: 'ENOENT' });
  });

  it('refuses a folder without the demo sheets, naming them, and creates nothing', async () => {
    const { code, err } = await seed();
    assert.equal(code, 1);
    assert.match(err, /lacks the demo sheets rne-backbone\.xlsx, rne-exchanges\.csv/);
    assert.deepEqual(await readdir(dir), []);
  });

  it('as a command: the exit code and message of a refusal', async () => {
    await copyDemoData(dir);
    await (await makeTestApp({ dir })).close(false);
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/seed-demo.ts', dir], { cwd: root });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 2);
    assert.match(err, /has users/);
  });

  it('as a command, interrupted (Ctrl-C) while seeding: it leaves no seeding account behind', async () => {
    await copyDemoData(dir);
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/seed-demo.ts', dir], { cwd: root });
    const users = path.join(dir, 'private', 'users.json');
    while (!(await stat(users).then(() => true, () => false))) {
      if (child.exitCode !== null) assert.fail('the seed ended before it created its account');
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGINT');
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    assert.ok(signal === 'SIGINT' || code !== 0, `ended with ${code} ${signal}`);
    await assert.rejects(stat(path.join(dir, 'private')), { code: 'ENOENT' });
  });
});

describe('seed-demo: its command line', () => {
  itAnswersItsCommandLine(seedDemoCli, /^usage: npx tsx cli\/seed-demo\.ts \[data-folder\]\n/);
});
