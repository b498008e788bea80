// The fast runner's shard: files loaded into one process keep their hooks to
// themselves, run in order, and a failure in any of them fails the process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const here = import.meta.dirname;
const shard = (env: Record<string, string> = {}) => {
  // Without NODE_TEST_CONTEXT, which node --test sets to make a child report to it in its own format.
  const { FIXTURE_FAIL: _, NODE_TEST_CONTEXT: __, ...clean } = process.env;
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test-reporter=spec', join(here, 'shard.ts'),
      join(here, 'fixtures/hooks-first.ts'), join(here, 'fixtures/hooks-second.ts')],
    { encoding: 'utf8', env: { ...clean, ...env } },
  );
};

describe('shard: several test files in one process', () => {
  it("scopes each file's top-level hooks to its own tests and runs the files in order", () => {
    const run = shard();
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const lines = run.stdout.split('\n').filter((l) => /^(first|second):/.test(l.trim())).map((l) => l.trim());
    assert.deepEqual(lines, ['first:beforeEach', 'first:test', 'first:after', 'second:test']);
  });

  it('exits non-zero when a test of any file fails', () => {
    const run = shard({ FIXTURE_FAIL: '1' });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /second fails when asked/);
  });
});
