// Geographic placement details: nodes whose rows carry no coordinates, and
// the circle/grid spreading of co-located group members (node_group_layout),
// so that routers of one site stop drawing on top of each other.
import type { LatLng, TopologyEdge, TopologyNode } from './types.ts';
import { centroid, lngCut, lngStretch, wrapLng } from './geometry.ts';

interface Placed {
  node: TopologyNode;
  located: boolean;
}

/**
 * A node without coordinates is placed at the centroid of its located
 * neighbours (repeated so chains resolve), else of all located nodes, and is
 * marked `meta.coordinate_estimated` so clients can tell.
 */
export function fillMissingCoordinates(leaves: Placed[], edges: TopologyEdge[], byName: Map<string, TopologyNode>): void {
  const missing = leaves.filter((l) => !l.located);
  if (missing.length === 0) return;
  const located = new Set(leaves.filter((l) => l.located).map((l) => l.node.name));
  const neighbours = new Map<string, string[]>();
  for (const e of edges) {
    const [a, b] = e.meta.endpoint_identifiers.names as string[];
    neighbours.set(a, [...(neighbours.get(a) ?? []), b]);
    neighbours.set(b, [...(neighbours.get(b) ?? []), a]);
  }
  let pending = missing;
  for (let round = 0; round < 8 && pending.length > 0; round++) {
    const next: Placed[] = [];
    const placedNow: Placed[] = [];
    for (const m of pending) {
      const pts = (neighbours.get(m.node.name) ?? []).filter((n) => located.has(n)).map((n) => byName.get(n)!.coordinate);
      if (pts.length === 0) next.push(m);
      else {
        m.node.coordinate = centroid(pts);
        placedNow.push(m);
      }
    }
    if (placedNow.length === 0) break;
    for (const p of placedNow) located.add(p.node.name);
    pending = next;
  }
  const all = centroid(leaves.filter((l) => located.has(l.node.name)).map((l) => l.node.coordinate));
  for (const m of pending) m.node.coordinate = all;
  for (const m of missing) m.node.meta.coordinate_estimated = true;
}

/** Spacing between spread members, in degrees: 2% of the picture's extent, within [0.05, 1]. */
function spacing(points: LatLng[]): number {
  if (points.length < 2) return 0.25;
  // A loop, not Math.max(...lats): spreading 100,000 arguments overflows the stack.
  let south = Infinity, north = -Infinity;
  for (const [lat] of points) {
    if (lat < south) south = lat;
    if (lat > north) north = lat;
  }
  const extent = Math.max(north - south, lngCut(points.map((p) => p[1])).span);
  return Math.min(1, Math.max(0.05, extent * 0.02));
}

/**
 * Members of each innermost group (those whose children are leaves) move onto
 * a circle or a grid centred on the members' centroid. Order is the members'
 * first appearance in the data, so the result is deterministic.
 */
export function spreadGroups(groups: TopologyNode[], byName: Map<string, TopologyNode>, layout: 'circle' | 'grid'): void {
  const s = spacing([...byName.values()].map((n) => n.coordinate));
  for (const g of groups) {
    const kids = (g.children ?? []).map((c) => byName.get(c)).filter((n): n is TopologyNode => !!n);
    if (kids.length < 2) continue;
    const [clat, clng] = centroid(kids.map((k) => k.coordinate));
    const stretch = lngStretch(clat);
    const n = kids.length;
    if (layout === 'circle') {
      const r = Math.max(s, (n * s) / (2 * Math.PI));
      kids.forEach((k, i) => {
        const t = -Math.PI / 2 + (2 * Math.PI * i) / n;
        k.coordinate = [clat - r * Math.sin(t), wrapLng(clng + r * Math.cos(t) * stretch)];
      });
    } else {
      const cols = Math.ceil(Math.sqrt(n));
      const rows = Math.ceil(n / cols);
      kids.forEach((k, i) => {
        const col = i % cols, row = Math.floor(i / cols);
        k.coordinate = [clat + ((rows - 1) / 2 - row) * s, wrapLng(clng + (col - (cols - 1) / 2) * s * stretch)];
      });
    }
  }
}
