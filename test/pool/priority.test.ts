// pool/priority.ts through the render pool: a render thread runs at the
// "below normal" OS priority (nice RENDER_NICE) while the process's main
// thread keeps its own, so the main thread is served first when they share a
// core. Linux keeps a nice value per thread (read from /proc/self/task).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { RenderPool } from '../../pool/pool.ts';
import { RENDER_NICE } from '../../pool/priority.ts';

/** The nice value of each thread of this process, by thread ID. */
function niceByThread(): Map<number, number> {
  const nice = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      // Fields after the command's closing parenthesis: state is the first, nice the 17th.
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // the thread ended while listed
    }
  }
  return nice;
}

const TINY = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>';

describe('render thread priority', { skip: process.platform !== 'linux' && 'per-thread nice values are a Linux feature' }, () => {
  const pool = new RenderPool({ threads: 1, timeoutSeconds: 60, memoryMb: 256, maxQueued: 1 });
  after(() => pool.close());

  it('a render thread runs below the main thread, which keeps its priority', async () => {
    const before = niceByThread();
    const png = await pool.run({ kind: 'png', svg: TINY }, { key: 'user:a', signedIn: true });
    assert.ok(png instanceof Uint8Array && png.byteLength > 0);
    const now = niceByThread();
    // The render thread is idle now, and kept for a while: it is among the threads that are new since.
    const added = [...now].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);
    assert.ok(added.includes(RENDER_NICE), `threads started for the render have nice ${added.join(', ')}`);
    assert.equal(now.get(process.pid), before.get(process.pid), "the main thread's priority is unchanged");
    assert.ok(RENDER_NICE > (now.get(process.pid) ?? 0), 'below the main thread');
  });
});
