// Logical layout: a drawing chosen for the graph, then mapped into a small
// lat/lng box around (0, 0) as Terranova does (30° x 60°, aspect kept), so
// map clients can show it on their usual projection. Hierarchies (trees
// without coordinates), nested groups and big graphs get a layered drawing
// computed by elkjs (the Eclipse Layout Kernel's "layered" algorithm, graph
// built by logical-graph.ts); everything else the stress drawing of
// stress-drawing.ts (rings, meshes, schematics of backbones, sites as boxes),
// with the layered one as its fallback where it crosses clearly more. A
// hierarchy the query asks for (roles.ts: layers by a role field, or a
// direction) is always layered: by role, its layers are the roles, in order.
//
// What the picture needs, measured against Graphviz `dot` on the same graphs
// (test/render/logical-layout.test.ts, `npm run bench -- render`): groups are
// ELK compound nodes and come out as cluster boxes; orthogonal routing keeps
// every edge off the nodes it does not end at; as few crossings as dot.
// The crossings follow the layering, which follows the root of the BFS that
// orients the circuits (3 to 22 on the demo's North America dataset), so on
// small graphs several roots are tried (the most central first, where the
// drawing is also closest to a dashboard's shape) and the drawing with the
// fewest crossings kept, counted exactly on ELK's routes (route-crossings.ts).
// ELK's own wrapping is used only when nothing else gives a dashboard's
// shape (a long chain): it joins the columns with long edges around the
// picture and adds crossings (3 to 7 on that dataset). Instead the kept
// drawing is brought towards 16:10 by spacing nodes within layers further
// apart, top to bottom or, when that cannot reach it, left to right; spacing
// changes no node's order, and a stretched drawing is kept only with as few
// crossings. Everything is deterministic: no clock decides, only counts.
// ELK runs on a thread of its own (layout-thread.mjs), and the straight
// drawings on another (drawing-jobs.ts), so a layout never holds the
// service's event loop.
import { validationFailed } from '../errors.ts';
import { compassPlaces, hasCompassOrder } from './compass-order.ts';
import { round6 } from './geometry.ts';
import { drawStraight, layOut } from './layout-client.ts';
import { prefetch, tangled } from './layered-prefetch.ts';
import type { LayoutResult } from './layout-thread.mjs';
import { CLUSTER_TITLE_PX, centralUnits, clusterTitle, elkGraph, groupTree, type Variant } from './logical-graph.ts';
import type { Hierarchy } from './roles.ts';
import { routeCrossings } from './route-crossings.ts';
import { textWidth } from './text-width.ts';
import type { LatLng, TopologyEdge, TopologyNode } from './types.ts';

export { bfsLevels } from './logical-graph.ts';

const LAT_SPAN = 30;
const LNG_SPAN = 60;
/** Width over height the drawing is brought towards: between 4:3 and 16:9, what a dashboard panel shows. */
const TARGET_ASPECT = 1.6;
/** Aspect ratios taken as a dashboard's shape (no further stretching), and beyond which a drawing is a strip (ELK's wrapping is tried). */
const GOOD = [1.3, 1.9];
const STRIP = [0.7, 3.2];
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
  'elk.json.shapeCoords': 'ROOT',
  'elk.json.edgeCoords': 'ROOT',
  'elk.spacing.nodeNode': '20',
  'elk.layered.spacing.nodeNodeBetweenLayers': '40',
  // Nodes have fixed sizes and no labels or ports for ELK to place: its micro layout of each node (a tenth of its time) has nothing to do.
  'elk.omitNodeMicroLayout': 'true',
};

/** ELK's wrapping, for strips only: the drawing cut into columns joined by long edges, towards 16:10. */
const WRAP_OPTIONS: Record<string, string> = {
  'elk.layered.wrapping.strategy': 'MULTI_EDGE',
  'elk.aspectRatio': String(TARGET_ASPECT),
};

/**
 * For graphs over SMALL_GRAPH: one ordering pass instead of seven, no
 * greedy switch, one Brandes-Köpf alignment, no per-component copies, and
 * the edges leaving a node on one side start at one point (ELK's merged
 * edges: a port per side instead of one per edge, a seventh less time; the
 * edges fan out from a short shared stem). Without groups the drawing also
 * takes the BFS levels as layers and our order within them
 * (logical-graph.ts, Variant.levelsAsLayers). Together they keep a
 * 500-node / 1,000-edge layout within dot's time.
 */
