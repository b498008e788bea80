// The picture of a change between two topologies (docs/api.md: Diffs):
// their union drawn once - laid out once, so what did not change does not
// move - each router and circuit coloured by what happened to it: added
// (only in `after`) green, removed (only in `before`) dashed red, changed
// amber, unchanged grey, with a legend of the four and their counts. What
// happened to each comes from the caller when it has a diff of its own (the
// dataset's JSON diff: history/diff-picture.ts, so the counts agree), else
// from comparing the two topologies. Site groups are drawn, never counted or
// marked: a logical layout's clusters in grey behind everything. Drawn with
// svg-draw.ts's pieces and serialized through the one sanitizer.
import type { G } from '@svgdotjs/svg.js';
import type { Layout, Topology, TopologyEdge, TopologyNode } from './types.ts';
import { newCanvas, setAttrs, fmt } from './svg-canvas.ts';
import { serialize, type DomLike, type Inner } from '../svg-safety/sanitize.ts';
import { contentFrame, logicalFrame } from './projection.ts';
import { landPath } from './countries.ts';
import { drawClusters, withoutClusters } from './svg-clusters.ts';
import { sizeAttributes, toRect } from './picture-size.ts';
import { drawScene, emptyExtent, type DrawTarget } from './svg-draw.ts';
import { drawLabels, fitPicture } from './picture-fit.ts';
import { DEFAULT_TEMPLATES } from '../svg-safety/template.ts';
import { textWidth } from './text-width.ts';
import { drawNode } from './topology.ts';
import { deepEqual } from '../schema/json-equal.ts';
import { PICTURE_FONT_FAMILY } from './picture-font.ts';

export type DiffStatus = 'added' | 'removed' | 'changed' | 'unchanged';

export const DIFF_COLORS: Readonly<Record<DiffStatus, string>> = Object.freeze({
  added: '#2ca02c', removed: '#d62728', changed: '#f0a000', unchanged: '#a0a0a0',
});
/** Dash pattern of removed edges (and node outlines): they are gone, so drawn as a ghost. */
export const REMOVED_DASH = '6 4';
/** Unchanged first, so what changed is drawn over it, not hidden under it. */
const DRAW_ORDER: DiffStatus[] = ['unchanged', 'changed', 'removed', 'added'];
const LEGEND_ORDER: DiffStatus[] = ['added', 'removed', 'changed', 'unchanged'];

export interface DiffSvgOptions {
  layout: Layout;
  /** Lines under the legend's four (a map's layers added or removed). */
  notes?: readonly string[];
  /** Picture size in px (picture-size.ts); none: no fixed size, the picture scales to its container. */
  width?: number;
  height?: number;
}

/** What happened to each router (by name) and circuit (edgeKey); anything not listed is unchanged. */
export interface DiffMarks {
  nodes: ReadonlyMap<string, DiffStatus>;
  edges: ReadonlyMap<string, DiffStatus>;
}

/**
 * The key a circuit is marked by: its record's name (`edge_name`, which a
 * repeated name keeps while the topology's name gets " (2)"), and with
 * `withId` its record's id too, for a name several records share.
 */
function edgeKey(e: TopologyEdge, withId = false): string {
  const ids = e.meta.endpoint_identifiers ?? {};
  const name = String(ids.edge_name?.[0] ?? e.name);
  return withId ? `${name}\u0000${String(ids.edge_id?.[0] ?? '')}` : name;
}
const markOf = (marks: DiffMarks, e: TopologyEdge): DiffStatus => marks.edges.get(edgeKey(e, true)) ?? marks.edges.get(edgeKey(e)) ?? 'unchanged';

/** Marker and its size are drawn from the template, not data: another template is not a changed node; nor are a logical layout's positions, which the picture draws from one union. */
const DRAWN = new Set(['svg', 'computed_width', 'computed_height', 'cluster']);

function sameMeta(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const k of Object.keys(a)) if (!DRAWN.has(k) && !deepEqual(a[k], Object.hasOwn(b, k) ? b[k] : undefined)) return false;
  for (const k of Object.keys(b)) if (!DRAWN.has(k) && !Object.hasOwn(a, k) && b[k] !== undefined) return false;
  return true;
}

/**
 * Marks from comparing two topologies by name (names are unique within one;
 * a repeated one keeps its first): a router changed when its fields or,
 * geographically, its place did; a circuit when its fields did (it follows
 * its routers; a moved router is marked, not every circuit at it).
 */
export function compareTopologies(before: Topology, after: Topology, logical: boolean): DiffMarks {
  const mark = <T extends { name: string }>(a: readonly T[], b: readonly T[], key: (x: T) => string, same: (x: T, y: T) => boolean) => {
    const out = new Map<string, DiffStatus>();
    const old = new Map<string, T>();
    for (const x of a) if (!old.has(key(x))) old.set(key(x), x);
    const seen = new Set<string>();
    for (const x of b) {
      const k = key(x);
      if (seen.has(k)) continue;
      seen.add(k);
      const was = old.get(k);
      if (!was) out.set(k, 'added');
      else if (!same(was, x)) out.set(k, 'changed');
    }
    for (const k of old.keys()) if (!seen.has(k)) out.set(k, 'removed');
    return out;
  };
  const leaves = (t: Topology) => (t.nodes ?? []).filter((n) => !n.children);
  return {
    nodes: mark(leaves(before), leaves(after), (n) => n.name, (x, y) => (logical || deepEqual(x.coordinate, y.coordinate)) && sameMeta(x.meta, y.meta)),
    edges: mark(before.edges ?? [], after.edges ?? [], (e) => edgeKey(e, true), (x, y) => sameMeta(x.meta, y.meta)),
  };
}

