// log.ts: lines bound for stdout and stderr are gathered per turn of the
// event loop and handed to pino's destination together; none is lost when
// the process exits right after writing it (a graceful stop ends with
// process.exit), each line whole. (The order is the order written but at
// the very end: pino's destination may still be writing a chunk on its own
// thread when the rest is written synchronously at exit.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

const LOG = JSON.stringify(path.resolve(import.meta.dirname, '../log.ts'));

/** Runs `body` in a child process with `log` a logger of `format` on its stdout, which goes to `file`; resolves with its exit code and stderr. */
async function child(file: string, format: 'text' | 'json', body: string) {
  const script = `const { createLogger } = await import(${LOG});
const log = createLogger({ format: ${JSON.stringify(format)} });
${body}`;
  const out = await open(file, 'w');
  try {
    return await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', out.fd, 'pipe'] });
      let stderr = '';
      proc.stderr?.on('data', (d) => { stderr += d; });
      proc.on('close', (code) => resolve({ code, stderr }));
    });
  } finally {
    await out.close();
  }
}

describe('the gathered log lines', () => {
  const cases: Array<[string, 'text' | 'json', string]> = [
    ['written and exited at once, in one turn', 'text', 'for (let i = 0; i < 5000; i++) log.info("request", { n: i }); process.exit(0);'],
    ['written over several turns, then exited', 'json',
      'for (let i = 0; i < 5000; i++) { log.info("request", { n: i }); if (i % 100 === 99) await new Promise((r) => setImmediate(r)); } process.exit(0);'],
    ['written, then the process left to end by itself', 'text', 'for (let i = 0; i < 5000; i++) log.info("request", { n: i });'],
  ];
  for (const [what, format, body] of cases) {
    it(`keeps every line ${what} (${format})`, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'mts-log-'));
      try {
        const file = path.join(dir, 'service.log');
        const r = await child(file, format, body);
        assert.equal(r.code, 0, r.stderr);
        const lines = (await readFile(file, 'utf8')).split('\n');
        assert.equal(lines.pop(), '', 'ends with a newline');
        assert.equal(lines.length, 5000);
        const numbers = lines.map((l) => (format === 'json' ? (JSON.parse(l) as { n: number }).n : Number(/ n=(\d+)$/.exec(l)?.[1])));
        assert.deepEqual(numbers.sort((a, b) => a - b), Array.from({ length: 5000 }, (_, i) => i));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
