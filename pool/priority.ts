// The OS priority of a render thread. The service's main thread answers
// /healthz, sign-ins and cached pictures in a fraction of a millisecond each,
// while a render keeps a core busy for up to its whole time budget: on a
// 2-core machine a render and the other work of the process left the main
// thread waiting for a core, and /healthz's p99 under a flood of picture
// requests was many times its idle figure. A render thread therefore lowers
// its own scheduling priority to "below normal" (nice 10): the main thread
// preempts it as soon as it has work and gets about nine tenths of a core they
// share, while a render still gets a tenth of a core that other processes keep
// busy (nice 19 would leave it a seventieth there, and its time budget, which
// counts wall-clock time, would run out while it waits).
// Linux keeps a nice value per thread, so setting it for this thread's own ID
// (from /proc/thread-self) leaves the rest of the process alone; elsewhere a
// nice value is the whole process's, and the thread keeps its priority.
import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';

export const RENDER_NICE = constants.priority.PRIORITY_BELOW_NORMAL;

/** Lowers the calling thread's priority to RENDER_NICE; false where that would change the whole process, or the OS refused. */
export function lowerThreadPriority(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // "/proc/thread-self" links to "<pid>/task/<tid>".
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, RENDER_NICE);
    return true;
  } catch {
    return false; // no /proc (a sandbox): the thread renders at the normal priority
  }
}