/** Both versions in one topology: `after`'s routers, circuits and groups, then what only `before` has. */
export function unionOf(before: Topology, after: Topology): Topology {
  const names = new Set((after.nodes ?? []).map((n) => n.name));
  const keys = new Set((after.edges ?? []).map((e) => edgeKey(e, true)));
  return {
    ...after,
    nodes: [...(after.nodes ?? []), ...(before.nodes ?? []).filter((n) => !names.has(n.name))],
    edges: [...(after.edges ?? []), ...(before.edges ?? []).filter((e) => !keys.has(edgeKey(e, true)))],
  };
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The legend's row texts: per status, its counts. */
const legendLabels = (nodes: Record<DiffStatus, TopologyNode[]>, edges: Record<DiffStatus, TopologyEdge[]>) =>
  LEGEND_ORDER.map((s) => `${s}: ${count(nodes[s].length, 'node')}, ${count(edges[s].length, 'edge')}`);
const ROW = 18, PAD = 8, FONT_PX = 11;
const legendSize = (labels: string[], k: number) => ({
  w: (PAD * 2 + Math.max(...labels.map((l, i) => (i < LEGEND_ORDER.length ? 40 : 0) + textWidth(l, FONT_PX)))) * k,
  h: (PAD * 2 + ROW * labels.length) * k,
});

/** The legend at (x, y): one row per status with an edge sample (dashed for removed), a node dot and the counts; k scales it with the labels. */
function drawLegend(parent: G, labels: string[], at: { x: number; y: number }, k: number): void {
  const { w, h } = legendSize(labels, k);
  const { x, y } = at;
  setAttrs(parent.rect(), { x, y, width: w, height: h, rx: 4 * k, fill: '#ffffff', 'fill-opacity': 0.9, stroke: '#999999', 'stroke-width': 0.8 * k });
  LEGEND_ORDER.forEach((s, i) => {
    const cy = y + (PAD + ROW * i + ROW / 2) * k;
    const entry = setAttrs(parent.group(), { 'data-diff': s }) as G;
    setAttrs(entry.line(), {
      x1: x + PAD * k, y1: cy, x2: x + (PAD + 22) * k, y2: cy, stroke: DIFF_COLORS[s], 'stroke-width': 3 * k,
      'stroke-dasharray': s === 'removed' ? REMOVED_DASH : undefined,
    });
    setAttrs(entry.circle(), { cx: x + (PAD + 30) * k, cy, r: 4 * k, fill: DIFF_COLORS[s], stroke: '#1a1a1a', 'stroke-width': 0.8 * k });
    setAttrs(entry.plain(labels[i]), { x: x + (PAD + 40) * k, y: cy, dy: '0.35em', 'font-size': FONT_PX * k, fill: '#222222' });
  });
  // Further rows are notes (a map's layers added or removed), text only.
  labels.slice(LEGEND_ORDER.length).forEach((note, i) => {
    const cy = y + (PAD + ROW * (LEGEND_ORDER.length + i) + ROW / 2) * k;
    setAttrs(parent.plain(note), { x: x + PAD * k, y: cy, dy: '0.35em', 'font-size': FONT_PX * k, fill: '#222222' });
  });
}

/** The picture of the change from `before` to `after`, a standalone SVG document (see renderUnionDiffSvg). */
export function renderDiffSvg(before: Topology, after: Topology, options: DiffSvgOptions): string {
  const marks = compareTopologies(before, after, options.layout === 'logical');
  return renderUnionDiffSvg(unionOf(before, after), marks, { ...options, title: `Changes to ${after.name || before.name || 'topology'}` });
}

const byStatus = <T>(items: readonly T[], status: (x: T) => DiffStatus) => {
  const out: Record<DiffStatus, T[]> = { added: [], removed: [], changed: [], unchanged: [] };
  for (const x of items) out[status(x)].push(x);
  return out;
};

/**
 * The picture of a change drawn on `union`, both versions laid out once
 * (for a logical layout, one layout of both versions' circuits: routers that
 * stay keep their place), each router and circuit as `marks` says. Groups
 * are drawn with the unchanged, never counted: the counts are of routers.
 */
/** A change drawn on one layout: the union of both sides, what is marked, and how it is drawn. */
export interface UnionDiff {
  union: Topology;
  marks: DiffMarks;
  options: DiffSvgOptions & { title: string };
}

export function renderUnionDiffSvg(union: Topology, marks: DiffMarks, options: DiffSvgOptions & { title: string }): string {
  const logical = options.layout === 'logical';
  // Every node is drawn with the layout's default marker, whose fill is the status colour;
  // a dataset's own template may paint its own colours and hide what changed.
  const marker = DEFAULT_TEMPLATES[options.layout].template;
  const groups = (union.nodes ?? []).filter((n) => n.children);
  const nodes = byStatus((union.nodes ?? []).filter((n) => !n.children), (n) => marks.nodes.get(n.name) ?? 'unchanged');
  const edges = byStatus(union.edges ?? [], (e) => markOf(marks, e));
  // The frame fits what is drawn, clusters included.
  const points = [...(union.nodes ?? []).flatMap((n) => [n.coordinate, ...(Array.isArray(n.meta.cluster) ? (n.meta.cluster as [number, number][]) : [])]),
    ...(union.edges ?? []).flatMap((e) => e.coordinates)];
  // A logical layout is drawn linearly at its own scale (projection.ts logicalFrame), as in every picture.
  const frame = logical ? logicalFrame(points, union.pathLayout?.pixelsPerDegree) : contentFrame(points);
  const { title } = options;
  const size = { width: options.width, height: options.height };

  const canvas = newCanvas();
  const inner = new WeakMap<object, Inner>();
  canvas.element('title').words(title);
  // Sized at once: svg.js measures an unsized rect through svgdom (a few ms per picture) to set what is overwritten below.
  const bgRect = canvas.rect(0, 0);
  const land = canvas.group();
  const [groupsG, edgesG, nodesG] = [canvas.group(), canvas.group(), canvas.group()];
  const leaders = setAttrs(canvas.group(), { class: 'leaders', stroke: '#666666', fill: 'none' }) as G;
  const labels = setAttrs(canvas.group(), {
    class: 'labels', fill: '#222222', stroke: '#ffffff', 'stroke-linejoin': 'round', 'paint-order': 'stroke',
  }) as G;
  const titles = setAttrs(canvas.group(), { class: 'cluster-titles', stroke: '#ffffff', 'stroke-width': 3, 'stroke-linejoin': 'round', 'paint-order': 'stroke' }) as G;
  // Sites stay as they were drawn: a logical layout's clusters, grey, behind everything.
  const extent = emptyExtent();
  const clusters = logical ? drawClusters(union, frame, { boxes: groupsG, titles }, { color: DIFF_COLORS.unchanged, dark: false }, extent) : { boxes: [], titles: [] };
  if (clusters.titles.length === 0) titles.remove();
  const drawnGroups = logical ? withoutClusters({ ...union, edges: [], nodes: groups }).nodes : groups;
  // One namespace: a circuit drawn as unchanged may end at a node drawn as changed.
  const namespace = {};
  const scene = drawScene(DRAW_ORDER.map((s) => {
    const mark = { 'data-diff': s, class: `diff-${s}`, 'stroke-dasharray': s === 'removed' ? REMOVED_DASH : undefined };
    const target: DrawTarget = {
      groups: setAttrs(groupsG.group(), mark) as G,
      edges: setAttrs(edgesG.group(), mark) as G,
      nodes: setAttrs(nodesG.group(), mark) as G,
      inner,
    };
    const layer: Topology = { ...union, nodes: [...nodes[s], ...(s === 'unchanged' ? drawnGroups : [])].map((n) => drawNode(n, marker)), edges: edges[s] };
    return { topology: layer, style: { name: s, color: DIFF_COLORS[s], edgeWidth: s === 'unchanged' ? 1.5 : 2.5, logical }, target, namespace };
  }), frame);
  const all = { ...scene, extent: { x0: Math.min(scene.extent.x0, extent.x0), y0: Math.min(scene.extent.y0, extent.y0), x1: Math.max(scene.extent.x1, extent.x1), y1: Math.max(scene.extent.y1, extent.y1) } };

  const rows = [...legendLabels(nodes, edges), ...(options.notes ?? [])];
  const fitted = fitPicture(all, { fixed: null, size, minW: 240, minH: 150, legend: (k) => legendSize(rows, k), obstacles: clusters.titles.map(toRect) });
  drawLabels(leaders, labels, inner, all, fitted);
  const { box } = fitted;
  drawLegend(setAttrs(canvas.group(), { class: 'legend' }) as G, rows, fitted.legendAt!, fitted.k);
  setAttrs(bgRect, { x: box.x, y: box.y, width: box.w, height: box.h, fill: '#ffffff' });
  if (!logical) {
    const d = landPath(frame.projection, box);
    if (d) setAttrs(land.path(), { d, fill: 'rgba(0,0,0,0.06)', stroke: 'rgba(0,0,0,0.28)', 'stroke-width': 0.6, 'stroke-linejoin': 'round' });
  }
  setAttrs(canvas, {
    ...sizeAttributes(box, size),
    viewBox: `${fmt(box.x)} ${fmt(box.y)} ${fmt(box.w)} ${fmt(box.h)}`,
    'font-family': PICTURE_FONT_FAMILY, role: 'img', 'aria-label': title,
  });
  return serialize(canvas.node as unknown as DomLike, { root: true, inner });
}
