// Logical layout: a layered drawing computed by elkjs (the Eclipse Layout
// Kernel's "layered" algorithm), then mapped into a small lat/lng box around
// (0, 0) as Terranova does (30° x 60°, aspect kept), so map clients can show
// it on their usual projection.
//
// What the picture needs, measured against Graphviz `dot` on the demo's
// grouped North America dataset (test/render/logical-layout.test.ts, `npm run
// bench -- render`): groups are ELK compound nodes (INCLUDE_CHILDREN, so edges
// between groups are laid out with everything else) and come out as cluster
// boxes; orthogonal routing keeps every edge off the nodes it does not end
// at (polyline routing did too, splines did not, and had more crossings);
// layers run top to bottom and ELK's multi-edge wrapping cuts a long drawing
// into columns towards 16:10, a dashboard's shape. Left to right with
// wrapping gave rows joined by long edges around the whole drawing; without
// wrapping, either direction is a strip (3921x418 on the demo). ELK's
// thoroughness, greedy switch, seeds and node placement options changed
// nothing there; thoroughness 1 and interactive layering (the earlier,
// faster settings) added crossings.
//
// Circuits have no direction, so before layout each edge is oriented along a
// breadth-first search over units (a router's innermost group, or the router)
// from a peripheral unit: a site's routers share a level, the graph's long
// axis follows the layers and edges span few layers. The root decides the
// layering, and ELK's crossings with it (3 to 22 on the demo), so on small
// graphs a few peripheral roots are tried and the fewest crossings kept.
// A fixed seed and input order make the result deterministic. ELK itself
// runs on a thread of its own (layout-thread.mjs), so a layout never holds
// the service's event loop.
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { validationFailed } from '../errors.ts';
import { layOut } from './layout-client.ts';
import type { LatLng, TopologyEdge, TopologyNode } from './types.ts';
import { textWidth } from './text-width.ts';
import { round6 } from './geometry.ts';

const LAT_SPAN = 30;
const LNG_SPAN = 60;
const DEFAULT_W = 30;
const DEFAULT_H = 15;
/** Width over height the drawing is wrapped towards: between 4:3 and 16:9, what a dashboard panel shows. */
const TARGET_ASPECT = 1.6;
/** A cluster's title: font size and the band it takes above the cluster's members (svg-clusters.ts draws it). */
export const CLUSTER_TITLE_PX = 11;
export const CLUSTER_PAD = { top: 22, side: 10, bottom: 10 };
const MAX_TITLE_CHARS = 48;

/** A cluster's title as drawn: a long group name cut (by characters) with an ellipsis; its `<title>` keeps the whole name. */
export function clusterTitle(name: string): string {
  const chars = Array.from(name);
  return chars.length <= MAX_TITLE_CHARS ? name : `${chars.slice(0, MAX_TITLE_CHARS - 1).join('').trimEnd()}…`;
}
/**
 * The largest graph laid out (422 beyond). Measured on random graphs of twice
 * as many edges as nodes: 2,500 nodes in about 4 s and 330 MB for the whole
 * process, 5,000 in 9 s, 20,000 in 15 s and 1.3 GB; and a drawing of
 * thousands of nodes in 30° x 60° is not readable anyway.
 */
export const MAX_LOGICAL_NODES = 2500;
export const MAX_LOGICAL_EDGES = 5000;

export const ELK_OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'DOWN',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.randomSeed': '1',
  'elk.layered.wrapping.strategy': 'MULTI_EDGE',
  'elk.aspectRatio': String(TARGET_ASPECT),
  'elk.json.shapeCoords': 'ROOT',
  'elk.json.edgeCoords': 'ROOT',
  'elk.spacing.nodeNode': '20',
  'elk.layered.spacing.nodeNodeBetweenLayers': '40',
};

/**
 * For graphs over MAX_TRIED_NODES: one ordering pass instead of seven, no
 * greedy switch, one Brandes-Köpf alignment and no per-component copies,
 * which keeps a 500-node / 1,000-edge layout near dot's time.
 */
