// cli/make-demo-sheets.ts: its arguments, and, as a command, files replaced
// whole (temp file renamed over the old one), never written in place.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeDemoSheetsCli } from '../../cli/make-demo-sheets.ts';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The command, run from the temp folder: an argument taken for a folder lands there, never in the repository. */
async function run(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(root, 'cli', 'make-demo-sheets.ts'), ...args], { cwd: dir });
  let out = '', err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, out, err };
}

let dir: string;
before(async () => { dir = await mkdtemp(path.join(tmpdir(), 'mts-demo-sheets-')); });
after(() => rm(dir, { recursive: true, force: true }));

// In this process: a child per case cost some 1.2 s of CPU (tsx and the modules) for a line of output.
describe('make-demo-sheets arguments', () => {
  /** The command's function, with the temp folder as its working folder. */
  async function cli(...args: string[]) {
    let out = '', err = '';
    const code = await makeDemoSheetsCli(args, { out: (l) => { out += `${l}\n`; }, err: (l) => { err += `${l}\n`; } }, dir);
    return { code, out, err };
  }
  const refused: Array<[string[], string]> = [[['--chek', 'sheets'], 'unknown option --chek'], [['--force'], 'unknown option --force'],
    [['one', 'two'], 'unexpected argument "two"']];
  for (const [args, problem] of refused) {
    it(`refuses ${args.join(' ')} with what is wrong, the usage line and exit code 2, writing nothing`, async () => {
      const { code, out, err } = await cli(...args);
      assert.equal(code, 2);
      assert.ok(err.startsWith(`${problem}\nusage: npx tsx cli/make-demo-sheets.ts [--check] [folder]`), err);
      assert.equal(out, '');
      assert.deepEqual(await readdir(dir), []);
    });
  }
  it('prints its usage for --help, exit code 0, writing nothing', async () => {
    const { code, out, err } = await cli('--help');
    assert.equal(code, 0, err);
    assert.match(out, /^usage: npx tsx cli\/make-demo-sheets\.ts \[--check\] \[folder\]\n.*--check writes nothing/s);
    assert.deepEqual(await readdir(dir), []);
  });
});

describe('make-demo-sheets writes', () => {
  it('replaces a sheet by a new inode and leaves no temp file; --check reports an out-of-date sheet with exit code 1', async () => {
    const folder = path.join(dir, 'sheets');
    assert.equal((await run(folder)).code, 0);
    const csv = path.join(folder, 'rne-exchanges.csv');
    await writeFile(csv, 'source,destination\nA,B\n');
    const before = (await stat(csv)).ino;
    const check = await run('--check', folder);
    assert.equal(check.code, 1);
    assert.match(check.out, /^out of date: .*rne-exchanges\.csv/m);
    const again = await run(folder);
    assert.equal(again.code, 0);
    assert.match(again.out, /^wrote .*rne-exchanges\.csv/m);
    assert.notEqual((await stat(csv)).ino, before, 'renamed over, not rewritten in place');
    assert.deepEqual((await readdir(folder)).sort(), ['rne-backbone.xlsx', 'rne-exchanges.csv']);
  });
});
