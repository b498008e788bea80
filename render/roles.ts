// A hierarchy asked for by the query (docs/api.md: The query): each router's
// layer from its role (the value of role_field among its fields), in the
// order role_order lists, and the direction of the layers. Pure: the logical
// layout (logical-layout.ts) draws the layers.
import type { DatasetQuery } from '../schema/dataset.ts';
import type { TopologyNode } from './types.ts';

/** What the logical layout is asked to draw as layers: per node its layer (0 first), and the layers' direction. */
export interface Hierarchy {
  ranks?: number[];
  direction?: 'down' | 'right';
}

const roleOf = (n: TopologyNode, field: string): string => {
  const v = Object.hasOwn(n.meta, field) ? n.meta[field] : undefined;
  return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
};

/**
 * The layers of `nodes` by role: role_order's values first, in its order,
 * then the other values in the order the data first shows them, then the
 * routers without a role. Layers no router has are left out, so ranks run
 * 0, 1, 2... Undefined without role_field: no hierarchy by role.
 */
export function hierarchyOf(nodes: TopologyNode[], query: Pick<DatasetQuery, 'role_field' | 'role_order' | 'layer_direction'> | undefined): Hierarchy {
  const direction = query?.layer_direction ?? undefined;
  const field = query?.role_field;
  if (!field) return { direction };
  const order = new Map((query.role_order ?? []).map((r, i) => [r, i] as const));
  const roles = nodes.map((n) => roleOf(n, field));
  for (const r of roles) if (r !== '' && !order.has(r)) order.set(r, order.size);
  const raw = roles.map((r) => (r === '' ? order.size : order.get(r)!));
  const used = [...new Set(raw)].sort((a, b) => a - b);
  const dense = new Map(used.map((r, i) => [r, i] as const));
  return { ranks: raw.map((r) => dense.get(r)!), direction };
}
