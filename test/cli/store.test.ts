// `npm run store -- export|import <folder>`: a deployment moves between a data
// folder and PostgreSQL exactly (the demo data folder, with a private
// document, comes back byte for byte), and neither side is ever written over.
// The demo is copied as committed: what a local `npm start` left in data/
// (private/, the lock) belongs to that install, not to the test.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runStoreCli } from '../../cli/store.ts';
import { openFileStore } from '../../store/file.ts';
import { noPostgres, startCluster, type Cluster } from '../helpers/postgres.ts';
import { copyDemoData } from '../helpers/demo-data.ts';

const STORED = ['maps', 'datasets', 'templates', 'results', 'private'];

/** Every stored file under `dir`, relative path -> content; the versions' outlines (.outlines, made from them) apart. */
async function storedFiles(dir: string, outlines: string[] = []): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const c of STORED) {
    for (const entry of await readdir(path.join(dir, c), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      if (entry.name === '.outlines') {
        outlines.push(path.relative(dir, entry.parentPath));
        continue;
      }
      const file = path.join(entry.parentPath, entry.name);
      files.set(path.relative(dir, file), await readFile(file, 'utf8'));
    }
  }
  return files;
}

describe('npm run store -- export|import', { skip: noPostgres }, () => {
  let cluster: Cluster;
  let work: string;
  before(async () => {
    cluster = await startCluster();
    work = await mkdtemp(path.join(tmpdir(), 'mts-store-cli-'));
  });
  after(async () => {
    await cluster?.stop();
    await rm(work, { recursive: true, force: true });
  });

  const run = async (url: string, ...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runStoreCli(argv, { env: { MTS_DATABASE_URL: url }, out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('round-trips the demo data folder: an export after an import gives the same files', async () => {
    const source = path.join(work, 'source');
    await copyDemoData(source);
    const store = await openFileStore(source, { log: () => undefined });
    await store.update('private', 'users', () => ({ users: [{ username: 'admin', name: 'Ünïcode "quoted"' }] }));
    await store.close();
    const before = await storedFiles(source);
    assert.ok([...before.keys()].some((f) => f.startsWith('maps/')) && [...before.keys()].some((f) => f.startsWith('results/')));

    const url = await cluster.createDatabase();
    const imported = await run(url, 'import', source);
    assert.equal(imported.code, 0, imported.err);
    assert.match(imported.out, /imported 1 documents, \d+ resources \(\d+ versions\) and 3 results/);
    const target = path.join(work, 'exported');
    const exported = await run(url, 'export', target);
    assert.equal(exported.code, 0, exported.err);
    const outlines: string[] = [];
    assert.deepEqual(await storedFiles(target, outlines), before);
    const logs = new Set([...before.keys()].filter((f) => /^(maps|datasets|templates)\//.test(f)).map((f) => path.dirname(f)));
    assert.deepEqual(outlines.sort(), [...logs].sort(), 'every exported resource has its versions\' outlines');
  });

  it('refuses to import into a database that holds data, or export into a folder that does', async () => {
    const source = path.join(work, 'again');
    await copyDemoData(source);
    const url = await cluster.createDatabase();
    assert.equal((await run(url, 'import', source)).code, 0);
    const twice = await run(url, 'import', source);
    assert.equal(twice.code, 1);
    assert.match(twice.err, /the database must be empty, and it holds data already \(maps, datasets, templates, results\)/);
    const over = await run(url, 'export', source);
    assert.equal(over.code, 1);
    assert.match(over.err, /the data folder .* must be empty/);
  });

});

describe('npm run store: its command line', () => {
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runStoreCli(argv, { env: { MTS_DATABASE_URL: 'postgresql://127.0.0.1:1/x' }, out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const cases: Array<[string, string[], number, RegExp]> = [
    ['--help', ['--help'], 0, /^usage:\n {2}npm run store -- export <folder>/],
    ['-h', ['-h'], 0, /npm run store -- import <folder>/],
    ['the word help', ['help'], 0, /npm run store -- import <folder>/],
    ['an unknown option', ['export', 'x', '--force'], 2, /^unknown option --force\nusage:/],
    ['an unknown command', ['backup', 'x'], 2, /^unknown command "backup"\nusage:/],
    ['no folder', ['export'], 2, /^missing arguments\nusage:/],
    ['a second folder', ['import', 'a', 'b'], 2, /^unexpected argument "b"\nusage:/],
    ['nothing', [], 2, /^missing arguments\nusage:/],
  ];
  for (const [what, argv, code, text] of cases) {
    it(`${what}: exit ${code}, before any database is asked`, async () => {
      const r = await run(...argv);
      assert.equal(r.code, code, r.err);
      assert.match(code === 0 ? r.out : r.err, text);
      assert.equal(code === 0 ? r.err : r.out, '');
    });
  }
});
