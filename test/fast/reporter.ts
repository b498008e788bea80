// The fast runner's second reporter: beside the dot reporter on stdout it
// writes, as one JSON line, what run.ts sums and balances the next run by:
// each file's duration (the suite shard.ts wraps it in) and the tests
// passed, failed and skipped (suites are not counted, as node:test does),
// and each failed test's name and first line of its error, which run.ts
// prints again at the end (the dot reporter's account of it scrolls away).
import type { TestEvent } from 'node:test/reporters';

export interface ShardTally {
  passed: number;
  failed: number;
  skipped: number;
  todo: number;
  /** Milliseconds per test file. */
  files: Record<string, number>;
  /** Each failed test: its name and the first line of its error. */
  failures?: string[];
}

export default async function* tally(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const sum: ShardTally = { passed: 0, failed: 0, skipped: 0, todo: 0, files: {}, failures: [] };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.nesting === 0) sum.files[data.name] = Math.round(data.details.duration_ms);
    if (data.details.type === 'suite') continue;
    if (data.skip !== undefined && data.skip !== false) sum.skipped++;
    else if (data.todo !== undefined && data.todo !== false) sum.todo++;
    else if (event.type === 'test:pass') sum.passed++;
    else {
      sum.failed++;
      const error = (data.details as { error?: { cause?: unknown; message?: string } }).error;
      sum.failures?.push(`${data.name}: ${String((error?.cause as Error | undefined)?.message ?? error?.message ?? error).split('\n')[0]}`);
    }
  }
  yield `${JSON.stringify(sum)}\n`;
}
