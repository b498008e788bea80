// CPU time for the bounds of tests on work that must stay cheap (a template's
// render budget, a linear-time parse, a diff). The process's own CPU time, not
// the wall clock: on a loaded machine other programs stretch the wall clock
// many times over, but barely this process's CPU time, so a bound generous for
// the work itself holds under any load.

/** Milliseconds of CPU (user and system) this process spends running `fn`, with its result. */
export function cpuMs<T>(fn: () => T): { ms: number; result: T } {
  const before = process.cpuUsage();
  const result = fn();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, result };
}
