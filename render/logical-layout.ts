// Logical layout: a layered, left-to-right drawing computed by elkjs (the
// Eclipse Layout Kernel's "layered" algorithm), then mapped into a small
// lat/lng box around (0, 0) as Terranova does (30° x 60°, aspect kept), so
// map clients can show it on their usual projection.
//
// Why elkjs: measured on a 500-node / 1,000-edge backbone-like graph (see
// bench/render.ts), ELK layered with thoroughness 1 and the greedy-switch
// crossing pass off runs in about the time of native `dot -Tjson`, while
// Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz) was 1.3-2x
// slower and would add a dependency; ELK's default thoroughness (7) was 5x
// slower for little visible gain on network graphs. A fixed random seed and
// input order make the result deterministic.
import ElkModule from 'elkjs/lib/elk.bundled.js';
import type { ELK, ELKConstructorArguments, ElkNode, ElkExtendedEdge } from 'elkjs/lib/elk-api.js';
import type { LatLng, TopologyEdge, TopologyNode } from './types.ts';

const LAT_SPAN = 30;
const LNG_SPAN = 60;
const DEFAULT_W = 30;
const DEFAULT_H = 15;

export const ELK_OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'RIGHT',
  'elk.edgeRouting': 'POLYLINE',
  'elk.randomSeed': '1',
  'elk.layered.thoroughness': '1',
  'elk.layered.crossingMinimization.greedySwitch.type': 'OFF',
  'elk.spacing.nodeNode': '20',
  'elk.layered.spacing.nodeNodeBetweenLayers': '40',
  'elk.spacing.componentComponent': '40',
};

// elkjs is CommonJS; under NodeNext its default export arrives wrapped or not depending on the loader.
const ElkCtor = ((ElkModule as unknown as { default?: unknown }).default ?? ElkModule) as new (args?: ELKConstructorArguments) => ELK;
let engine: ELK | undefined;

/**
 * Sets every node's coordinate and returns, per edge, the bend points of its
 * route (already in lat/lng). Edge ends are the node centres, as Terranova
 * draws them (Graphviz headclip/tailclip off).
 */
export async function layoutLogical(nodes: TopologyNode[], edges: TopologyEdge[]): Promise<Map<TopologyEdge, LatLng[]>> {
  const bends = new Map<TopologyEdge, LatLng[]>();
  if (nodes.length === 0) return bends;
  const index = new Map(nodes.map((n, i) => [n.name, i] as const));
  const size = (n: TopologyNode, k: 'computed_width' | 'computed_height', d: number) => {
    const v = Number(n.meta[k]);
    return Number.isFinite(v) && v > 0 ? Math.min(v, 400) : d;
  };
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: ELK_OPTIONS,
    children: nodes.map((n, i) => ({ id: `n${i}`, width: size(n, 'computed_width', DEFAULT_W), height: size(n, 'computed_height', DEFAULT_H) })),
    edges: edges.map((e, i) => {
      const [a, b] = e.meta.endpoint_identifiers.names as string[];
      return { id: `e${i}`, sources: [`n${index.get(a)}`], targets: [`n${index.get(b)}`] };
    }),
  };
  engine ??= new ElkCtor();
  const out = await engine.layout(graph);
  const W = Math.max(out.width ?? 1, 1), H = Math.max(out.height ?? 1, 1);
  const scale = Math.min(LNG_SPAN / W, LAT_SPAN / H);
  const toLatLng = (x: number, y: number): LatLng => [(H / 2 - y) * scale, (x - W / 2) * scale];
  out.children!.forEach((c: ElkNode, i: number) => {
    nodes[i].coordinate = toLatLng((c.x ?? 0) + (c.width ?? 0) / 2, (c.y ?? 0) + (c.height ?? 0) / 2);
  });
  (out.edges as ElkExtendedEdge[]).forEach((e, i) => {
    const pts = (e.sections ?? []).flatMap((s) => s.bendPoints ?? []).map((p) => toLatLng(p.x, p.y));
    // ELK lists bends from source to target; an edge it reversed to break a cycle is still reported source->target.
    bends.set(edges[i], pts);
  });
  return bends;
}
