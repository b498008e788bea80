// Draws one layer's topology into svg.js groups: group nodes (faint, behind),
// edges in the layer's colour and width (curved per pathLayout, parallel
// circuits apart via their offset midpoints, self-circuits as loops), nodes
// from their sanitized template markup, and name labels beside nodes whose
// template has no text of its own. Returns the drawn extent so the picture
// can be sized to include every label.
import type { G } from '@svgdotjs/svg.js';
import type { Topology, TopologyNode } from './types.ts';
import type { Frame } from './projection.ts';
import { edgeD, type Pt } from './paths.ts';
import { setAttrs, fmt } from './svg-canvas.ts';
import { safeMarkup } from './safe-markup.ts';
import { SVG_NS, escapeText } from './sanitize.ts';
import { estimateTextWidth } from './template.ts';
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
export const MAX_LABELS = 400;
const LABEL_PX = 11;

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
 * Appends children in runs of 250 per <g>: svgdom's appendChild scans the
 * child list (indexOf), so one group with thousands of children is quadratic.
 */
function appender(parent: Element): (child: Element) => void {
  let current: Element | null = null;
  let n = 0;
  return (child) => {
    if (!current || n === 250) {
      current = parent.ownerDocument.createElementNS(SVG_NS, 'g');
      parent.appendChild(current);
      n = 0;
    }
    current.appendChild(child);
    n++;
  };
}

const document0 = (t: DrawTarget) => (t.nodes.node as unknown as Element).ownerDocument;

function drawNode(append: (el: Element) => void, n: TopologyNode, at: Pt, target: DrawTarget): void {
  const g = document0(target).createElementNS(SVG_NS, 'g');
  g.setAttribute('transform', `translate(${fmt(at[0])},${fmt(at[1])})`);
  append(g);
  // Title and template markup are written by the serializer as the group's content, already
  // escaped/sanitized: thousands of nodes then cost one svgdom element each.
  target.inner.set(g, `<title>${escapeText(n.name)}</title>${safeMarkup(n.meta.svg)}`);
}

export function drawLayer(t: Topology, style: LayerStyle, frame: Frame, target: DrawTarget, extent: Extent): void {
  const nodeAt = new Map<TopologyNode, Pt>();
  for (const n of t.nodes) {
    const p = frame.project(n.coordinate);
    if (valid(p)) nodeAt.set(n, p);
  }
  // Group nodes first and faint, as Terranova draws them, so members stay readable.
  // Node colour is set once per layer and inherited: fill and `color` (templates may use currentColor).
  const nodeStyle = { fill: style.color, color: style.color, stroke: '#1a1a1a', 'stroke-width': 1 };
  const faint = setAttrs(target.groups.group(), { opacity: 0.45, ...nodeStyle }).node as unknown as Element;
  const addGroup = appender(faint);
  const appendGroup = (n: TopologyNode, p: Pt) => drawNode(addGroup, n, p, target);
  for (const [n, p] of nodeAt) {
    if (!n.children) continue;
    appendGroup(n, p);
  }
  const edgeLayer = setAttrs(target.edges.group(), { stroke: style.color, 'stroke-width': style.edgeWidth, fill: 'none', 'stroke-linecap': 'round', 'stroke-opacity': 0.9 }) as G;
  const edgeNode = edgeLayer.node as unknown as Element;
  const doc = edgeNode.ownerDocument;
  const addEdge = appender(edgeNode);
  const pathType = String(t.pathLayout?.type ?? 'curveCardinal');
  const tension = typeof t.pathLayout?.tension === 'number' ? t.pathLayout.tension : undefined;
  for (const e of t.edges) {
    const pts = e.coordinates.map((c) => frame.project(c)).filter(valid);
    if (pts.length < 2) continue;
    for (const p of pts) grow(extent, p[0], p[1], p[0], p[1]);
    // Thousands of edges: plain DOM calls on svgdom nodes here, svg.js for the structure around them.
    const path = doc.createElementNS(SVG_NS, 'path');
    path.setAttribute('d', edgeD(pts, pathType, tension, Number(e.meta.parallel_index ?? 0) || 0));
    const cap = text(e.meta.capacity);
    target.inner.set(path, `<title>${escapeText(cap ? `${e.name} (${cap})` : e.name)}</title>`);
    addEdge(path);
  }
  const leaves = [...nodeAt].filter(([n]) => !n.children);
  const label = leaves.length <= MAX_LABELS;
  const addNode = appender(setAttrs(target.nodes.group(), nodeStyle).node as unknown as Element);
  for (const [n, p] of leaves) {
    const w = size(n, 'computed_width', 10), h = size(n, 'computed_height', 10);
    grow(extent, p[0] - w / 2, p[1] - h / 2, p[0] + w / 2, p[1] + h / 2);
    drawNode(addNode, n, p, target);
    if (!label || String(n.meta.svg ?? '').includes('<text')) continue;
    const x = p[0] + w / 2 + 4;
    const tw = estimateTextWidth(n.name, LABEL_PX);
    setAttrs(target.labels.plain(n.name), { x, y: p[1], dy: '0.35em' });
    grow(extent, x, p[1] - LABEL_PX, x + tw, p[1] + LABEL_PX);
  }
}
