// The picture of a change between two topologies of a dataset (docs/api.md:
// Diffs): their union, each node and edge coloured by what happened to it -
// added (only in `after`) green, removed (only in `before`) dashed red,
// changed (in both, coordinates or data differ) amber, unchanged grey - with
// a legend of the four. Drawn with svg.ts's pieces (projection frame,
// drawLayer, country outlines) and serialized through the one sanitizer.
import type { G } from '@svgdotjs/svg.js';
import type { Layout, Topology, TopologyEdge, TopologyNode } from './types.ts';
import { newCanvas, setAttrs, fmt } from './svg-canvas.ts';
import { serialize, type DomLike } from './sanitize.ts';
import { contentFrame, logicalFrame } from './projection.ts';
import { countryPaths, type Box } from './countries.ts';
import { drawLayer, emptyExtent, type DrawTarget } from './svg-draw.ts';
import { DEFAULT_TEMPLATES, estimateTextWidth } from './template.ts';
import { drawNode } from './topology.ts';
import { deepEqual } from '../history/json-diff.ts';

export type DiffStatus = 'added' | 'removed' | 'changed' | 'unchanged';

export const DIFF_COLORS: Readonly<Record<DiffStatus, string>> = Object.freeze({
  added: '#2ca02c', removed: '#d62728', changed: '#f0a000', unchanged: '#a0a0a0',
});
/** Dash pattern of removed edges (and node outlines): they are gone, so drawn as a ghost. */
export const REMOVED_DASH = '6 4';
/** Unchanged first, so what changed is drawn over it, not hidden under it. */
const DRAW_ORDER: DiffStatus[] = ['unchanged', 'changed', 'removed', 'added'];
const LEGEND_ORDER: DiffStatus[] = ['added', 'removed', 'changed', 'unchanged'];
const MARGIN = 24;

export interface DiffSvgOptions {
  layout: Layout;
  /** Picture size in px; the viewBox keeps the whole union in view at any size. */
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

/** The legend: one row per status with an edge sample (dashed for removed), a node dot and the counts. */
function drawLegend(parent: G, nodes: Split<TopologyNode>, edges: Split<TopologyEdge>, box: Box): Box {
  const row = 18, pad = 8, fontPx = 11;
  const labels = LEGEND_ORDER.map((s) => `${s}: ${count(nodes[s].length, 'node')}, ${count(edges[s].length, 'edge')}`);
  const w = pad * 2 + 40 + Math.max(...labels.map((l) => estimateTextWidth(l, fontPx)));
  const h = pad * 2 + row * labels.length;
  const out = { ...box, h: box.h + h + 8 };
  const x = box.x + 8, y = out.y + out.h - h - 8;
  setAttrs(parent.rect(), { x, y, width: w, height: h, rx: 4, fill: '#ffffff', 'fill-opacity': 0.9, stroke: '#999999', 'stroke-width': 0.8 });
  LEGEND_ORDER.forEach((s, i) => {
    const cy = y + pad + row * i + row / 2;
    const entry = setAttrs(parent.group(), { 'data-diff': s }) as G;
    setAttrs(entry.line(), {
      x1: x + pad, y1: cy, x2: x + pad + 22, y2: cy, stroke: DIFF_COLORS[s], 'stroke-width': 3,
      'stroke-dasharray': s === 'removed' ? REMOVED_DASH : undefined,
    });
    setAttrs(entry.circle(), { cx: x + pad + 30, cy, r: 4, fill: DIFF_COLORS[s], stroke: '#1a1a1a', 'stroke-width': 0.8 });
    setAttrs(entry.plain(labels[i]), { x: x + pad + 40, y: cy, dy: '0.35em', 'font-size': fontPx, fill: '#222222' });
  });
  return out;
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

  const canvas = newCanvas();
  const inner = new WeakMap<object, string>();
  canvas.element('title').words(title);
  const bgRect = canvas.rect();
  const land = canvas.group();
  const [groupsG, edgesG, nodesG] = [canvas.group(), canvas.group(), canvas.group()];
  const labels = setAttrs(canvas.group(), {
    'font-size': 11, fill: '#222222', stroke: '#ffffff', 'stroke-width': 3, 'stroke-linejoin': 'round', 'paint-order': 'stroke',
  }) as G;
  const extent = emptyExtent();
  for (const s of DRAW_ORDER) {
    const mark = { 'data-diff': s, class: `diff-${s}`, 'stroke-dasharray': s === 'removed' ? REMOVED_DASH : undefined };
    const target: DrawTarget = {
      groups: setAttrs(groupsG.group(), mark) as G,
      edges: setAttrs(edgesG.group(), mark) as G,
      nodes: setAttrs(nodesG.group(), mark) as G,
      labels,
      inner,
    };
    const from = s === 'removed' ? before : after;
    const layer: Topology = { ...from, nodes: nodes[s].map((n) => drawNode(n, marker)), edges: edges[s] };
    drawLayer(layer, { name: s, color: DIFF_COLORS[s], edgeWidth: s === 'unchanged' ? 1.5 : 2.5, logical }, frame, target, extent);
  }

  let box: Box;
  if (!Number.isFinite(extent.x0)) box = { x: 0, y: 0, w: 400, h: 300 };
  else {
    box = { x: extent.x0 - MARGIN, y: extent.y0 - MARGIN, w: extent.x1 - extent.x0 + 2 * MARGIN, h: extent.y1 - extent.y0 + 2 * MARGIN };
    if (box.w < 240) { box.x -= (240 - box.w) / 2; box.w = 240; }
    if (box.h < 150) { box.y -= (150 - box.h) / 2; box.h = 150; }
  }
  box = drawLegend(canvas.group(), nodes, edges, box);
  setAttrs(bgRect, { x: box.x, y: box.y, width: box.w, height: box.h, fill: '#ffffff' });
  if (!logical) {
    const d = countryPaths(frame.projection, box).join('');
    if (d) setAttrs(land.path(), { d, fill: 'rgba(0,0,0,0.06)', stroke: 'rgba(0,0,0,0.28)', 'stroke-width': 0.6, 'stroke-linejoin': 'round' });
  }
  const px = (v: number | undefined, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(Math.max(v, 16), 10_000) : fallback);
  setAttrs(canvas, {
    width: fmt(px(options.width, Math.ceil(box.w))), height: fmt(px(options.height, Math.ceil(box.h))),
    viewBox: `${fmt(box.x)} ${fmt(box.y)} ${fmt(box.w)} ${fmt(box.h)}`,
    'font-family': 'Helvetica, Arial, sans-serif', role: 'img', 'aria-label': title,
  });
  return serialize(canvas.node as unknown as DomLike, { root: true, inner });
}
