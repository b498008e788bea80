// Draws the layers of a picture into svg.js groups: group nodes (faint,
// behind), edges in the layer's colour and width (curved per pathLayout,
// parallel circuits apart via their offset midpoints, self-circuits as
// loops), and nodes from their sanitized template markup, less the text
// that would not be legible at the picture's scale (template-text.ts; group
// markers keep no text: their members are named around them). Nodes of
// geographic layers whose markers would overlap are spread apart first
// (spread.ts), across all layers; a spread node gets a thin line to a dot at
// its true position, and its circuits follow it, parallel ones kept visibly
// apart however close their ends are. Edges and nodes, thousands of them, are
// written as sanitized markup (elementMarkup) that the serializer places as
// their group's content. Answers what label placement needs: every marker's
// box where it is drawn and a label request for each node whose drawing
// shows no text of its own; and the drawn extent, so the picture can be sized.
import type { G } from '@svgdotjs/svg.js';
import type { Topology, TopologyEdge, TopologyNode } from './types.ts';
import type { Frame } from './projection.ts';
import { BoxIndex, type Rect } from './box-index.ts';
import type { LabelRequest } from './labels.ts';
import { edgeD, type Pt } from './paths.ts';
import { setAttrs, fmt } from './svg-canvas.ts';
import { safeMarkup } from '../svg-safety/safe-markup.ts';
import { elementMarkup, escapeText, type Inner } from '../svg-safety/sanitize.ts';
import { text } from './topology.ts';
import { dataBox, markerBox, shiftText, textOutside, withoutText } from './marker-box.ts';
import { shownMarkup } from './template-text.ts';
import { spreadMarkers } from './spread.ts';
import { follow } from './follow.ts';
import { capacityWidth, formatCapacity, parseCapacity } from './capacity.ts';
import { edgeValue, type EdgeColoring } from './edge-colors.ts';
import { halfEdgeMarkup, type LayerTraffic, type RateLabel } from './traffic-edges.ts';

export interface LayerStyle {
  name: string;
  color: string;
  edgeWidth: number;
  logical: boolean;
  /** Circuits coloured by a field's values (a layer's `edgeColorBy`); none: all in `color`. */
  edgeColors?: EdgeColoring;
  /** Live traffic of the layer's circuits: those it holds are drawn as half-edges (traffic-edges.ts). */
  traffic?: LayerTraffic;
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

/** Characters of a name a label shows; the node's `<title>` keeps the whole name. */
const MAX_LABEL_CHARS = 48;
/** A spread node farther than this from its true position gets a line back to it. */
const ANCHOR_AFTER_PX = 1;
const ANCHOR_R = 2;
/** Clear space between spread markers, in px on screen. */
export const SPREAD_GAP_PX = 3;

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
  /** Element -> sanitized content the serializer writes as its children (see sanitize.ts `inner`). */
  inner: WeakMap<object, Inner>;
  /** Picture units per px on screen (default 1): template text smaller than MIN_TEXT_PX on screen is left out. */
  textScale?: number;
  /** Halo colour of template text that sets no stroke (the labels' halo; default white). */
  halo?: string;
}

export interface SceneLayer {
  topology: Topology;
  style: LayerStyle;
  target: DrawTarget;
  /**
   * Layers sharing a namespace are one network: a node name is drawn once (by the first layer that has it, one
   * marker at one place, spread once) and every layer's circuits resolve their ends by name among all their
   * nodes (a map's geographic layers; the diff picture's statuses). Default: the layer alone.
   */
  namespace?: object;
}

export interface Scene {
  extent: Extent;
  /** Every leaf node's box where it is drawn, and the dots at spread nodes' true positions. */
  markers: Rect[];
  labels: LabelRequest[];
  /** The drawn circuits as straight pieces between their points, for labels to keep off where they can. */
  lines: [number, number, number, number][];
  /** The smallest font size of the template text drawn, in picture units (Infinity when none). */
  textPx: number;
  /** The largest font size of the template text left out as too small at `DrawTarget.textScale` (0 when none). */
  hiddenPx: number;
  /** Rate labels the half-edges of live traffic ask for. */
  rates?: RateLabel[];
}

const valid = (p: Pt) => Number.isFinite(p[0]) && Number.isFinite(p[1]);

/**
 * A node: a group at its position holding its title and template markup.
 * (An svgdom element per node or edge was most of a picture's time and
 * garbage with thousands of them; markup strings cost a fraction.)
 */
