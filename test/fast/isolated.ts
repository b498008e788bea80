// Test files the fast runner (run.ts) gives a process of their own, each
// with the reason it cannot share one: found by running them in a shard.
export const ISOLATED: Record<string, string> = {
  // auth/passwords.ts makes the unknown-user hash once per process, at the cost of the first app
  // that asks; the test checks it has its app's cost (10), which another file's app may have set first.
  'test/routes/auth.test.ts': 'asserts the per-process dummy password hash has its own app cost',
  // Its 'real scrypt' test counts how many attack checks end before a login's, on libuv's four
  // threads; in a shard it failed once (after other files, whose left-over work can hold those
  // threads) and passed in another run and alone, so it keeps a process where nothing else runs.
  'test/auth/throttle-checks.test.ts': 'counts the order of real scrypt checks on the shared thread pool',
};
