// Memo for built topologies: map output rebuilds every layer on each request,
// though stored results never change once written. The key is the stored
// results' own key, already the hash of their content (store/keys.ts), so
// the same results share one build whichever array or store read them,
// plus every build option that shapes the result (name, layout, query,
// template markup, layer). Results are deep-frozen, so a caller that tried to
// change a shared topology fails loudly instead of corrupting later answers.
// Bounded by the count of nodes and edges held, least recently used out.
import type { EdgeRecord } from '../datasources/types.ts';
import { buildTopology, type BuildOptions } from './topology.ts';
import type { Topology } from './types.ts';

/** Most nodes + edges the process-wide cache keeps (some tens of MB at worst). */
const TOPOLOGY_CACHE_ITEMS = 200_000;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function createTopologyCache(maxItems: number) {
  const entries = new Map<string, { topology: Promise<Topology>; size: number }>();
  let held = 0;
  const drop = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    held -= e.size;
  };

  /** buildTopology of stored results (`resultsKey` names their content), answered from the cache when they were built the same way before. */
  function build(resultsKey: string, records: readonly EdgeRecord[], options: BuildOptions): Promise<Topology> {
    const key = `${resultsKey}\n${JSON.stringify([options.name, options.layout, options.query ?? null, options.template ?? null, options.layer ?? null])}`;
    const hit = entries.get(key);
    if (hit) {
      entries.delete(key); // re-inserted: a Map's order is the recency order
      entries.set(key, hit);
      return hit.topology;
    }
    // nodes + edges: at most about 3 per record
    const entry = { topology: buildTopology(records, options).then(deepFreeze), size: 3 * records.length + 1 };
    entries.set(key, entry);
    held += entry.size;
    // A failed build is not remembered (the cause may pass, e.g. a template fixed later).
    entry.topology.catch(() => { if (entries.get(key) === entry) drop(key); });
    for (const oldest of entries.keys()) {
      if (held <= maxItems || oldest === key) break;
      drop(oldest);
    }
    return entry.topology;
  }

  return { build, stats: () => ({ entries: entries.size, items: held }) };
}

const shared = createTopologyCache(TOPOLOGY_CACHE_ITEMS);
/** The process-wide cache's build (map output of snapshot layers uses it). */
export const buildTopologyCached = shared.build;
export const topologyCacheStats = shared.stats;
