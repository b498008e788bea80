// Logical layout: a layered, left-to-right drawing computed by elkjs (the
// Eclipse Layout Kernel's "layered" algorithm), then mapped into a small
// lat/lng box around (0, 0) as Terranova does (30° x 60°, aspect kept), so
// map clients can show it on their usual projection.
//
// Why elkjs: measured on 500-node / 1,000-edge backbone-like graphs (see
// bench/render.ts), ELK layered with thoroughness 1 and the greedy-switch
// crossing pass off runs in about the time of native `dot -Tjson`, while
// Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz 1.29) was 1.3-2x
// slower than native dot and would add a dependency; ELK's default
// thoroughness (7) was 5x slower for little visible gain on network graphs.
// Measured per phase (ELK's measureExecutionTime), the remaining time is
// spread over layering, crossing minimization and node placement.
//
// Circuits have no direction, so before layout each edge is oriented along a
// breadth-first search from a peripheral node of its component (the node
// farthest from the component's first node). The graph's long axis then runs
// left to right, cycle breaking has nothing to do and edges span few layers
// (fewer dummy nodes): about 1.5-2x faster than data order and a clearer
// picture. The BFS levels also seed ELK's layers (interactive layering reads
// them from the nodes' x): about 10% faster than its network-simplex
// layering on the benchmark graph, with the same crossings and bends.
// A fixed seed and input order make the result deterministic. ELK itself
// runs on a thread of its own (layout-thread.mjs), so a layout never holds
// the service's event loop.
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { validationFailed } from '../errors.ts';
import { layOut } from './layout-client.ts';
import type { LatLng, TopologyEdge, TopologyNode } from './types.ts';

const LAT_SPAN = 30;
const LNG_SPAN = 60;
const DEFAULT_W = 30;
const DEFAULT_H = 15;
/** x given to a node per BFS level: interactive layering orders layers by x. */
const LEVEL_X = 100;
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
  'elk.direction': 'RIGHT',
  'elk.edgeRouting': 'POLYLINE',
  'elk.randomSeed': '1',
  'elk.layered.thoroughness': '1',
  'elk.layered.layering.strategy': 'INTERACTIVE',
  'elk.layered.crossingMinimization.greedySwitch.type': 'OFF',
  // One Brandes-Köpf alignment instead of four plus balancing, and no per-component
  // graph copies: each about 15-20% of the time on the benchmark graph.
  'elk.layered.nodePlacement.bk.fixedAlignment': 'LEFTDOWN',
  'elk.separateConnectedComponents': 'false',
  'elk.spacing.nodeNode': '20',
  'elk.layered.spacing.nodeNodeBetweenLayers': '40',
};

/**
 * Sets every node's coordinate and returns, per edge, the bend points of its
 * route (already in lat/lng). Edge ends are the node centres, as Terranova
 * draws them (Graphviz headclip/tailclip off).
 */
export async function layoutLogical(nodes: TopologyNode[], edges: TopologyEdge[]): Promise<Map<TopologyEdge, LatLng[]>> {
  const bends = new Map<TopologyEdge, LatLng[]>();
  if (nodes.length === 0) return bends;
  if (nodes.length > MAX_LOGICAL_NODES || edges.length > MAX_LOGICAL_EDGES) {
    throw validationFailed(`the logical layout draws at most ${MAX_LOGICAL_NODES} nodes and ${MAX_LOGICAL_EDGES} edges; ` +
      `this topology has ${nodes.length} nodes and ${edges.length} edges: filter the dataset, or use the geographic layout`);
  }
  const index = new Map(nodes.map((n, i) => [n.name, i] as const));
  const size = (n: TopologyNode, k: 'computed_width' | 'computed_height', d: number) => {
    const v = Number(n.meta[k]);
    return Number.isFinite(v) && v > 0 ? Math.min(v, 400) : d;
  };
  const levels = bfsLevels(nodes.length, edges.map((e) => (e.meta.endpoint_identifiers.names as string[]).map((n) => index.get(n)!) as [number, number]));
  const flipped = edges.map((e) => {
    const [a, b] = (e.meta.endpoint_identifiers.names as string[]).map((n) => index.get(n)!);
    return levels[a] > levels[b] || (levels[a] === levels[b] && a > b);
  });
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: ELK_OPTIONS,
    children: nodes.map((n, i) => ({ id: `n${i}`, x: levels[i] * LEVEL_X, width: size(n, 'computed_width', DEFAULT_W), height: size(n, 'computed_height', DEFAULT_H) })),
    edges: edges.map((e, i) => {
      const [a, b] = (e.meta.endpoint_identifiers.names as string[]).map((n) => `n${index.get(n)}`);
      return flipped[i] ? { id: `e${i}`, sources: [b], targets: [a] } : { id: `e${i}`, sources: [a], targets: [b] };
    }),
  };
  const out = await layOut(graph);
  const W = Math.max(out.width, 1), H = Math.max(out.height, 1);
  const scale = Math.min(LNG_SPAN / W, LAT_SPAN / H);
  const toLatLng = (x: number, y: number): LatLng => [(H / 2 - y) * scale, (x - W / 2) * scale];
  out.nodes.forEach(([x, y, w, h], i) => {
    nodes[i].coordinate = toLatLng(x + w / 2, y + h / 2);
  });
  out.bends.forEach((route, i) => {
    const pts = route.map(([x, y]) => toLatLng(x, y));
    // Bends run from ELK's source to its target; put them back in the circuit's own direction.
    bends.set(edges[i], flipped[i] ? pts.reverse() : pts);
  });
  return bends;
}

/**
 * BFS level of every node from a peripheral node of its component: a double
 * sweep finds far-apart nodes; the earliest in the data among them is the root,
 * so a chain keeps its data order left to right. Deterministic, O(n + e).
 */
export function bfsLevels(n: number, links: [number, number][]): number[] {
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
