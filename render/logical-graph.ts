// The ELK graph of a logical layout (logical-layout.ts runs it): groups as
// compound nodes, each circuit oriented along a breadth-first search over
// units (a router's innermost group, or the router) so that a site's routers
// share a level and the graph's long axis follows ELK's layers, and the
// options of one candidate drawing. Pure: no ELK call here.
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { textWidth } from './text-width.ts';
import type { TopologyNode } from './types.ts';

/** A cluster's title: font size and the band it takes above the cluster's members (svg-clusters.ts draws it). */
export const CLUSTER_TITLE_PX = 11;
export const CLUSTER_PAD = { top: 22, side: 10, bottom: 10 };
const MAX_TITLE_CHARS = 48;
const DEFAULT_W = 30;
const DEFAULT_H = 15;

/** A cluster's title as drawn: a long group name cut (by characters) with an ellipsis; its `<title>` keeps the whole name. */
export function clusterTitle(name: string): string {
  const chars = Array.from(name);
  return chars.length <= MAX_TITLE_CHARS ? name : `${chars.slice(0, MAX_TITLE_CHARS - 1).join('').trimEnd()}…`;
}

type Size = 'computed_width' | 'computed_height';
const size = (n: TopologyNode, k: Size, d: number) => {
  const v = Number(n.meta[k]);
  return Number.isFinite(v) && v > 0 ? Math.min(v, 400) : d;
};

export type GroupTree = ReturnType<typeof groupTree>;

/**
 * The groups as ELK's compound nodes: which groups are outermost, each
 * group's subgroups and leaf members (by index), the leaves in no group, and
 * each leaf's unit (its innermost group, or itself) for the BFS orientation.
 * A leaf or group listed by two groups stays with the first.
 */
export function groupTree(nodes: TopologyNode[], groups: TopologyNode[]) {
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

/**
 * What one candidate drawing varies: the BFS root (a unit; undefined:
 * bfsLevels' own), ELK options over the base ones, and whether ELK's layers
 * are the BFS levels and its order within them ours (orderWithinLevels; its
 * interactive layering and ordering, given each node's position) rather
 * than its own network-simplex layering and layer sweeps: on 500 nodes /
 * 1,000 edges, fewer layers, a third less time and a third fewer crossings.
 * For graphs without groups. `ranks` (per leaf) are asked-for layers
 * (roles.ts) in place of the BFS levels: they orient the circuits, and
 * without groups they are ELK's layers, the circuits within one layer left
 * out of ELK's graph (it would push one end a layer down; they are drawn
 * straight).
 */
export interface Variant { root?: number; options?: Record<string, string>; levelsAsLayers?: boolean; ranks?: number[] }

/**
 * The ELK graph of `nodes` (leaves), `groups` and the edges' `ends` (leaf
 * indices) for one variant, and which edges were flipped against the
 * circuit's own direction to follow the BFS levels.
 */
export function elkGraph(nodes: TopologyNode[], groups: TopologyNode[], tree: GroupTree, ends: [number, number][],
  options: Record<string, string>, variant: Variant): { graph: ElkNode; flipped: boolean[] } {
  const unitOf = tree.unit;
  const levels = variant.ranks ? unitRanks(tree, variant.ranks) : bfsLevels(tree.units, ends.map(([a, b]) => [unitOf[a], unitOf[b]]), variant.root);
  const flipped = ends.map(([a, b]) => levels[unitOf[a]] > levels[unitOf[b]] || (levels[unitOf[a]] === levels[unitOf[b]] && a > b));
  const leaf = (i: number): ElkNode => ({ id: `n${i}`, width: size(nodes[i], 'computed_width', DEFAULT_W), height: size(nodes[i], 'computed_height', DEFAULT_H) });
  const layered = (variant.levelsAsLayers === true || variant.ranks !== undefined) && groups.length === 0;
  const right = { ...options, ...variant.options }['elk.direction'] === 'RIGHT';
  // ELK's interactive layering reads the nodes' positions along the layers' axis (y top to bottom, x left to
  // right), its interactive ordering their positions across: the order within each level found here.
  const across = layered ? orderWithinLevels(levels, ends) : [];
  const placed = (i: number): ElkNode => (right
    ? { ...leaf(i), x: levels[i] * 100, y: across[i] * 10000 }
    : { ...leaf(i), x: across[i] * 10000, y: levels[i] * 100 });
  const kept = (i: number) => !(layered && variant.ranks && levels[ends[i][0]] === levels[ends[i][1]]);
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
  const children = [...tree.topGroups.map(compound), ...tree.loose.map(layered ? placed : leaf)];
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: {
      ...options,
      ...variant.options,
      ...(groups.length > 0 ? { 'elk.hierarchyHandling': 'INCLUDE_CHILDREN' } : {}),
      ...(layered ? { 'elk.layered.layering.strategy': 'INTERACTIVE', 'elk.layered.crossingMinimization.strategy': 'INTERACTIVE' } : {}),
    },
    children,
    edges: ends.map(([a, b], i) => (flipped[i]
      ? { id: `e${i}`, sources: [`n${b}`], targets: [`n${a}`] }
      : { id: `e${i}`, sources: [`n${a}`], targets: [`n${b}`] })).filter((_, i) => kept(i)),
  };
  return { graph, flipped };
}