const FAST_OPTIONS: Record<string, string> = {
  'elk.layered.thoroughness': '1',
  'elk.layered.mergeEdges': 'true',
  'elk.layered.crossingMinimization.greedySwitch.type': 'OFF',
  'elk.layered.nodePlacement.bk.fixedAlignment': 'LEFTDOWN',
  'elk.separateConnectedComponents': 'false',
};

/**
 * Graphs up to this size (nodes, edges and groups) get several drawings and
 * keep the best; larger ones get one, with FAST_OPTIONS. A drawing of 300
 * routers, 150 sites and 600 circuits takes seconds: several would hold a
 * request far too long.
 */
const SMALL_GRAPH = 400;
/** Roots tried: at most this many, and fewer as the graph grows (TRY_BUDGET over its size): 6 on the demo's North America (41 routers, 28 sites, 55 circuits), 2 at size 400. */
const MAX_TRIES = 6;
const TRY_BUDGET = 800;
/** Crossings a stress drawing may add over a tangled layered one (FEW_CROSSINGS or more), as a share of them. */
const FEW_CROSSINGS = 4;
const CROSSING_TRADE = 0.5;
/** Spacing between nodes of a layer (px): ELK_OPTIONS' own, and the most a drawing is stretched to. */
const SPACING = 20;
const MAX_SPACING = 140;

/** What the layout adds to the topology besides node coordinates. */
export interface LogicalLayout {
  /** Per edge, the points of its route between its two node centres (lat/lng), in the circuit's own direction. */
  bends: Map<TopologyEdge, LatLng[]>;
  /** Picture pixels per degree of the lat/lng box: the SVG draws the layout at ELK's own scale, where nodes keep their spacing. */
  pixelsPerDegree: number;
}

type Drawing = { out: LayoutResult; flipped: boolean[]; crossings: number; aspect: number; across: boolean };
const off = (aspect: number) => Math.abs(Math.log(aspect / TARGET_ASPECT));
const good = (aspect: number) => aspect >= GOOD[0] && aspect <= GOOD[1];

/**
 * Sets every node's coordinate, and each group's `meta.cluster` (its box,
 * [[south, west], [north, east]]), and returns the edges' routes. Edge ends
 * are the node centres, as Terranova draws them (Graphviz headclip/tailclip
 * off); the route in between is ELK's, from node border to node border.
 */
