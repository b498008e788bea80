// How the fast runner (run.ts) splits the test files between its lanes.
/** Guess for a file not yet in costs.json, in ms. */
const UNKNOWN_COST = 1000;
/** What a process of its own adds (loading tsx and the modules), in ms. */
const PROCESS_COST = 1200;

export interface Lane {
  /** Files loaded together into one process. */
  shard: string[];
  /** Files run one process each, after the shard. */
  alone: string[];
}

/**
 * `count` lanes of near-equal recorded cost, filled longest file first (each to
 * the lane that costs least so far); a file in `isolated` goes to its lane's `alone`.
 */
export function plan(files: string[], costs: Record<string, number>, isolated: Record<string, string>, count = 2): Lane[] {
  const lanes = Array.from({ length: count }, () => ({ shard: [] as string[], alone: [] as string[], cost: PROCESS_COST }));
  const cost = (f: string) => (costs[f] ?? UNKNOWN_COST) + (f in isolated ? PROCESS_COST : 0);
  for (const file of [...files].sort((a, b) => cost(b) - cost(a) || a.localeCompare(b))) {
    const lane = lanes.reduce((least, l) => (l.cost < least.cost ? l : least));
    (file in isolated ? lane.alone : lane.shard).push(file);
    lane.cost += cost(file);
  }
  return lanes.map(({ shard, alone }) => ({ shard: shard.sort(), alone: alone.sort() }));
}
