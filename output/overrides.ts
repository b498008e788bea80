// A map's overrides applied to one layer's topology, with Terranova's rules
// (terranova/api/routers/output.py `_do_override`), keyed by node/edge name:
//   add:      added when the name is absent; nothing when present
//   override: the state replaces the existing entry, or is added when absent
//   delete:   the entry is removed when present
// A rule with `render: false` is inactive (a missing `render` counts as
// active here; Terranova skipped it). States are normalized like inline
// topology, so their markup is sanitized and a state without a usable
// coordinate is ignored rather than breaking the picture.
import type { DatasetOverrides } from '../schema/map.ts';
import type { Topology, TopologyEdge, TopologyNode } from '../render/types.ts';
import { normalizeEdge, normalizeNode } from '../render/normalize.ts';

type Rule = { operation: 'add' | 'delete' | 'override'; state?: unknown; render?: boolean | null };

function apply<T extends { name: string }>(list: T[], rules: Record<string, Rule> | undefined, make: (state: unknown, name: string) => T | null): T[] {
  if (!rules) return list;
  const out = [...list];
  for (const name of Object.keys(rules)) {
    const rule = rules[name];
    if (!rule || rule.render === false) continue;
    const at = out.findIndex((x) => x.name === name);
    if (rule.operation === 'delete') {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    if (at >= 0 && rule.operation === 'add') continue;
    const item = make(rule.state, name);
    if (!item) continue;
    if (at >= 0) out[at] = item;
    else out.push(item);
  }
  return out;
}

/**
 * Returns a new topology; the input is not modified. `draw` gives a node that
 * a rule adds or replaces without its own `meta.svg` the layer's marker, so
 * an added node is drawn like the others rather than as a bare label.
 */
export function applyOverrides(topology: Topology, overrides: DatasetOverrides | null | undefined,
  draw?: (node: TopologyNode) => TopologyNode): Topology {
  if (!overrides) return topology;
  const makeNode = (s: unknown, n: string) => {
    const node = normalizeNode(s, n);
    return node && draw && typeof node.meta.svg !== 'string' ? draw(node) : node;
  };
  return {
    ...topology,
    nodes: apply<TopologyNode>(topology.nodes, overrides.nodes as Record<string, Rule>, makeNode),
    edges: apply<TopologyEdge>(topology.edges, overrides.edges as Record<string, Rule>, (s, n) => normalizeEdge(s, n)),
  };
}
