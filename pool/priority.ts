// How the OS schedules a render thread. The service's main thread answers
// /healthz, sign-ins and cached pictures in a fraction of a millisecond each,
// while a render keeps a core busy for up to its whole time budget: on a
// 2-core machine a render and the other work of the process left the main
// thread waiting for a core, and /healthz's p99 under a flood of picture
// requests was many times its idle figure. A render thread therefore lowers
// its own scheduling priority to "below normal" (nice 10): the main thread
// preempts it as soon as it has work and gets about nine tenths of a core
// they share.
// A thread below normal gets little of a machine that other processes keep
// busy, so the pool times a render's budget by the CPU time its thread got
// (threadCpuMs), not by the clock alone: a render the machine did not run is
// not one too big to draw.
// Linux keeps a nice value and CPU times per thread, found by the thread's ID
// (from /proc/thread-self); elsewhere a nice value is the whole process's,
// and the thread keeps its priority and its budget is timed by the clock.
import { readFileSync, readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';

export const RENDER_NICE = constants.priority.PRIORITY_BELOW_NORMAL;

/**
 * Lowers the calling thread's priority to RENDER_NICE and answers its OS
 * thread ID; undefined where that would change the whole process, or when
 * /proc cannot tell (a sandbox: the thread renders at the normal priority).
 */
export function lowerThreadPriority(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    // "/proc/thread-self" links to "<pid>/task/<tid>".
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return undefined;
    setPriority(tid, RENDER_NICE);
    return tid;
  } catch {
    return undefined;
  }
}

/** Milliseconds of CPU thread `tid` of this process has had (Linux's schedstat); undefined when it cannot be read. */
export function threadCpuMs(tid: number): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined; // the thread has ended, or no schedstat
  }
}
