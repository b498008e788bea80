// A hierarchy asked for by the query (docs/api.md: The query): each router's
// layer from its role (the value of role_field among its fields), in the
// order role_order lists, and the direction of the layers. Pure: the logical
// layout (logical-layout.ts) draws the layers. A logical topology JSON keeps
// what was asked in `pathLayout.hierarchy`, so a map drawing several layers
// as one (logical-union.ts) asks the same.
import type { DatasetQuery } from '../schema/dataset.ts';
import type { TopologyNode } from './types.ts';

/** What the logical layout is asked to draw as layers: per node its layer (0 first), and the layers' direction. */
export interface Hierarchy {
  ranks?: number[];
  direction?: 'down' | 'right';
}

/** The query's hierarchy options, as a logical topology's `pathLayout.hierarchy` keeps them. */
export type HierarchyAsked = Partial<Pick<DatasetQuery, 'role_field' | 'role_order' | 'layer_direction'>>;

/** The options set in `query`, or undefined when none is (no layers asked for). */
export function askedHierarchy(query: HierarchyAsked | undefined): HierarchyAsked | undefined {
  const asked: HierarchyAsked = {};
  if (query?.role_field) asked.role_field = query.role_field;
  if (query?.role_field && query.role_order) asked.role_order = [...query.role_order];
  if (query?.layer_direction) asked.layer_direction = query.layer_direction;
  return Object.keys(asked).length > 0 ? asked : undefined;
}

const roleOf = (n: TopologyNode, field: string): string => {
  const v = Object.hasOwn(n.meta, field) ? n.meta[field] : undefined;
  return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
};

/**
 * The layers of `nodes` by role: role_order's values first, in its order,
 * then the other values in the order the data first shows them, then the
 * routers without a role. Layers no router has are left out, so ranks run
 * 0, 1, 2... No ranks without role_field, or when every router is in one
 * layer: no hierarchy by role.
 */
export function hierarchyOf(nodes: TopologyNode[], query: HierarchyAsked | undefined): Hierarchy {
  // Read as untrusted: a map layer's topology JSON may come from elsewhere than this service's query.
  const direction = query?.layer_direction === 'right' || query?.layer_direction === 'down' ? query.layer_direction : undefined;
  const field = typeof query?.role_field === 'string' ? query.role_field : '';
  if (!field) return { direction };
  const listed = Array.isArray(query?.role_order) ? query.role_order.filter((r) => typeof r === 'string') : [];
  const order = new Map(listed.map((r, i) => [r, i] as const));
  const roles = nodes.map((n) => roleOf(n, field));
  for (const r of roles) if (r !== '' && !order.has(r)) order.set(r, order.size);
  const raw = roles.map((r) => (r === '' ? order.size : order.get(r)!));
  const used = [...new Set(raw)].sort((a, b) => a - b);
  // One layer is no hierarchy: all circuits would lie along it, drawn straight through each other's routers.
  if (used.length < 2) return { direction };
  const dense = new Map(used.map((r, i) => [r, i] as const));
  return { ranks: raw.map((r) => dense.get(r)!), direction };
}
