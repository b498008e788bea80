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
 * `count` lanes of near-equal recorded cost, filled longest first (each to the
 * lane that costs least so far); the files of a group in `together` go to one
 * lane as one unit of their summed cost, and a file in `isolated` goes to its
 * lane's `alone`.
 */
export function plan(files: string[], costs: Record<string, number>, isolated: Record<string, string>, count = 2,
  together: Record<string, string[]> = {}): Lane[] {
  const lanes = Array.from({ length: count }, () => ({ shard: [] as string[], alone: [] as string[], cost: PROCESS_COST }));
  const cost = (f: string) => (costs[f] ?? UNKNOWN_COST) + (f in isolated ? PROCESS_COST : 0);
  const grouped = new Set(Object.values(together).flat());
  const units = [
    ...Object.values(together).map((group) => files.filter((f) => group.includes(f))).filter((unit) => unit.length > 0),
    ...files.filter((f) => !grouped.has(f)).map((f) => [f]),
  ].map((unit) => ({ files: unit, cost: unit.reduce((sum, f) => sum + cost(f), 0) }));
  for (const unit of units.sort((a, b) => b.cost - a.cost || a.files[0].localeCompare(b.files[0]))) {
    const lane = lanes.reduce((least, l) => (l.cost < least.cost ? l : least));
    for (const file of unit.files) (file in isolated ? lane.alone : lane.shard).push(file);
    lane.cost += unit.cost;
  }
  return lanes.map(({ shard, alone }) => ({ shard: shard.sort(), alone: alone.sort() }));
}
