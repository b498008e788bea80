// Whether the tests that need a program outside Node run here: Chromium,
// PostgreSQL, Graphviz, Prometheus. Each such test asks `skipWithout` for
// its `skip` option. They do not run under `npm run test:fast`
// (MTS_TEST_FAST=1, the loop while developing), nor where the program is
// absent; in CI (.ci/run installs them all) an absent one fails the run.
export type Component = 'Chromium' | 'PostgreSQL' | 'Graphviz' | 'Prometheus';

/** True in `npm run test:fast`. */
export const FAST = process.env.MTS_TEST_FAST === '1';

/** The skip reason of the tests needing `component` (false: they run); `install` says how to get it. */
export function skipWithout(component: Component, present: boolean, install: string): string | false {
  if (FAST) return `${component} tests skipped: npm run test:fast`;
  if (present) return false;
  if (process.env.CI) throw new Error(`${component} is missing in CI (.ci/run installs it: ${install})`);
  return `${component} tests skipped: not installed (${install})`;
}