const FAST_OPTIONS: Record<string, string> = {
  'elk.layered.thoroughness': '1',
  'elk.layered.crossingMinimization.greedySwitch.type': 'OFF',
  'elk.layered.nodePlacement.bk.fixedAlignment': 'LEFTDOWN',
  'elk.separateConnectedComponents': 'false',
};

/** What the layout adds to the topology besides node coordinates. */
export interface LogicalLayout {
  /** Per edge, the points of its route between its two node centres (lat/lng), in the circuit's own direction. */
  bends: Map<TopologyEdge, LatLng[]>;
  /** Picture pixels per degree of the lat/lng box: the SVG draws the layout at ELK's own scale, where nodes keep their spacing. */
  pixelsPerDegree: number;
}

type Size = 'computed_width' | 'computed_height';
const size = (n: TopologyNode, k: Size, d: number) => {
  const v = Number(n.meta[k]);
  return Number.isFinite(v) && v > 0 ? Math.min(v, 400) : d;
};

/**
 * Sets every node's coordinate, and each group's `meta.cluster` (its box,
 * [[south, west], [north, east]]), and returns the edges' routes. Edge ends
 * are the node centres, as Terranova draws them (Graphviz headclip/tailclip
 * off); the route in between is ELK's, from node border to node border.
 */
export async function layoutLogical(nodes: TopologyNode[], edges: TopologyEdge[], groups: TopologyNode[] = []): Promise<LogicalLayout> {
  const bends = new Map<TopologyEdge, LatLng[]>();
  if (nodes.length === 0) return { bends, pixelsPerDegree: 1 };
  if (nodes.length > MAX_LOGICAL_NODES || edges.length > MAX_LOGICAL_EDGES) {
    throw validationFailed(`the logical layout draws at most ${MAX_LOGICAL_NODES} nodes and ${MAX_LOGICAL_EDGES} edges; ` +
      `this topology has ${nodes.length} nodes and ${edges.length} edges: filter the dataset, or use the geographic layout`);
  }
  const index = new Map(nodes.map((n, i) => [n.name, i] as const));
  const ends = edges.map((e) => (e.meta.endpoint_identifiers.names as string[]).map((n) => index.get(n)!) as [number, number]);
  const tree = groupTree(nodes, groups);
  // Orientation by BFS over units (a leaf's innermost group, or the leaf): a site's routers share a level.
  const unitOf = nodes.map((_, i) => tree.unit[i]);
  const unitLinks = ends.map(([a, b]) => [unitOf[a], unitOf[b]] as [number, number]);
  const leaf = (i: number): ElkNode => ({ id: `n${i}`, width: size(nodes[i], 'computed_width', DEFAULT_W), height: size(nodes[i], 'computed_height', DEFAULT_H) });
  const compound = (g: number): ElkNode => {
    const title = textWidth(clusterTitle(groups[g].name), CLUSTER_TITLE_PX);
    return {
      id: `g${g}`,
      layoutOptions: {
        'elk.padding': `[top=${CLUSTER_PAD.top},left=${CLUSTER_PAD.side},bottom=${CLUSTER_PAD.bottom},right=${CLUSTER_PAD.side}]`,
        // Wide enough for its title.
        'elk.nodeSize.constraints': 'MINIMUM_SIZE',
        'elk.nodeSize.minimum': `(${Math.ceil(title + 2 * CLUSTER_PAD.side)}, 0)`,
      },
      children: [...tree.subgroups[g].map(compound), ...tree.members[g].map(leaf)],
    };
  };
  const attempt = async (root: number | undefined) => {
    const levels = bfsLevels(tree.units, unitLinks, root);
    const flipped = ends.map(([a, b]) => levels[unitOf[a]] > levels[unitOf[b]] || (levels[unitOf[a]] === levels[unitOf[b]] && a > b));
    const graph: ElkNode = {
      id: 'root',
      layoutOptions: {
        ...ELK_OPTIONS,
        ...(nodes.length > MAX_TRIED_NODES ? FAST_OPTIONS : {}),
        ...(groups.length > 0 ? { 'elk.hierarchyHandling': 'INCLUDE_CHILDREN' } : {}),
      },
      children: [...tree.topGroups.map(compound), ...tree.loose.map(leaf)],
      edges: ends.map(([a, b], i) => (flipped[i]
        ? { id: `e${i}`, sources: [`n${b}`], targets: [`n${a}`] }
        : { id: `e${i}`, sources: [`n${a}`], targets: [`n${b}`] })),
    };
    const out = await layOut(graph);
    const off = Math.abs(Math.log(Math.max(out.width, 1) / Math.max(out.height, 1) / TARGET_ASPECT));
    return { out, flipped, crossings: routeCrossings(ends, out.routes), off };
  };
  // The layering follows the orientation, and ELK's crossing count with it: on small graphs, a few
  // peripheral roots are tried and the drawing with the fewest crossings kept (then the one nearest the aspect).
  let best = await attempt(undefined);
  if (nodes.length <= MAX_TRIED_NODES) {
    for (const root of peripheralUnits(tree.units, unitLinks, ROOTS_TRIED)) {
      if (best.crossings === 0) break;
      const next = await attempt(root);
      if (next.crossings < best.crossings || (next.crossings === best.crossings && next.off < best.off - 1e-9)) best = next;
    }
  }
  const { out, flipped } = best;
  const W = Math.max(out.width, 1), H = Math.max(out.height, 1);
  const scale = Math.min(LNG_SPAN / W, LAT_SPAN / H);
  const toLatLng = (x: number, y: number): LatLng => [(H / 2 - y) * scale, (x - W / 2) * scale];
  nodes.forEach((n, i) => {
    const [x, y, w, h] = out.nodes[`n${i}`];
    n.coordinate = toLatLng(x + w / 2, y + h / 2);
  });
  groups.forEach((g, i) => {
    const box = out.nodes[`g${i}`];
    if (!box) return;
    const [x, y, w, h] = box;
    const [south, west] = toLatLng(x, y + h).map(round6), [north, east] = toLatLng(x + w, y).map(round6);
    g.meta.cluster = [[south, west], [north, east]];
  });
  edges.forEach((e, i) => {
    const pts = (out.routes[`e${i}`] ?? []).map(([x, y]) => toLatLng(x, y));
    // Routes run from ELK's source to its target; put them back in the circuit's own direction.
    bends.set(e, flipped[i] ? pts.reverse() : pts);
  });
  return { bends, pixelsPerDegree: 1 / scale };
}

