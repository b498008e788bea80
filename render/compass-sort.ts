// The order compass-order.ts projects positions onto, along one axis: nodes
// by longitude (x) or by southing (y), nodes of one coordinate by their
// current position, then by index; and each node's rank, the count of
// distinct coordinates before its own. The stress and schematic layouts ask
// for it after every round, hundreds of times per layout, and only the
// order among nodes of one coordinate changes between rounds: the order by
// coordinate and the ranks are kept per coordinate array (checked against
// the coordinates at each question, so a changed array is sorted anew).
// The same order as one sort by that comparison, which is a total order.
import type { Pt } from './paths.ts';

/** Per axis: the keys sorted from, the runs of nodes of equal key in key order, each node's run (rank). */
type ByKey = { keys: Float64Array; runs: number[][]; rank: number[] };
const kept = new WeakMap<readonly Pt[], (ByKey | undefined)[]>();

/** x grows with longitude (geo[1]), y with southing (-geo[0]). */
const keyOf = (geo: readonly Pt[], axis: 0 | 1, i: number) => (axis === 0 ? geo[i][1] : -geo[i][0]);

function byKey(geo: readonly Pt[], axis: 0 | 1): ByKey {
  const n = geo.length;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = keyOf(geo, axis, i);
  const entry = kept.get(geo) ?? [];
  const was = entry[axis];
  if (was && was.keys.length === n && was.keys.every((k, i) => Object.is(k, keys[i]))) return was;
  const order = [...Array(n).keys()].sort((a, b) => keys[a] - keys[b] || a - b);
  const runs: number[][] = [];
  const rank = new Array<number>(n);
  order.forEach((i, k) => {
    if (k === 0 || keys[i] > keys[order[k - 1]]) runs.push([i]);
    else runs[runs.length - 1].push(i);
    rank[i] = runs.length - 1;
  });
  entry[axis] = { keys, runs, rank };
  kept.set(geo, entry);
  return entry[axis];
}

/**
 * Node indices sorted by their coordinate along `axis`, then by `position`
 * (their place along it now), then by index; and each node's rank (the
 * distinct coordinates before its own). The ranks are shared: read only.
 */
export function compassSorted(geo: readonly Pt[], axis: 0 | 1, position: (i: number) => number): { order: number[]; rank: readonly number[] } {
  const { runs, rank } = byKey(geo, axis);
  const order: number[] = [];
  for (const run of runs) {
    if (run.length === 1) order.push(run[0]);
    else for (const i of [...run].sort((a, b) => position(a) - position(b) || a - b)) order.push(i);
  }
  return { order, rank };
}
