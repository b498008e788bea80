// The picture of a change between two topologies of a dataset (docs/api.md:
// Diffs): their union, each node and edge coloured by what happened to it -
// added (only in `after`) green, removed (only in `before`) dashed red,
// changed (in both, coordinates or data differ) amber, unchanged grey - with
// a legend of the four. Drawn with svg.ts's pieces (projection frame,
// drawLayer, country outlines) and serialized through the one sanitizer.
import type { G } from '@svgdotjs/svg.js';
import type { Layout, Topology, TopologyEdge, TopologyNode } from './types.ts';
import { newCanvas, setAttrs, fmt } from './svg-canvas.ts';
import { serialize, type DomLike } from '../svg-safety/sanitize.ts';
import { contentFrame, logicalFrame } from './projection.ts';
import { countryPaths } from './countries.ts';
import { drawScene, type DrawTarget } from './svg-draw.ts';
import { drawLabels, fitPicture } from './picture-fit.ts';
import { sizeAttributes } from './picture-size.ts';
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
  /** Picture size in px (picture-size.ts); none: no fixed size, the picture scales to its container. */
  width?: number;
  height?: number;
}

type Split<T> = Record<DiffStatus, T[]>;

/** Marker and its size are drawn from the template, not data: another template is not a changed node. */
const DRAWN = new Set(['svg', 'computed_width', 'computed_height']);

function sameMeta(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const k of Object.keys(a)) if (!DRAWN.has(k) && !deepEqual(a[k], Object.hasOwn(b, k) ? b[k] : undefined)) return false;
  for (const k of Object.keys(b)) if (!DRAWN.has(k) && !Object.hasOwn(a, k) && b[k] !== undefined) return false;
  return true;
}

const sameNode = (a: TopologyNode, b: TopologyNode) =>
  deepEqual(a.coordinate, b.coordinate) && deepEqual(a.children, b.children) && sameMeta(a.meta, b.meta);
const sameEdge = (a: TopologyEdge, b: TopologyEdge) => deepEqual(a.coordinates, b.coordinates) && sameMeta(a.meta, b.meta);

/** By name (names are unique within one topology; a repeated one keeps its first). */
function split<T extends { name: string }>(before: readonly T[], after: readonly T[], same: (a: T, b: T) => boolean): Split<T> {
  const out: Split<T> = { added: [], removed: [], changed: [], unchanged: [] };
  const old = new Map<string, T>();
  for (const x of before) if (!old.has(x.name)) old.set(x.name, x);
  const seen = new Set<string>();
  for (const x of after) {
    if (seen.has(x.name)) continue;
    seen.add(x.name);
    const was = old.get(x.name);
    out[!was ? 'added' : same(was, x) ? 'unchanged' : 'changed'].push(x);
  }
  for (const [name, x] of old) if (!seen.has(name)) out.removed.push(x);
  return out;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The legend's row texts: per status, its counts. */
const legendLabels = (nodes: Split<TopologyNode>, edges: Split<TopologyEdge>) =>
  LEGEND_ORDER.map((s) => `${s}: ${count(nodes[s].length, 'node')}, ${count(edges[s].length, 'edge')}`);
const ROW = 18, PAD = 8, FONT_PX = 11;
const legendSize = (labels: string[], k: number) => ({
  w: (PAD * 2 + 40 + Math.max(...labels.map((l) => textWidth(l, FONT_PX)))) * k,
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
}

/** The picture of the change from `before` to `after`, a standalone SVG document. */
export function renderDiffSvg(before: Topology, after: Topology, options: DiffSvgOptions): string {
  const logical = options.layout === 'logical';
  // Every node is drawn with the layout's default marker, whose fill is the status colour;
  // a dataset's own template may paint its own colours and hide what changed.
  const marker = DEFAULT_TEMPLATES[options.layout].template;
  const nodes = split(before.nodes ?? [], after.nodes ?? [], sameNode);
  const edges = split(before.edges ?? [], after.edges ?? [], sameEdge);
  // The frame fits what is drawn: the union, each element once.
  const points = DRAW_ORDER.flatMap((s) => [...nodes[s].map((n) => n.coordinate), ...edges[s].flatMap((e) => e.coordinates)]);
  // A logical layout is drawn linearly at its own scale (projection.ts logicalFrame), as in every picture.
  const scale = Math.max(0, ...[before, after].map((t) => Number(t.pathLayout?.pixelsPerDegree)).filter((k) => Number.isFinite(k)));
  const frame = logical ? logicalFrame(points, scale) : contentFrame(points);
  const title = `Changes to ${after.name || before.name || 'topology'}`;
  const size = { width: options.width, height: options.height };

  const canvas = newCanvas();
  const inner = new WeakMap<object, string>();
  canvas.element('title').words(title);
  const bgRect = canvas.rect();
  const land = canvas.group();
  const [groupsG, edgesG, nodesG] = [canvas.group(), canvas.group(), canvas.group()];
  const leaders = setAttrs(canvas.group(), { class: 'leaders', stroke: '#666666', fill: 'none' }) as G;
  const labels = setAttrs(canvas.group(), {
    class: 'labels', fill: '#222222', stroke: '#ffffff', 'stroke-linejoin': 'round', 'paint-order': 'stroke',
  }) as G;
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
    const from = s === 'removed' ? before : after;
    const layer: Topology = { ...from, nodes: nodes[s].map((n) => drawNode(n, marker)), edges: edges[s] };
    return { topology: layer, style: { name: s, color: DIFF_COLORS[s], edgeWidth: s === 'unchanged' ? 1.5 : 2.5, logical }, target, namespace };
  }), frame);

  const rows = legendLabels(nodes, edges);
  const fitted = fitPicture(scene, { fixed: null, size, minW: 240, minH: 150, legend: (k) => legendSize(rows, k) });
  drawLabels(leaders, labels, inner, scene, fitted);
  const { box } = fitted;
  drawLegend(setAttrs(canvas.group(), { class: 'legend' }) as G, rows, fitted.legendAt!, fitted.k);
  setAttrs(bgRect, { x: box.x, y: box.y, width: box.w, height: box.h, fill: '#ffffff' });
  if (!logical) {
    const d = countryPaths(frame.projection, box).join('');
    if (d) setAttrs(land.path(), { d, fill: 'rgba(0,0,0,0.06)', stroke: 'rgba(0,0,0,0.28)', 'stroke-width': 0.6, 'stroke-linejoin': 'round' });
  }
  setAttrs(canvas, {
    ...sizeAttributes(box, size),
    viewBox: `${fmt(box.x)} ${fmt(box.y)} ${fmt(box.w)} ${fmt(box.h)}`,
    'font-family': PICTURE_FONT_FAMILY, role: 'img', 'aria-label': title,
  });
  return serialize(canvas.node as unknown as DomLike, { root: true, inner });
}