/**
 * The groups as ELK's compound nodes: which groups are outermost, each
 * group's subgroups and leaf members (by index), the leaves in no group, and
 * each leaf's unit (its innermost group, or itself) for the BFS orientation.
 * A leaf or group listed by two groups stays with the first.
 */
function groupTree(nodes: TopologyNode[], groups: TopologyNode[]) {
  const leafIndex = new Map(nodes.map((n, i) => [n.name, i] as const));
  const groupIndex = new Map(groups.map((g, i) => [g.name, i] as const));
  const members: number[][] = groups.map(() => []);
  const subgroups: number[][] = groups.map(() => []);
  const leafParent = new Array<number>(nodes.length).fill(-1);
  const groupParent = new Array<number>(groups.length).fill(-1);
  groups.forEach((g, gi) => {
    for (const c of g.children ?? []) {
      const li = leafIndex.get(c);
      if (li !== undefined) {
        if (leafParent[li] < 0) { leafParent[li] = gi; members[gi].push(li); }
        continue;
      }
      const sub = groupIndex.get(c);
      // A group cannot hold itself or one of its ancestors: ELK would loop.
      if (sub === undefined || sub === gi || groupParent[sub] >= 0) continue;
      let up = gi;
      while (up >= 0 && up !== sub) up = groupParent[up];
      if (up === sub) continue;
      groupParent[sub] = gi;
      subgroups[gi].push(sub);
    }
  });
  const unit = leafParent.map((g, i) => (g >= 0 ? nodes.length + g : i));
  return {
    topGroups: groups.map((_, i) => i).filter((i) => groupParent[i] < 0),
    subgroups,
    members,
    loose: nodes.map((_, i) => i).filter((i) => leafParent[i] < 0),
    unit,
    units: nodes.length + groups.length,
  };
}

