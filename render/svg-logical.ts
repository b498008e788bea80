// Logical layers in a picture: they get a frame of their own (projection.ts
// logicalFrame: their small lat/lng box drawn linearly at the layout's own
// scale), never the geography's. A logical layout's box lies near 0,0, so on
// the map's Mercator frame it would land on West Africa; in a map that also
// has geographic layers, the logical ones are drawn in a panel beside the
// geography instead (to its right, top-aligned), over which no land shows.
// Groups with a cluster box are drawn as clusters (svg-clusters.ts). Layers
// laid out as one diagram (render/logical-union.ts) draw a router or cluster
// they share once.
import type { G } from '@svgdotjs/svg.js';
import { union } from './box-index.ts';
import type { Box } from './countries.ts';
import { logicalFrame, type Frame } from './projection.ts';
import { setAttrs } from './svg-canvas.ts';
import { clusterBounds, drawClusters, withoutClusters, type ClusterBoxes } from './svg-clusters.ts';
import { drawScene, emptyExtent, type DrawTarget, type Extent, type LayerStyle, type Scene } from './svg-draw.ts';
import type { LatLng, Topology } from './types.ts';

/** Space between the geography and the logical panel, and around a panel's content. */
const GAP = 24;
const PAD = 24;

type Layer = { topology: Topology; style: LayerStyle };

const size = (v: unknown, d: number) => {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 400) : d;
};

function pointsOf(layers: Layer[]): LatLng[] {
  return layers.flatMap(({ topology: t }) => [
    ...t.nodes.flatMap((n) => [n.coordinate, ...(clusterBounds(n) ?? [])]),
    ...t.edges.flatMap((e) => e.coordinates),
  ]);
}

/** Where nodes, edges and clusters fall in `frame`, before anything is drawn (labels are not counted: they go to the right). */
function contentExtent(layers: Layer[], frame: Frame): Extent {
  const e = emptyExtent();
  const grow = (x0: number, y0: number, x1: number, y1: number) => {
    if (![x0, y0, x1, y1].every(Number.isFinite)) return;
    e.x0 = Math.min(e.x0, x0); e.y0 = Math.min(e.y0, y0); e.x1 = Math.max(e.x1, x1); e.y1 = Math.max(e.y1, y1);
  };
  for (const { topology: t } of layers) {
    for (const n of t.nodes) {
      const bounds = clusterBounds(n);
      if (bounds) {
        const [x0, y0] = frame.project([bounds[1][0], bounds[0][1]]), [x1, y1] = frame.project([bounds[0][0], bounds[1][1]]);
        grow(x0, y0, x1, y1);
        continue;
      }
      const [x, y] = frame.project(n.coordinate);
      // Half a node's outline lies outside its box (the default pill's is 1.5 px wide): 1 px more each side.
      const w = size(n.meta.computed_width, 10) / 2 + 1, h = size(n.meta.computed_height, 10) / 2 + 1;
      grow(x - w, y - h, x + w, y + h);
    }
    for (const ed of t.edges) for (const c of ed.coordinates) { const [x, y] = frame.project(c); grow(x, y, x, y); }
  }
  return e;
}

/**
 * Whether the layers place every node and cluster they share at one place (one layout of their union): then a
 * shared one is one marker. Layers laid out apart (a topology from elsewhere) keep a marker each.
 */
function oneDiagram(layers: Layer[]): boolean {
  if (layers.length < 2) return false;
  const at = new Map<string, string>();
  let common = 0;
  for (const { topology: t } of layers) {
    for (const n of t.nodes) {
      const key = `${n.children ? 'g' : 'n'}:${n.name}`;
      const here = JSON.stringify([n.coordinate, clusterBounds(n)]);
      const there = at.get(key);
      if (there === undefined) at.set(key, here);
      else if (there !== here) return false;
      else common++;
    }
  }
  return common > 0;
}

/**
 * Draws the logical layers, beside `geography` (the geographic part's box,
 * labels included) when there is one, and answers the box they take (null
 * when nothing was drawn), their clusters' boxes and titles (which labels
 * must keep clear of), and their scene (markers and label requests, placed
 * with the rest of the picture's labels by picture-fit.ts).
 */
export function drawLogicalLayers(layers: Layer[], geography: Box | null, target: DrawTarget, titles: G, look: { dark: boolean; panel: string }): {
  box: Box | null; clusters: ClusterBoxes; scene: Scene | null;
} {
  const clusters: ClusterBoxes = { boxes: [], titles: [] };
  if (layers.length === 0) return { box: null, clusters, scene: null };
  const points = pointsOf(layers);
  // One frame for all logical layers (they share the lat/lng box, as on a client's map), at the largest scale among them.
  const scales = layers.map((l) => Number(l.topology.pathLayout?.pixelsPerDegree)).filter((k) => Number.isFinite(k) && k > 0);
  const scale = scales.length > 0 ? Math.max(...scales) : undefined;
  let frame = logicalFrame(points, scale);
  let panel: G | undefined;
  if (geography) {
    // The frame at [0, 0] puts the points' north-west corner there; shift it so the content's (node boxes included) lands inside the panel.
    const e = contentExtent(layers, frame);
    const left = geography.x + geography.w + GAP + PAD, top = geography.y + PAD;
    frame = logicalFrame(points, scale, [left - (Number.isFinite(e.x0) ? e.x0 : 0), top - (Number.isFinite(e.y0) ? e.y0 : 0)]);
    panel = target.groups.group() as G;
  }
  const extent = emptyExtent();
  // Layers laid out together (render/logical-union.ts) are one diagram: a router or cluster they share is drawn once.
  const shared = oneDiagram(layers) ? {} : undefined;
  const drawnClusters = new Set<string>();
  for (const l of layers) {
    const t = shared ? { ...l.topology, nodes: l.topology.nodes.filter((n) => !(clusterBounds(n) && drawnClusters.has(n.name))) } : l.topology;
    for (const n of t.nodes) if (clusterBounds(n)) drawnClusters.add(n.name);
    const drawn = drawClusters(t, frame, { boxes: target.groups, titles }, { color: l.style.color, dark: look.dark }, extent);
    clusters.boxes.push(...drawn.boxes);
    clusters.titles.push(...drawn.titles);
  }
  const scene = drawScene(layers.map((l) => ({ topology: withoutClusters(l.topology), style: l.style, target, namespace: shared })), frame);
  const all = union(extent, scene.extent);
  if (!Number.isFinite(all.x0)) return { box: null, clusters, scene };
  const box = { x: all.x0 - PAD, y: all.y0 - PAD, w: all.x1 - all.x0 + 2 * PAD, h: all.y1 - all.y0 + 2 * PAD };
  if (panel) {
    setAttrs(panel.rect(), { x: box.x, y: box.y, width: box.w, height: box.h, rx: 6, fill: look.panel, stroke: look.dark ? '#777777' : '#b0b0b0', 'stroke-width': 1 });
  }
  return { box, clusters, scene };
}
