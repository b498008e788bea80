// Test files the fast runner (run.ts) gives a process of their own, each
// with the reason it cannot share one: found by running them in a shard.
export const ISOLATED: Record<string, string> = {};