/** Graphs up to this many nodes get several layouts, one per root tried (peripheralUnits), and keep the best. */
const MAX_TRIED_NODES = 300;
const ROOTS_TRIED = 4;

/** Points where two routes cross, over pairs of edges with no node in common (orthogonal routes: segments). */
function routeCrossings(ends: [number, number][], routes: Record<string, Array<[number, number]>>): number {
  const side = (o: number[], a: number[], b: number[]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const apart = (u: number, v: number) => (u > 1e-6 && v < -1e-6) || (u < -1e-6 && v > 1e-6);
  const pts = ends.map((_, i) => routes[`e${i}`] ?? []);
  let n = 0;
  for (let i = 0; i < ends.length; i++) {
    for (let j = i + 1; j < ends.length; j++) {
      const [a, b] = ends[i], [c, d] = ends[j];
      if (a === c || a === d || b === c || b === d) continue;
      const P = pts[i], Q = pts[j];
      for (let s = 1; s < P.length; s++) {
        for (let t = 1; t < Q.length; t++) {
          if (apart(side(Q[t - 1], Q[t], P[s - 1]), side(Q[t - 1], Q[t], P[s])) && apart(side(P[s - 1], P[s], Q[t - 1]), side(P[s - 1], P[s], Q[t]))) n++;
        }
      }
    }
  }
  return n;
}

/**
 * Up to `k` units that are not isolated, the most eccentric first (farthest
 * from the rest of their component; then by index): roots to try. O(n * e).
 */
function peripheralUnits(n: number, links: [number, number][], k: number): number[] {
  const adj: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of links) if (a !== b) { adj[a].push(b); adj[b].push(a); }
  const depth = new Array<number>(n);
  const eccentricity = (root: number) => {
    depth.fill(-1);
    depth[root] = 0;
    const order = [root];
    for (let i = 0; i < order.length; i++) for (const m of adj[order[i]]) if (depth[m] < 0) { depth[m] = depth[order[i]] + 1; order.push(m); }
    return depth[order[order.length - 1]];
  };
  return adj.map((a, i) => [i, a.length > 0 ? eccentricity(i) : -1]).filter(([, e]) => e > 0)
    .sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, k).map(([i]) => i);
}

/**
 * BFS level of every node from a peripheral node of its component: a double
 * sweep finds far-apart nodes; the earliest in the data among them is the root,
 * so a chain keeps its data order left to right. `root`, when given, is the
 * root of its own component instead. Deterministic, O(n + e).
 */
export function bfsLevels(n: number, links: [number, number][], root?: number): number[] {
  const adj: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of links) {
    if (a === b) continue;
    adj[a].push(b);
    adj[b].push(a);
  }
  const level = new Array<number>(n).fill(-1);
  const probe = new Array<number>(n).fill(-1);
  const sweep = (root: number, mark: number[]): number[] => {
    const order = [root];
    mark[root] = 0;
    for (let i = 0; i < order.length; i++) {
      for (const m of adj[order[i]]) if (mark[m] < 0) { mark[m] = mark[order[i]] + 1; order.push(m); }
    }
    return order;
  };
  const reset = (order: number[]) => { for (const i of order) probe[i] = -1; };
  if (root !== undefined && root >= 0 && root < n) sweep(root, level);
  for (let start = 0; start < n; start++) {
    if (level[start] >= 0) continue;
    const first = sweep(start, probe);
    reset(first);
    const far1 = first[first.length - 1]; // BFS order ends at a node of maximum distance
    const second = sweep(far1, probe);
    const maxd = probe[second[second.length - 1]];
    let far2 = far1;
    for (const i of second) if (probe[i] === maxd && i < far2) far2 = i;
    reset(second);
    sweep(Math.min(far1, far2), level);
  }
  return level;
}
