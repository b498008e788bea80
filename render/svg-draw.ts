// Draws one layer's topology into svg.js groups: group nodes (faint,
// behind), edges in the layer's colour and width (curved per pathLayout,
// parallel circuits apart via their offset midpoints, self-circuits as
// loops), nodes from their sanitized template markup, and name labels beside
// nodes whose template has no text of its own. Edges and nodes, thousands of
// them, are written as sanitized markup (elementMarkup) that the serializer
// places as their group's content. Grows the drawn extent so the picture can
// be sized to include every label.
import type { G } from '@svgdotjs/svg.js';
import type { Topology, TopologyNode } from './types.ts';
import type { Frame } from './projection.ts';
import { edgeD, type Pt } from './paths.ts';
import { setAttrs, fmt } from './svg-canvas.ts';
import { safeMarkup } from '../svg-safety/safe-markup.ts';
import { elementMarkup, escapeText } from '../svg-safety/sanitize.ts';
import { estimateTextWidth } from '../svg-safety/template.ts';
import { text } from './topology.ts';

export interface LayerStyle {
  name: string;
  color: string;
  edgeWidth: number;
  logical: boolean;
}

export interface Extent {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export const emptyExtent = (): Extent => ({ x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity });
const grow = (e: Extent, x0: number, y0: number, x1: number, y1: number) => {
  if (x0 < e.x0) e.x0 = x0;
  if (y0 < e.y0) e.y0 = y0;
  if (x1 > e.x1) e.x1 = x1;
  if (y1 > e.y1) e.y1 = y1;
};

/** Labels are drawn up to this many nodes per layer; beyond it they would only be clutter. */
const MAX_LABELS = 400;
const LABEL_PX = 11;
/** Characters of a name a label shows; the node's `<title>` keeps the whole name. */
const MAX_LABEL_CHARS = 48;

/** A name as its label shows it: a long one cut (by characters, not UTF-16 halves) with an ellipsis, so it cannot make the picture thousands of pixels wide. */
function labelText(name: string): string {
  if (name.length <= MAX_LABEL_CHARS) return name;
  const chars = Array.from(name);
  return chars.length <= MAX_LABEL_CHARS ? name : `${chars.slice(0, MAX_LABEL_CHARS - 1).join('').trimEnd()}…`;
}

export interface DrawTarget {
  groups: G;
  edges: G;
  nodes: G;
  labels: G;
  /** Element -> sanitized content the serializer writes as its children (see sanitize.ts `inner`). */
  inner: WeakMap<object, string>;
}

const size = (n: TopologyNode, k: string, d: number) => {
  const v = Number(n.meta[k]);
  return Number.isFinite(v) && v > 0 ? Math.min(v, 400) : d;
};
const valid = (p: Pt) => Number.isFinite(p[0]) && Number.isFinite(p[1]);

/**
 * A node: a group at its position holding its title and template markup.
 * (An svgdom element per node or edge was most of a picture's time and
 * garbage with thousands of them; markup strings cost a fraction.)
 */
const nodeMarkup = (n: TopologyNode, at: Pt) =>
  elementMarkup('g', { transform: `translate(${fmt(at[0])},${fmt(at[1])})` },
    elementMarkup('title', {}, escapeText(n.name)) + safeMarkup(n.meta.svg));

export function drawLayer(t: Topology, style: LayerStyle, frame: Frame, target: DrawTarget, extent: Extent): void {
  const nodeAt = new Map<TopologyNode, Pt>();
  for (const n of t.nodes) {
    const p = frame.project(n.coordinate);
    if (valid(p)) nodeAt.set(n, p);
  }
  // Group nodes first and faint, as Terranova draws them, so members stay readable.
  // Node colour is set once per layer and inherited: fill and `color` (templates may use currentColor).
  const nodeStyle = { fill: style.color, color: style.color, stroke: '#1a1a1a', 'stroke-width': 1 };
  const groupMarkup: string[] = [];
  for (const [n, p] of nodeAt) if (n.children) groupMarkup.push(nodeMarkup(n, p));
  target.inner.set(setAttrs(target.groups.group(), { opacity: 0.45, ...nodeStyle }).node, groupMarkup.join(''));
  const edgeMarkup: string[] = [];
  const pathType = String(t.pathLayout?.type ?? 'curveCardinal');
  const tension = typeof t.pathLayout?.tension === 'number' ? t.pathLayout.tension : undefined;
  for (const e of t.edges) {
    const { at, lines } = frame.line(e.coordinates);
    if (at.length < 2) continue;
    // The picture grows to where the points are, not to where a line across the world's edge runs off it.
    for (const p of at) grow(extent, p[0], p[1], p[0], p[1]);
    const cap = text(e.meta.capacity);
    const title = elementMarkup('title', {}, escapeText(cap ? `${e.name} (${cap})` : e.name));
    for (const pts of lines) {
      edgeMarkup.push(elementMarkup('path', { d: edgeD(pts, pathType, tension, Number(e.meta.parallel_index ?? 0) || 0) }, title));
    }
  }
  const edgeLayer = setAttrs(target.edges.group(), { stroke: style.color, 'stroke-width': style.edgeWidth, fill: 'none', 'stroke-linecap': 'round', 'stroke-opacity': 0.9 });
  target.inner.set(edgeLayer.node, edgeMarkup.join(''));
  const leaves = [...nodeAt].filter(([n]) => !n.children);
  const label = leaves.length <= MAX_LABELS;
  const leafMarkup: string[] = [];
  for (const [n, p] of leaves) {
    const w = size(n, 'computed_width', 10), h = size(n, 'computed_height', 10);
    grow(extent, p[0] - w / 2, p[1] - h / 2, p[0] + w / 2, p[1] + h / 2);
    leafMarkup.push(nodeMarkup(n, p));
    if (!label || String(n.meta.svg ?? '').includes('<text')) continue;
    const x = p[0] + w / 2 + 4;
    const shown = labelText(n.name);
    const tw = estimateTextWidth(shown, LABEL_PX);
    setAttrs(target.labels.plain(shown), { x, y: p[1], dy: '0.35em' });
    grow(extent, x, p[1] - LABEL_PX, x + tw, p[1] + LABEL_PX);
  }
  target.inner.set(setAttrs(target.nodes.group(), nodeStyle).node, leafMarkup.join(''));
}
