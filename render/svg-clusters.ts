// Groups of a logical layout drawn as clusters, as Graphviz draws subgraph
// clusters: a box around the group's members with the group's name at its
// top-left. The box is the group's `meta.cluster` ([[south, west], [north,
// east]], written by logical-layout.ts, which also left room for the title
// above the members). A group without a usable box (geographic layouts,
// topologies from elsewhere) is drawn as before, by its template.
import type { G } from '@svgdotjs/svg.js';
import { segmentCrosses } from './box-index.ts';
import type { Box } from './countries.ts';
import { CLUSTER_PAD, CLUSTER_TITLE_PX, clusterTitle } from './logical-graph.ts';
import type { Pt } from './paths.ts';
import type { Frame } from './projection.ts';
import { setAttrs } from './svg-canvas.ts';
import type { Extent } from './svg-draw.ts';
import { textWidth } from './text-width.ts';
import type { LatLng, Topology, TopologyNode } from './types.ts';

/** What the clusters cover, in picture pixels: obstacles a label must not cover. */
export interface ClusterBoxes {
  /** Each cluster's box. */
  boxes: Box[];
  /** Each cluster's title. */
  titles: Box[];
}

const corner = (v: unknown): LatLng | null =>
  Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as LatLng) : null;

/** A group's cluster box as [[south, west], [north, east]], or null when it has none (or a malformed one). */
export function clusterBounds(n: TopologyNode): [LatLng, LatLng] | null {
  if (!n.children) return null;
  const c = n.meta.cluster;
  if (!Array.isArray(c) || c.length !== 2) return null;
  const sw = corner(c[0]), ne = corner(c[1]);
  return sw && ne && sw[0] <= ne[0] && sw[1] <= ne[1] ? [sw, ne] : null;
}

/**
 * The title's box in the band above the members: at the left, else at the
 * right, else centred, whichever no edge passes through (edges enter a
 * cluster through that band); at the left when every place is crossed.
 */
function placeTitle(box: Box, width: number, routes: Pt[][]): Box {
  const y = box.y + 3, h = CLUSTER_TITLE_PX + 4, pad = CLUSTER_PAD.side / 2;
  const xs = [box.x + pad, box.x + box.w - pad - width, box.x + (box.w - width) / 2].filter((x) => x >= box.x + pad - 0.5);
  const free = xs.find((x) => !routes.some((pts) => pts.some((p, i) => i > 0 && segmentCrosses([pts[i - 1][0], pts[i - 1][1], p[0], p[1]], { x0: x, y0: y, x1: x + width, y1: y + h }))));
  return { x: free ?? box.x + pad, y, w: width, h };
}

/** The topology without the groups drawn as clusters (drawScene then draws only the rest). */
export function withoutClusters(t: Topology): Topology {
  return t.nodes.some((n) => clusterBounds(n)) ? { ...t, nodes: t.nodes.filter((n) => !clusterBounds(n)) } : t;
}

/**
 * Draws the clusters of `t`: boxes into `parent` (behind edges and nodes;
 * outermost first, so nested boxes stay visible), titles into `titles` (a
 * group over the edges, with a halo, so an edge entering the cluster under
 * its title leaves it readable). Grows `extent` to them and answers their
 * boxes and titles.
 */
export function drawClusters(t: Topology, frame: Frame, parent: { boxes: G; titles: G }, style: { color: string; dark: boolean }, extent: Extent): ClusterBoxes {
  const found: { name: string; box: Box }[] = [];
  for (const n of t.nodes) {
    const bounds = clusterBounds(n);
    if (!bounds) continue;
    const [[south, west], [north, east]] = bounds;
    const [x0, y0] = frame.project([north, west]), [x1, y1] = frame.project([south, east]);
    if (![x0, y0, x1, y1].every(Number.isFinite)) continue;
    found.push({ name: n.name, box: { x: Math.min(x0, x1), y: Math.min(y0, y1), w: Math.abs(x1 - x0), h: Math.abs(y1 - y0) } });
  }
  found.sort((a, b) => b.box.w * b.box.h - a.box.w * a.box.h);
  const out: ClusterBoxes = { boxes: [], titles: [] };
  if (found.length === 0) return out;
  const routes = t.edges.map((e) => e.coordinates.map((c) => frame.project(c)));
  const g = setAttrs(parent.boxes.group(), { class: 'clusters' }) as G;
  for (const { name, box } of found) {
    const title = clusterTitle(name);
    const titleBox = placeTitle(box, textWidth(title, CLUSTER_TITLE_PX), routes);
    const cluster = setAttrs(g.group(), {}) as G;
    cluster.element('title').words(name);
    setAttrs(cluster.rect(), {
      x: box.x, y: box.y, width: box.w, height: box.h, rx: 4,
      fill: style.color, 'fill-opacity': 0.06, stroke: style.color, 'stroke-opacity': 0.55, 'stroke-width': 1,
    });
    setAttrs(parent.titles.plain(title), {
      x: titleBox.x, y: titleBox.y + titleBox.h / 2, dy: '0.35em', 'font-size': CLUSTER_TITLE_PX,
      fill: style.dark ? '#e8e8e8' : '#333333',
    });
    out.boxes.push(box);
    out.titles.push(titleBox);
    extent.x0 = Math.min(extent.x0, box.x);
    extent.y0 = Math.min(extent.y0, box.y);
    extent.x1 = Math.max(extent.x1, box.x + box.w, titleBox.x + titleBox.w);
    extent.y1 = Math.max(extent.y1, box.y + box.h);
  }
  return out;
}