export async function layoutLogical(nodes: TopologyNode[], edges: TopologyEdge[], groups: TopologyNode[] = [], hierarchy: Hierarchy = {}): Promise<LogicalLayout> {
  const bends = new Map<TopologyEdge, LatLng[]>();
  if (nodes.length === 0) return { bends, pixelsPerDegree: 1 };
  if (nodes.length > MAX_LOGICAL_NODES || edges.length > MAX_LOGICAL_EDGES) {
    throw validationFailed(`the logical layout draws at most ${MAX_LOGICAL_NODES} nodes and ${MAX_LOGICAL_EDGES} edges; ` +
      `this topology has ${nodes.length} nodes and ${edges.length} edges: filter the dataset, or use the geographic layout`);
  }
  const index = new Map(nodes.map((n, i) => [n.name, i] as const));
  const ends = edges.map((e) => (e.meta.endpoint_identifiers.names as string[]).map((n) => index.get(n)!) as [number, number]);
  const tree = groupTree(nodes, groups);
  const size = nodes.length + edges.length + groups.length;
  const small = size <= SMALL_GRAPH;
  // A hierarchy asked for: layers in its direction only (no other tried), its ranks as layers (no roots tried).
  const { ranks } = hierarchy;
  const asked = hierarchy.direction !== undefined || ranks !== undefined;
  const direction = hierarchy.direction === 'right' ? 'RIGHT' : 'DOWN';
  const base = { ...ELK_OPTIONS, ...(small ? {} : FAST_OPTIONS), 'elk.direction': direction };
  const draw = async (variant: Variant): Promise<Drawing> => {
    const { graph, flipped } = elkGraph(nodes, groups, tree, ends, base, { ...variant, ranks });
    const out = await layOut(graph);
    // One drawing only on big graphs: nothing to compare, so no count (it is quadratic in the edges).
    return { out, flipped, crossings: small ? routeCrossings(ends, out.routes) : 0, aspect: Math.max(out.width, 1) / Math.max(out.height, 1), across: variant.options?.['elk.direction'] === 'RIGHT' };
  };
  const better = (a: Drawing, b: Drawing) => a.crossings < b.crossings || (a.crossings === b.crossings && off(a.aspect) < off(b.aspect) - 1e-9);

  // Layers only for hierarchies: a tree (or several) without coordinates. Everything else (a ring, a mesh, a
  // backbone, any graph with coordinates) gets the stress layout, as neato draws it (circuits short and alike,
  // straight, a ring drawn round; with coordinates, a schematic in compass order), with its sites as boxes. ELK's
  // layers remain for nested groups (a site within a region), big graphs, and a stress drawing that cannot be
  // placed clear of its circuits, or that crosses more than the layered drawing.
  let stressed: Drawing | null = null;
  // Longitudes on the graph's own continuous range, as the compass order measures them; a graph round the world
  // (more than half the globe's longitudes) has no compass order to keep and is drawn as one without coordinates
  // (compass-order.ts).
  const places = nodes.every((n) => hasPlace(n.coordinate)) ? nodes.map((n) => n.coordinate) : undefined;
  const geo = places && hasCompassOrder(places) ? compassPlaces(places) : undefined;
  const oneLevel = groups.every((_, g) => tree.subgroups[g].length === 0 && tree.members[g].length > 0);
  // The roots the layered drawing tries after bfsLevels' own (a peripheral unit): the most central units.
  let tries: number[] | undefined;
  const roots = () => (tries ??= small && !ranks
    ? rootsToTry(tree.units, ends.map(([a, b]) => [tree.unit[a], tree.unit[b]]), Math.min(MAX_TRIES, Math.floor(TRY_BUDGET / size)) - 1) : []);
  const boxes = nodes.map((n) => ({ w: Number(n.meta.computed_width) || 30, h: Number(n.meta.computed_height) || 15 }));
  const straight = (out: LayoutResult): Drawing => {
    const centre = (i: number): [number, number] => { const [x, y, w, h] = out.nodes[`n${i}`]; return [x + w / 2, y + h / 2]; };
    const crossings = routeCrossings(ends, Object.fromEntries(ends.map(([a, b], i) => [`e${i}`, [centre(a), centre(b)]])));
    return { out, flipped: ends.map(() => false), crossings, aspect: out.width / out.height, across: false };
  };
  if (small && oneLevel && !asked && (geo || !isForest(nodes.length, ends))) {
    // Drawn by the layout thread while the drawing thread draws the stress drawing, where they are likely wanted (layered-prefetch.ts).
    if (tangled(nodes.length, ends)) prefetch([{ levelsAsLayers: false }, ...roots().map((root) => ({ root }))].map((v) => elkGraph(nodes, groups, tree, ends, base, { ...v, ranks }).graph));
    const sites = groups.map((g, k) => ({ members: tree.members[k], titleWidth: textWidth(clusterTitle(g.name), CLUSTER_TITLE_PX) }));
    // Drawn on the drawing thread (drawing-jobs.ts), beside the layered drawings on the layout thread.
    const stress = await drawStraight({ kind: 'straight', input: { boxes, ends, geo, sites } });
    if (stress) stressed = straight(stress);
  }
  const layered = async (): Promise<Drawing> => {
    // 1. The root: bfsLevels' own (a peripheral unit), then the most central units.
    let root: number | undefined;
    let best = await draw({ levelsAsLayers: !small });
    if (small && !ranks) {
      for (const r of roots()) {
        if (best.crossings === 0) break;
        const next = await draw({ root: r });
        if (better(next, best)) { best = next; root = r; }
      }
    }
    // 2. Its shape: spaced out within layers towards 16:10 (no crossing more), else wrapped if it is a strip.
    // Spacing within layers widens a top-to-bottom drawing and heightens a left-to-right one: tried only where that helps.
    const spacingHelps = direction === 'DOWN' ? best.aspect < GOOD[0] : best.aspect > GOOD[1];
    if (small && asked && spacingHelps) {
      // Spaced within the asked direction only, as far as it keeps the crossings.
      for (const spacing of [MAX_SPACING, (SPACING + MAX_SPACING) / 2]) {
        const d = await draw({ root, options: { 'elk.spacing.nodeNode': String(spacing) } });
        if (d.crossings <= best.crossings && off(d.aspect) < off(best.aspect)) best = d;
      }
    } else if (small && !asked && !good(best.aspect)) {
      const tried: Drawing[] = [];
      // Spacing within layers widens a top-to-bottom drawing and heightens a left-to-right one; the aspect ratio
      // follows it about linearly, so two drawings per direction give the spacing to ask for.
      const stretch = async (direction: string, first?: Drawing) => {
        const at = (spacing: number) => draw({ root, options: { 'elk.direction': direction, 'elk.spacing.nodeNode': String(spacing) } });
        const lo = first ?? await at(SPACING);
        tried.push(lo);
        if (good(lo.aspect)) return;
        const hi = await at(MAX_SPACING);
        tried.push(hi);
        if ((lo.aspect - TARGET_ASPECT) * (hi.aspect - TARGET_ASPECT) < 0) {
          tried.push(await at(Math.round(SPACING + ((TARGET_ASPECT - lo.aspect) / (hi.aspect - lo.aspect)) * (MAX_SPACING - SPACING))));
        }
      };
      // Top to bottom, spacing gains at most about 1.7x (0.75 to 1.29 on the North America demo): not tried from further off.
      if (best.aspect < GOOD[0] && best.aspect * 1.7 >= GOOD[0]) await stretch('DOWN', best);
      if (!tried.some((d) => good(d.aspect))) await stretch('RIGHT');
      for (const d of tried) if (d.crossings <= best.crossings && off(d.aspect) < off(best.aspect)) best = d;
    }
    // Wrapping cuts the layers' axis only: it helps a strip along the layers (a long chain; wide when laid left to right),
    // never one across them (a top-to-bottom drawing too wide).
    if (!asked && (best.aspect < STRIP[0] || (best.across && best.aspect > STRIP[1]))) {
      const wrapped = await draw({ root, options: WRAP_OPTIONS, levelsAsLayers: !small });
      if (off(wrapped.aspect) < off(best.aspect)) best = wrapped;
    }
    return best;
  };
  // Crossings matter most, but not alone: the layered drawing is not drawn at all when the stress drawing has no
  // crossing, and is kept where the stress drawing crosses more, except on a tangled graph (FEW_CROSSINGS or more
  // layered) where up to half as many again buy circuits a third as long (the generated mesh: 12 against 8, total
  // length 1.4x neato's against 3.1x).
  let best = stressed?.crossings === 0 ? stressed : await layered();
  const allowed = best.crossings + (best.crossings >= FEW_CROSSINGS ? Math.floor(best.crossings * CROSSING_TRADE) : 0);
  if (stressed && stressed.crossings <= allowed) best = stressed;
  // The straight drawing kept, annealed where that meets more of the quality rules (annealed-drawing.ts).
  if (best === stressed && groups.length === 0) best = stressed = straight((await drawStraight({ kind: 'annealed', input: { boxes, ends, geo }, out: best.out })) ?? best.out);

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

/** Whether the circuits form no cycle (a tree or several): a hierarchy, drawn in layers. */
function isForest(n: number, ends: readonly [number, number][]): boolean {
  const parent = [...Array(n).keys()];
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x])));
  for (const [a, b] of ends) {
    const [ra, rb] = [find(a), find(b)];
    if (ra === rb) return false;
    parent[ra] = rb;
  }
  return true;
}

/** A node placed by its data (not the [0, 0] of a node without coordinates). */
const hasPlace = (c: LatLng | undefined) => Array.isArray(c) && Number.isFinite(c[0]) && Number.isFinite(c[1]) && !(c[0] === 0 && c[1] === 0);

/** Up to `k` roots, the most central units first (by eccentricity, logical-graph.ts): their drawings have the fewest layers, nearest a dashboard's shape. */
function rootsToTry(units: number, links: [number, number][], k: number): number[] {
  return centralUnits(units, links).slice(0, Math.max(0, k));
}