/** Each unit's rank: a leaf's own, a group's the least of its members' (its routers' top layer). */
function unitRanks(tree: GroupTree, ranks: number[]): number[] {
  const out = new Array<number>(tree.units).fill(0);
  ranks.forEach((r, i) => { out[i] = r; });
  tree.members.forEach((m, g) => { out[ranks.length + g] = m.length > 0 ? Math.min(...m.map((i) => ranks[i])) : 0; });
  return out;
}

/**
 * The units that are not isolated, the most central first (by eccentricity:
 * the distance to the farthest unit of their component; then by index): roots
 * to try. O(n * e).
 */
export function centralUnits(n: number, links: [number, number][]): number[] {
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
    .sort((x, y) => x[1] - y[1] || x[0] - y[0]).map(([i]) => i);
}

/** Barycentre sweeps over the levels: 30 sweeps, alternately down and up (fewer leave many more crossings: 8 gave twice as many). */
const SWEEPS = 30;

/**
 * Each node's position (0 to 1) within its BFS level, by barycentre sweeps:
 * a node moves to the mean position of its neighbours in the level it is
 * compared with (the one above on a downward sweep, below on an upward one)
 * and in its own. Ties keep the previous order; the first order is the
 * data's. Deterministic, O(sweeps * (n log n + e)).
 */
export function orderWithinLevels(levels: number[], links: [number, number][]): number[] {
  const n = levels.length;
  const adj: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of links) if (a !== b) { adj[a].push(b); adj[b].push(a); }
  const layers: number[][] = [];
  for (let i = 0; i < n; i++) (layers[Math.max(0, levels[i])] ??= []).push(i);
  const pos = new Array<number>(n).fill(0);
  const settle = (layer: number[]) => layer.forEach((v, k) => { pos[v] = layer.length > 1 ? k / (layer.length - 1) : 0.5; });
  const all = layers.filter((l) => l !== undefined);
  all.forEach(settle);
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const down = sweep % 2 === 0;
    for (const layer of down ? all : [...all].reverse()) {
      const centre = layer.map((v) => {
        let sum = 0, count = 0;
        for (const m of adj[v]) {
          const d = levels[m] - levels[v];
          if (d === 0 || d === (down ? -1 : 1)) { sum += pos[m]; count++; }
        }
        return count > 0 ? sum / count : pos[v];
      });
      const order = layer.map((_, k) => k).sort((x, y) => centre[x] - centre[y] || x - y);
      const sorted = order.map((k) => layer[k]);
      layer.splice(0, layer.length, ...sorted);
      settle(layer);
    }
  }
  return pos;
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
