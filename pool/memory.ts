// Memory given back once a load ends (docs/api.md: Limits). When render
// threads end or cached outputs are dropped idle, what they held is garbage,
// but V8 collects only when the program allocates: an idle service kept it,
// and with it glibc's heap under the freed buffers (measured after a 2-minute
// load: glibc's main heap 26 MB, 7 MB after one full collection; RSS 1.19x
// fresh, then 1.05x). So one full collection runs once such releases have
// stopped for a few seconds: never during a burst, once after it.
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Logger } from '../log.ts';

/** Quiet time after the last release before the collection (ms). */
export const QUIET_MS = 5_000;

/**
 * V8's full collection. Scripts get it only with --expose-gc: the flag is
 * turned on just long enough to take the function from a new context (what
 * jest's leak detector does), so no global `gc` appears for other code.
 */
export function fullCollection(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as () => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/** fullCollection, with a log line saying what it cost and what it gave back (the service's: server.ts). */
export function loggedCollection(log: Logger): () => void {
  const collect = fullCollection();
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  return () => {
    const before = process.memoryUsage.rss();
    const t = performance.now();
    collect();
    log.info(`memory: a load has ended; one full garbage collection took ${(performance.now() - t).toFixed(1)} ms, ` +
      `RSS ${mb(before)} MB before, ${mb(process.memoryUsage.rss())} MB after`);
  };
}

/** `released()` after letting memory go; `collect` runs once, when no release came for `quietMs`. */
export function collectWhenQuiet(collect: () => void, quietMs = QUIET_MS) {
  let timer: NodeJS.Timeout | undefined;
  return {
    released: () => {
      clearTimeout(timer);
      timer = setTimeout(collect, quietMs);
      timer.unref();
    },
  };
}
