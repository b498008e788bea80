// `npm run test:fast`: every test file with MTS_TEST_FAST=1, loaded into three
// processes (shards, run side by side) instead of one process per file, since
// loading tsx and the service's modules costs each process about 1.2 s of CPU.
// Files are split by the durations the last recorded run wrote to costs.json
// (`-- --record` rewrites it); files in isolated.ts run in processes of their
// own, and the files of a group in together.ts share one. Prints the dot reporter's output, then the totals; exits 1 on a failure.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ISOLATED } from './isolated.ts';
import { plan } from './plan.ts';
import { TOGETHER } from './together.ts';
import type { ShardTally } from './reporter.ts';

const here = import.meta.dirname;
/**
 * Processes run side by side, on two cores: a third keeps both busy while a file waits (on the service in a child
 * process, on fsync, on a worker thread starting), which the files of two lanes often did at the same time.
 */
const LANES = 3;
const costsFile = join(here, 'costs.json');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(dir, name))
    .sort();
}

function readCosts(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(costsFile, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * The temp folder of the test processes: a new one under /dev/shm (memory) where there is one. The tests' data
 * folders write durably, and on a disk shared with other work their fsyncs waited most of a lane's time (file.test,
 * data-folder and contract: 89 s of wall time on /tmp, 31 s here, at a load average of 16); what the tests check
 * of durability is the write sequence (file-system spies, SIGKILL), which memory keeps as a disk does. `npm test`
 * runs them on the disk. tsx keeps its transforms in `<temp>/tsx-<uid>`: linked to the usual one, to stay warm.
 */
function testTemp(): string {
  let base = tmpdir();
  try {
    accessSync('/dev/shm', constants.W_OK);
    base = '/dev/shm';
  } catch { /* no memory-backed folder: the usual one */ }
  const dir = mkdtempSync(join(base, 'mts-fast-'));
  const tsxCache = `tsx-${process.geteuid?.() ?? 'user'}`;
  if (base !== tmpdir()) {
    mkdirSync(join(tmpdir(), tsxCache), { recursive: true });
    symlinkSync(join(tmpdir(), tsxCache), join(dir, tsxCache));
  }
  // Ctrl-C reaches the test processes too (one process group); the folder goes with them.
  process.once('SIGINT', () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
  return dir;
}

function runProcess(files: string[], tallyFile: string): Promise<number | null> {
  const args = ['--import', 'tsx', '--test-reporter=dot', '--test-reporter-destination=stdout'];
  args.push(`--test-reporter=${join(here, 'reporter.ts')}`, `--test-reporter-destination=${tallyFile}`);
  const child = spawn(process.execPath, [...args, join(here, 'shard.ts'), ...files], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NODE_TEST_CONTEXT: undefined, MTS_TEST_FAST: '1', TMPDIR: work },
  });
  return new Promise((done) => child.on('close', (code) => done(code)));
}

const record = process.argv.includes('--record');
const files = testFiles('test');
const work = testTemp();
let runs = 0;
const codes: (number | null)[] = [];
const lanes = plan(files, readCosts(), ISOLATED, LANES, TOGETHER);
await Promise.all(
  lanes.map(async (lane) => {
    const groups = [lane.shard, ...lane.alone.map((f) => [f])].filter((g) => g.length > 0);
    for (const group of groups) codes.push(await runProcess(group, join(work, `${runs++}.json`)));
  }),
);
const total: ShardTally = { passed: 0, failed: 0, skipped: 0, todo: 0, files: {}, failures: [] };
for (let i = 0; i < runs; i++) {
  let tally: ShardTally;
  try {
    tally = JSON.parse(readFileSync(join(work, `${i}.json`), 'utf8'));
  } catch {
    continue; // a process that died before its reporter finished: its exit code says so
  }
  for (const key of ['passed', 'failed', 'skipped', 'todo'] as const) total[key] += tally[key];
  total.failures?.push(...(tally.failures ?? []));
  Object.assign(total.files, tally.files);
}
rmSync(work, { recursive: true, force: true });
const missing = files.filter((f) => !(f in total.files));
console.log(
  `\nfast: ${files.length} files in ${runs} processes; tests ${total.passed + total.failed + total.skipped + total.todo}` +
    `, passed ${total.passed}, failed ${total.failed}, skipped ${total.skipped}, todo ${total.todo}`,
);
for (const failure of total.failures ?? []) console.log(`fast: failed: ${failure}`);
if (missing.length > 0) console.log(`fast: files that did not finish: ${missing.join(', ')}`);
if (record) writeFileSync(costsFile, `${JSON.stringify(total.files, Object.keys(total.files).sort(), 1)}\n`);
process.exitCode = codes.every((c) => c === 0) && total.failed === 0 && missing.length === 0 ? 0 : 1;