const nodeMarkup = (n: TopologyNode, at: Pt, markup: string) =>
  elementMarkup('g', { transform: `translate(${fmt(at[0])},${fmt(at[1])})` },
    elementMarkup('title', {}, escapeText(n.name)) + markup);

interface Placed { node: TopologyNode; at: Pt; shown: Pt; box: Rect; markup: string; text: boolean; said: string }

const at = (b: Rect, [x, y]: Pt): Rect => ({ x0: x + b.x0, y0: y + b.y0, x1: x + b.x1, y1: y + b.y1 });
/**
 * Whether a node is drawn away from its true position: moved more than ANCHOR_AFTER_PX, and so far that the dot at
 * its true position is not hidden under its own marker, which is drawn over it (a crowd's markers nudged apart a
 * few px): the dot lies outside the circle inscribed in the marker's data-width x data-height box.
 */
const moved = (p: Placed) => {
  const away = Math.hypot(p.shown[0] - p.at[0], p.shown[1] - p.at[1]);
  if (away <= ANCHOR_AFTER_PX) return false;
  const { w, h } = dataBox(p.node);
  return away + ANCHOR_R > Math.min(w, h) / 2;
};
const ANCHOR_BOX: Rect = { x0: -ANCHOR_R, y0: -ANCHOR_R, x1: ANCHOR_R, y1: ANCHOR_R };

const endNames = (e: TopologyEdge) => (e.meta.endpoint_identifiers?.names ?? []).map((n) => String(n));

/** Squared distance from a node's true position to `q` (Infinity without the node). */
const fromAt = (p: Placed | undefined, q: Pt) => (p ? (p.at[0] - q[0]) ** 2 + (p.at[1] - q[1]) ** 2 : Infinity);
/**
 * How far a circuit's end moves: as its node was spread, or, drawn in one piece (`end` its point), onto its marker
 * (which may be another layer's node of that name, whose coordinates that layer's data gives a little otherwise).
 */
const move = (p: Placed | undefined, end: Pt | null): Pt => {
  const from = end ?? p?.at;
  // Most ends do not move: one shared zero rather than a new pair for each of thousands of circuits.
  return p && from && (p.shown[0] !== from[0] || p.shown[1] !== from[1]) ? [p.shown[0] - from[0], p.shown[1] - from[1]] : STILL;
};
const STILL: Pt = [0, 0];

/** The circuits drawn, as segments to ask about, when some marker's template writes text beside it; else null. */
function circuitIndex(pieces: Scene['lines'], placed: readonly Placed[]): BoxIndex | null {
  const beside = (p: Placed) => { const { w, h } = dataBox(p.node); return textOutside(p.markup, w, h).length > 0; };
  if (!placed.some((p) => p.text && beside(p))) return null;
  const index = new BoxIndex(64);
  for (const [ax, ay, bx, by] of pieces) index.addSegment(ax, ay, bx, by);
  return index;
}

/**
 * A node's drawing with its template text that a circuit crosses moved to the other side of the node (a caption
 * under a badge put over it) where no circuit or other marker is, else taken out and said by a label instead; its
 * box and what the label says. Null when no circuit crosses its text.
 */
function crossedText(p: Placed, circuits: BoxIndex, others: BoxIndex): { placed: Pick<Placed, 'markup' | 'box' | 'said' | 'text'>; labelled: boolean } | null {
  const { w, h } = dataBox(p.node);
  const crossed = textOutside(p.markup, w, h).filter((part) => circuits.blocked(at(part.box, p.shown)));
  if (crossed.length === 0) return null;
  let markup = p.markup;
  const taken: typeof crossed = [];
  // From the last in the markup: moving one leaves the places of those before it as they were.
  for (const part of crossed.sort((a, b) => b.from - a.from)) {
    const mirrored = at({ x0: part.box.x0, y0: -part.box.y1, x1: part.box.x1, y1: -part.box.y0 }, p.shown);
    const moved = circuits.blocked(mirrored) || others.blocked(mirrored) ? null : shiftText(markup, part, -(part.box.y0 + part.box.y1));
    if (moved) { markup = moved; others.add(mirrored); } else taken.push(part);
  }
  if (taken.length > 0) markup = withoutText(markup, taken);
  const said = [...taken.reverse().map((c) => c.text), p.said].filter(Boolean).join(' ');
  return { placed: { markup, box: markerBox(markup, w, h), said, text: markup.includes('<text') }, labelled: taken.length > 0 };
}

