// The logical layers of one map drawn as one diagram (docs/render.md:
// Routers shared by layers). Each logical layer's topology JSON is laid out
// on its own, so two layers sharing routers would put them at two places,
// and their drawings, both near 0,0 of a lat/lng box, would lie over each
// other. For the picture, the union graph of all of them (nodes by name, a
// router two layers hold is one node; every layer's circuits; groups by
// name, their members joined) is laid out once with the same layout
// (logical-layout.ts), and each layer gets a copy of its topology placed on
// that drawing. The layers' own topologies are left as they are. Layers asked
// for (pathLayout.hierarchy, roles.ts) are the first such layer's.
import { layoutLogical } from './logical-layout.ts';
import { type HierarchyAsked, hierarchyOf } from './roles.ts';
import { centroid, round6 } from './geometry.ts';
import type { LatLng, Topology, TopologyEdge, TopologyNode } from './types.ts';

const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN);

/**
 * Where the layout starts a node: its data's latitude and longitude (kept
 * in its fields) when it has them, as the layer's own layout started; else
 * [0, 0], which the layout reads as no place.
 */
function startAt(n: TopologyNode): LatLng {
  const lat = num(n.meta.latitude), lng = num(n.meta.longitude);
  return Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? [lat, lng] : [0, 0];
}

const endNames = (e: TopologyEdge) => (e.meta.endpoint_identifiers?.names ?? []).map(String);

/**
 * The topologies with the logical ones (`logical[i]`, non-null) placed on
 * one layout of their union; the same array when fewer than two layers are
 * logical. Layers whose circuits name routers they do not list are drawn
 * as they are.
 */
export async function unionLogicalLayers(topologies: readonly (Topology | null)[], logical: readonly boolean[]): Promise<(Topology | null)[]> {
  const chosen = topologies.flatMap((t, i) => (t && logical[i] ? [i] : []));
  if (chosen.length < 2) return [...topologies];
  const leaves = new Map<string, TopologyNode>();
  const groups = new Map<string, TopologyNode>();
  for (const i of chosen) {
    for (const n of topologies[i]!.nodes) {
      if (n.children) continue;
      if (!leaves.has(n.name)) leaves.set(n.name, { name: n.name, coordinate: startAt(n), meta: { ...n.meta } });
    }
  }
  for (const i of chosen) {
    for (const g of topologies[i]!.nodes) {
      // A group bearing a router's name (one layer's site, another layer's router) stays that layer's own.
      if (!g.children || leaves.has(g.name)) continue;
      const had = groups.get(g.name);
      if (had) had.children = [...new Set([...had.children!, ...g.children])];
      else groups.set(g.name, { name: g.name, coordinate: [0, 0], meta: { ...g.meta }, children: [...g.children] });
    }
  }
  const edges: TopologyEdge[] = [];
  const of = new Map<TopologyEdge, TopologyEdge>();
  for (const i of chosen) {
    for (const e of topologies[i]!.edges) {
      const ends = endNames(e);
      if (ends.length < 2 || !ends.every((n) => leaves.has(n))) return [...topologies];
      const copy: TopologyEdge = { name: e.name, coordinates: [], meta: { ...e.meta, endpoint_identifiers: { ...e.meta.endpoint_identifiers, names: ends.slice(0, 2) } } };
      edges.push(copy);
      of.set(e, copy);
    }
  }
  const groupList = [...groups.values()];
  const asked = chosen.map((i) => topologies[i]!.pathLayout.hierarchy as HierarchyAsked | undefined).find((h) => h && typeof h === 'object');
  const { bends, pixelsPerDegree } = await layoutLogical([...leaves.values()], edges, groupList, hierarchyOf([...leaves.values()], asked));
  for (const n of leaves.values()) n.coordinate = [round6(n.coordinate[0]), round6(n.coordinate[1])];
  // A group sits at the centroid of its routers, as topology.ts places them.
  const leafCoords = (g: TopologyNode, depth = 0): LatLng[] => (depth > 32 ? [] : (g.children ?? []).flatMap((c) => {
    const leaf = leaves.get(c);
    if (leaf) return [leaf.coordinate];
    const sub = groups.get(c);
    return sub && sub !== g ? leafCoords(sub, depth + 1) : [];
  }));
  for (const g of groupList) g.coordinate = centroid(leafCoords(g));

  const route = (e: TopologyEdge): LatLng[] => {
    const copy = of.get(e)!;
    const [a, b] = endNames(copy).map((n) => leaves.get(n)!.coordinate);
    return [a, ...(bends.get(copy) ?? []).map(([la, ln]): LatLng => [round6(la), round6(ln)]), b];
  };
  return topologies.map((t, i) => {
    if (!t || !chosen.includes(i)) return t;
    return {
      ...t,
      pathLayout: { ...t.pathLayout, type: 'curveLinear', pixelsPerDegree: round6(pixelsPerDegree) },
      nodes: t.nodes.map((n) => {
        const placed = n.children ? groups.get(n.name) : leaves.get(n.name);
        if (!placed) return n;
        const meta = n.children ? { ...n.meta, cluster: placed.meta.cluster } : n.meta;
        return { ...n, coordinate: placed.coordinate, meta };
      }),
      edges: t.edges.map((e) => ({ ...e, coordinates: route(e) })),
    };
  });
}