/** Draws every layer; spreads overlapping geographic markers across layers first. */
export function drawScene(layers: readonly SceneLayer[], frame: Frame, spread = true): Scene {
  const extent = emptyExtent();
  let textPx = Infinity, hiddenPx = 0;
  // Names drawn so far per namespace: a router in two layers of a map is one marker (the first layer's).
  // Leaves and groups apart: one layer's site group may bear the name another layer gives a router.
  const drawn = new Map<object, Set<string>>();
  // Project every node; leaves get the markup they show and its box.
  const perLayer = layers.map((l) => {
    const scale = l.target.textScale ?? 1;
    const placed: Placed[] = [];
    const groupNodes: [TopologyNode, Pt][] = [];
    const ns = l.namespace ?? l;
    let seen = drawn.get(ns);
    if (!seen) drawn.set(ns, (seen = new Set()));
    for (const n of l.topology.nodes) {
      const p = frame.project(n.coordinate);
      const key = `${n.children ? 'g' : 'n'}:${n.name}`;
      if (!valid(p) || seen.has(key)) continue;
      seen.add(key);
      if (n.children) { groupNodes.push([n, p]); continue; }
      const shown = shownMarkup(safeMarkup(n.meta.svg), scale, true, l.target.halo);
      textPx = Math.min(textPx, shown.minPx);
      hiddenPx = Math.max(hiddenPx, shown.hiddenPx);
      const box = markerBox(shown.markup, dataBox(n).w, dataBox(n).h);
      placed.push({ node: n, at: p, shown: p, box, markup: shown.markup, text: shown.text, said: shown.hiddenText });
    }
    return { placed, groupNodes };
  });
  const spreadable = perLayer.flatMap((p, i) => (layers[i].style.logical ? [] : p.placed));
  // 3 px apart on screen: in a picture drawn smaller than its viewBox, that many more picture units.
  const shown = spread ? spreadMarkers(spreadable.map((p) => ({ at: p.at, box: p.box })), SPREAD_GAP_PX * (layers[0]?.target.textScale ?? 1))
    : spreadable.map((p) => p.at);
  spreadable.forEach((p, i) => { p.shown = shown[i]; });
  // Where leaf markers and the dots at spread ones' true positions are: a group marker is drawn only clear of them.
  // Filed when first asked (group markers, template text across circuits): a picture of routers alone never asks.
  let leafIndex: BoxIndex | null = null;
  const leaves = () => {
    if (leafIndex) return leafIndex;
    leafIndex = new BoxIndex(32);
    for (const p of perLayer.flatMap((x) => x.placed)) {
      leafIndex.add(at(p.box, p.shown));
      if (moved(p)) leafIndex.add(at(ANCHOR_BOX, p.at));
    }
    return leafIndex;
  };

  // Circuit ends by name, per namespace.
  const byName = new Map<object, Map<string, Placed>>();
  layers.forEach((l, i) => {
    const ns = l.namespace ?? l;
    let names = byName.get(ns);
    if (!names) byName.set(ns, (names = new Map()));
    for (const p of perLayer[i].placed) if (!names.has(p.node.name)) names.set(p.node.name, p);
  });

  // Label priority counts every circuit at a node, whichever layer of its namespace draws it.
  const degree = new Map<object, Map<string, number>>(), capacity = new Map<object, Map<string, number>>();
  for (const l of layers) {
    const ns = l.namespace ?? l;
    const deg = degree.get(ns) ?? new Map<string, number>(), cap = capacity.get(ns) ?? new Map<string, number>();
    degree.set(ns, deg);
    capacity.set(ns, cap);
    for (const e of l.topology.edges) {
      const c = parseCapacity(e.meta.capacity);
      const [a, b] = endNames(e);
      for (const name of a === b || b === undefined ? [a] : [a, b]) {
        if (name === undefined) continue;
        deg.set(name, (deg.get(name) ?? 0) + 1);
        if (c !== null) cap.set(name, (cap.get(name) ?? 0) + c);
      }
    }
  }

  // Thousands of circuits share a few capacities: each written once.
  const capacityTexts = new Map<number, string>();
  const capacityText = (gbps: number) => {
    let said = capacityTexts.get(gbps);
    if (said === undefined) capacityTexts.set(gbps, (said = formatCapacity(gbps)));
    return said;
  };
  const markers: Rect[] = [];
  const labels: LabelRequest[] = [];
  const pieces: Scene['lines'] = [];
  const rates: RateLabel[] = [];
  layers.forEach((l, li) => {
    const { topology: t, style, target } = l;
    const { groupNodes } = perLayer[li];
    const ns = l.namespace ?? l;
    const names = byName.get(ns)!;
    // Group nodes first and faint, as Terranova draws them, so members stay readable; only where no other marker is.
    // Node colour is set once per layer and inherited: fill and `color` (templates may use currentColor).
    const nodeStyle = { fill: style.color, color: style.color, stroke: '#1a1a1a', 'stroke-width': 1 };
    // A group moves with its members, by their mean move.
    const groupAt = ([n, p]: [TopologyNode, Pt]): Pt => {
      const moves = (n.children ?? []).flatMap((c) => { const m = names.get(c); return m ? [[m.shown[0] - m.at[0], m.shown[1] - m.at[1]]] : []; });
      if (moves.length === 0) return p;
      return [p[0] + moves.reduce((a, m) => a + m[0], 0) / moves.length, p[1] + moves.reduce((a, m) => a + m[1], 0) / moves.length];
    };
    // They show their template's shapes, not its text: their members and labels surround them (docs/render.md).
    const groupMarkup: string[] = [];
    for (const g of groupNodes) {
      const markup = shownMarkup(safeMarkup(g[0].meta.svg), 1, false).markup;
      const p = groupAt(g);
      const box = at(markerBox(markup, dataBox(g[0]).w, dataBox(g[0]).h), p);
      // Under or among its members (a site whose routers were spread around it) it would only be a nameless ghost.
      if (leaves().blocked(box)) continue;
      leaves().add(box);
      markers.push(box);
      grow(extent, box.x0, box.y0, box.x1, box.y1);
      groupMarkup.push(nodeMarkup(g[0], p, markup));
    }
    target.inner.set(setAttrs(target.groups.group(), { class: 'group-nodes', opacity: 0.45, ...nodeStyle }).node, groupMarkup);

    const edgeMarkup: string[] = [];
    const pathType = String(t.pathLayout?.type ?? 'curveCardinal');
    const tension = typeof t.pathLayout?.tension === 'number' ? t.pathLayout.tension : undefined;
    const coloring = style.edgeColors;
    for (const e of t.edges) {
      const ends = endNames(e);
      // Wider with more capacity (capacity.ts); parallel circuits kept apart by their own width.
      const gbps = parseCapacity(e.meta.capacity);
      const width = capacityWidth(gbps, style.edgeWidth);
      const minApart = Math.max(6, 2.5 * width);
      const { at, lines } = frame.line(e.coordinates);
      if (at.length < 2) continue;
      // The picture grows to where the points are, not to where a line across the world's edge runs off it.
      for (const p of at) grow(extent, p[0], p[1], p[0], p[1]);
      let drawn = lines;
      if (!style.logical) {
        // Ends in data order; the circuit's first point is at its first end unless the data says otherwise.
        let a = names.get(ends[0]), b = names.get(ends[1] ?? ends[0]);
        if (fromAt(a, at[0]) > fromAt(b, at[0])) [a, b] = [b, a];
        const one = lines.length === 1 ? lines[0] : null;
        // Each piece of a circuit across the world's edge moves alike: its ends are the same nodes a world apart.
        drawn = lines.map((pts) => follow(pts, move(a, one?.[0] ?? null), move(b, one?.[one.length - 1] ?? null), e, minApart));
        if (lines.length === 1) for (const p of drawn[0]) grow(extent, p[0], p[1], p[0], p[1]);
      }
      // The tooltip says the capacity with its unit (as written when it names none we read) and the coloured field's value.
      const value = coloring ? edgeValue(e.meta, coloring.field) : '';
      const colour = value ? coloring?.colors.get(value) : undefined;
      const said = gbps !== null ? capacityText(gbps) : text(e.meta.capacity), colored = value ? `${coloring?.field}: ${value}` : '';
      const facts = said && colored ? `${said}, ${colored}` : said || colored;
      const title = elementMarkup('title', {}, escapeText(facts ? `${e.name} (${facts})` : e.name));
      const look = { ...(width !== style.edgeWidth ? { 'stroke-width': fmt(width) } : {}), ...(colour ? { stroke: colour } : {}) };
      const traffic = style.traffic?.circuits.get(e.name);
      for (const pts of drawn) {
        for (let i = 1; i < pts.length; i++) pieces.push([pts[i - 1][0], pts[i - 1][1], pts[i][0], pts[i][1]]);
        if (traffic && style.traffic) {
          // Which end the points start at: the one nearer its first point (the ends in data order are A, Z).
          const [pa, pz] = [names.get(ends[0])?.shown, names.get(ends[1] ?? ends[0])?.shown];
          const d = (p: Pt | undefined) => (p ? (p[0] - pts[0][0]) ** 2 + (p[1] - pts[0][1]) ** 2 : Infinity);
          const half = halfEdgeMarkup(e.name, pts, d(pa) <= d(pz), traffic, style.traffic.bands, width);
          edgeMarkup.push(half.markup);
          rates.push(...half.labels);
          continue;
        }
        edgeMarkup.push(elementMarkup('path', { d: edgeD(pts, pathType, tension, Number(e.meta.parallel_index ?? 0) || 0), ...look }, title));
      }
    }
    const edgeLayer = setAttrs(target.edges.group(), { stroke: style.color, 'stroke-width': style.edgeWidth, fill: 'none', 'stroke-linecap': 'round', 'stroke-opacity': 0.9 });
    target.inner.set(edgeLayer.node, edgeMarkup);
  });

  // Template text beside a marker (a site's name under its badge) that a circuit runs under is taken out of the
  // template and said by a placed label instead, which keeps off circuits where it can (template text is an obstacle).
  const crossing = circuitIndex(pieces, perLayer.flatMap((x) => x.placed));
  layers.forEach((l, li) => {
    const { style, target } = l;
    const { placed } = perLayer[li];
    const ns = l.namespace ?? l;
    const nodeStyle = { fill: style.color, color: style.color, stroke: '#1a1a1a', 'stroke-width': 1 };
    const anchorMarkup: string[] = [];
    const leafMarkup: string[] = [];
    for (const p of placed) {
      const [x, y] = p.shown;
      const crossed = crossing ? crossedText(p, crossing, leaves()) : null;
      if (crossed) Object.assign(p, crossed.placed);
      const box = { x0: x + p.box.x0, y0: y + p.box.y0, x1: x + p.box.x1, y1: y + p.box.y1 };
      grow(extent, box.x0, box.y0, box.x1, box.y1);
      markers.push(box);
      if (moved(p)) {
        anchorMarkup.push(elementMarkup('line', { x1: fmt(p.at[0]), y1: fmt(p.at[1]), x2: fmt(x), y2: fmt(y) }),
          elementMarkup('circle', { cx: fmt(p.at[0]), cy: fmt(p.at[1]), r: String(ANCHOR_R), stroke: 'none' }));
        markers.push({ x0: p.at[0] - ANCHOR_R, y0: p.at[1] - ANCHOR_R, x1: p.at[0] + ANCHOR_R, y1: p.at[1] + ANCHOR_R });
        pieces.push([p.at[0], p.at[1], x, y]);
        grow(extent, p.at[0] - ANCHOR_R, p.at[1] - ANCHOR_R, p.at[0] + ANCHOR_R, p.at[1] + ANCHOR_R);
      }
      leafMarkup.push(nodeMarkup(p.node, p.shown, p.markup));
      if (p.text && !crossed?.labelled) continue;
      const name = p.node.name;
      // One labelling scheme at every size: a node whose template's text is too small to show here, or lies across a
      // circuit, is labelled with that text.
      labels.push({ text: labelText(p.said || name), marker: box, degree: degree.get(ns)?.get(name) ?? 0, capacity: capacity.get(ns)?.get(name) ?? 0, name });
    }
    if (anchorMarkup.length > 0) {
      const anchors = setAttrs(target.nodes.group(), { class: 'anchors', fill: style.color, stroke: '#555555', 'stroke-width': 0.8, 'stroke-opacity': 0.8 });
      target.inner.set(anchors.node, anchorMarkup);
    }
    target.inner.set(setAttrs(target.nodes.group(), { class: 'nodes', ...nodeStyle }).node, leafMarkup);
  });
  return { extent, markers, labels, lines: pieces, textPx, hiddenPx, rates };
}
