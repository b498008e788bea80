// SVG pictures of datasets and maps. Builds the picture with svg.js on
// svgdom - background, country outlines (geographic only), each visible
// layer's edges and nodes (co-located markers spread apart), labels placed
// clear of markers, the legend and each other, legend - sized as asked
// (picture-size.ts) and serialized through the allowlist sanitizer
// (sanitize.ts), which is the only way out.
import type { G } from '@svgdotjs/svg.js';
import type { MapConfiguration, MapLayer } from '../schema/map.ts';
import { COLOR_PATTERN } from '../schema/map.ts';
import type { LatLng, Layout, Topology } from './types.ts';
import { newCanvas, setAttrs, fmt } from './svg-canvas.ts';
import { serialize, type DomLike, type Inner } from '../svg-safety/sanitize.ts';
import { contentFrame, viewportFrame, type Frame } from './projection.ts';
import { landPath, type Box } from './countries.ts';
import { type Rect, union } from './box-index.ts';
import { drawScene, emptyExtent, SPREAD_GAP_PX, type DrawTarget, type LayerStyle, type Scene } from './svg-draw.ts';
import { crowdOf } from './crowding.ts';
import { drawLogicalLayers } from './svg-logical.ts';
import { drawLabels, fitPicture, type Fitted } from './picture-fit.ts';
import { fitAspect, sizeAttributes, textScale, toBox, toRect, type PictureSize } from './picture-size.ts';
import { MIN_TEXT_PX } from './template-text.ts';
import { textWidth } from './text-width.ts';
import { normalizeTopology } from './normalize.ts';
import { drawLegend, LEGEND_PAD, LEGEND_ROW, legendChoices, legendFits, legendRows, legendSize, type LegendRow } from './legend.ts';
import { edgeColoring } from './edge-colors.ts';
import { parseDatasetOutputUrl } from '../schema/output-url.ts';
import { PICTURE_FONT_FAMILY } from './picture-font.ts';
import type { LayerTraffic } from './traffic-edges.ts';
import { drawRateLabels, drawTrafficFrame, type TrafficFrame } from './traffic-frame.ts';

/** Headers every SVG response carries (docs/api.md: Dataset output). */
export const SVG_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'image/svg+xml; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'X-Content-Type-Options': 'nosniff',
});

/** Room around the geographic content before the logical panel (picture-fit.ts keeps its own margin around the whole). */
const MARGIN = 24;

export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

const color = (c: unknown, fallback: string) => (typeof c === 'string' && COLOR_PATTERN.test(c.trim()) ? c.trim() : fallback);

/** Relative luminance of #rgb/#rrggbb (others count as light), to pick land and label colours that read on the background. */
function isDark(c: string): boolean {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(c);
  if (!m) return ['black', 'navy', 'midnightblue', 'darkslategray', 'darkslategrey'].includes(c.toLowerCase());
  const h = m[1].length === 3 ? m[1].replace(/./g, '$&$&') : m[1];
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.45;
}

interface DrawInput {
  title: string;
  layers: { topology: Topology; style: LayerStyle }[];
  background: string;
  showLegend: boolean;
  viewport?: MapConfiguration['viewport'];
  size?: PictureSize;
  /** Live traffic: the legend, footer and banner around the map (traffic-frame.ts). */
  traffic?: TrafficFrame;
  /** Drawn without spreading markers and placing labels: the benchmarks' baseline, the cost those two add. */
  plain?: boolean;
}

/** Room for markers around the content's points when foreseeing a picture's scale. */
const MARKER_ROOM = 20;

/**
 * Picture units per screen px the picture will likely have, before anything
 * is drawn (spreading and template text depend on it): exact for a
 * viewport's frame; for a fitted one, from its content's points with room
 * for markers, picture-fit.ts's margins and labels within MARGIN px of the
 * content, and the legend under it (which grow with the scale itself).
 */
function likelyTextScale(frame: Frame | null, points: readonly LatLng[], size: PictureSize, legendRows: number): number {
  if (!frame || !(size.width || size.height)) return 1;
  // picture-fit.ts takes 2% over the scale a box needs, when it needs more than 1.
  const over = (k: number) => (k > 1 ? k * 1.02 : 1);
  if (frame.fixed) return over(textScale(fitAspect(frame.fixed, size), size));
  let e: Rect = emptyExtent();
  for (const p of points) {
    const [x, y] = frame.project(p);
    if (Number.isFinite(x) && Number.isFinite(y)) e = union(e, { x0: x, y0: y, x1: x, y1: y });
  }
  if (!Number.isFinite(e.x0)) return 1;
  const legendPerK = legendRows > 0 ? LEGEND_PAD * 3 + LEGEND_ROW * legendRows : 0;
  // box = fixed part + k x growing part, seen at `side` px: k = fixed / (side - growing), the growing part kept under half.
  const need = (fixed: number, growing: number, side?: number) => (side ? fixed / Math.max(side - growing, side / 2) : 0);
  return over(Math.max(
    need(Math.max(e.x1 - e.x0 + MARKER_ROOM + 2 * MARGIN, 200), 2 * MARGIN, size.width),
    need(Math.max(e.y1 - e.y0 + MARKER_ROOM + 2 * MARGIN, 150), 2 * MARGIN + legendPerK, size.height)));
}

function compose(input: DrawInput, scale?: number, redrawn = 0): string {
  const bg = input.background;
  const transparent = /^(none|transparent)$/i.test(bg);
  const dark = !transparent && isDark(bg);
  const size = input.size ?? {};
  // Geographic layers share the map's frame; logical ones get a frame of their own (svg-logical.ts), beside it.
  const geographic = input.layers.filter((l) => !l.style.logical);
  const points: LatLng[] = [];
  for (const l of geographic) {
    for (const n of l.topology.nodes) points.push(n.coordinate);
    for (const e of l.topology.edges) for (const c of e.coordinates) points.push(c);
  }
  // A picture of logical layers alone ignores the viewport (a map's view of the world); an empty map keeps it.
  // Crowded content drawn at its natural size gets room for its markers (projection.ts); one of a size asked for is
  // fitted to it whatever its frame's scale.
  const crowd = () => (size.width || size.height ? undefined : crowdOf(geographic.flatMap((l) => l.topology.nodes), SPREAD_GAP_PX));
  const frame = geographic.length > 0 || geographic.length === input.layers.length ? viewportFrame(input.viewport) ?? contentFrame(points, crowd()) : null;

  const canvas = newCanvas();
  const inner = new WeakMap<object, Inner>();
  canvas.element('title').words(input.title);
  // Sized at once: svg.js measures an unsized rect through svgdom (a few ms per picture) to set what is overwritten below.
  const bgRect = canvas.rect(0, 0);
  const land = canvas.group();
  const g = (attrs: Record<string, string | number>) => setAttrs(canvas.group(), attrs) as G;
  // Template text is drawn only where it will be legible at the scale the picture is seen at (template-text.ts).
  const textAt = scale ?? likelyTextScale(frame, points, size, input.showLegend ? legendRows(input.layers).length : 0);
  const target: DrawTarget = { groups: g({}), edges: g({}), nodes: g({}), inner, textScale: textAt, halo: dark ? '#000000' : '#ffffff' };
  const leaders = g({ class: 'leaders', stroke: dark ? '#bbbbbb' : '#666666', fill: 'none' });
  const labels = g({ class: 'labels', fill: dark ? '#f2f2f2' : '#222222', stroke: dark ? '#000000' : '#ffffff', 'stroke-linejoin': 'round', 'paint-order': 'stroke' });
  // Cluster titles go over edges, nodes and labels, with a halo in the background colour.
  const panelFill = transparent ? '#ffffff' : bg;
  const titles = g({ class: 'cluster-titles', stroke: panelFill, 'stroke-width': 3, 'stroke-linejoin': 'round', 'paint-order': 'stroke' });
  // The geographic layers are one network: a router in several of them is one marker that every layer's circuits meet.
  const network = {};
  const geoScene = frame ? drawScene(geographic.map((l) => ({ ...l, target, namespace: network })), frame, !input.plain) : null;

  // The logical panel goes right of the geography, leaving room for the widest label its nodes may take there.
  let geoBox: Box | null = frame?.fixed ? { ...frame.fixed } : null;
  if (!geoBox && geoScene && Number.isFinite(geoScene.extent.x0)) {
    const e = geoScene.extent;
    const room = Math.max(0, ...geoScene.labels.map((l) => textWidth(l.text, 11) + 8));
    geoBox = { x: e.x0 - MARGIN, y: e.y0 - MARGIN, w: e.x1 - e.x0 + 2 * MARGIN + room, h: e.y1 - e.y0 + 2 * MARGIN };
  }
  const logical = drawLogicalLayers(input.layers.filter((l) => l.style.logical), geoBox, target, titles, { dark, panel: panelFill });
  if (logical.clusters.titles.length === 0) titles.remove();
  const merged = mergeScenes(geoScene, logical.scene, logical.box);
  const scene = input.plain ? { ...merged, labels: [] } : merged;

  const fixed = frame?.fixed ? (logical.box ? toBox(union(toRect(frame.fixed), toRect(logical.box))) : frame.fixed) : null;
  // The legend takes at most a sixth of the picture: fewer rows where the whole one would take more, none where even
  // the layers' rows would (legend.ts legendChoices).
  const choices = input.showLegend ? legendChoices(legendRows(input.layers)) : [];
  let rows: LegendRow[] | null = null;
  let fitted!: Fitted;
  for (const choice of [...choices, null]) {
    rows = choice;
    fitted = fitPicture(scene, {
      fixed, size, minW: 200, minH: 150, legend: choice ? (k) => legendSize(choice, k) : null,
      // Labels keep off cluster titles; a member's label may sit inside its cluster's box.
      obstacles: logical.clusters.titles.map(toRect),
    });
    if (!choice || legendFits(legendSize(choice, fitted.k), fitted.box)) break;
  }
  // The picture's scale came out other than foreseen (a logical panel; labels): draw it again at that scale rather than
  // show text under a legible size, leave out text that would have been legible, or spread markers (geographic layers
  // only) closer than 3 px; a third time, with a little room, if that framing came out smaller still.
  const again = scene.textPx / fitted.k < MIN_TEXT_PX || scene.hiddenPx / fitted.k >= MIN_TEXT_PX
    || (geographic.length > 0 && fitted.k > textAt * 1.03);
  if (again && redrawn < 2) return compose(input, fitted.k * (redrawn === 0 ? 1 : 1.05), redrawn + 1);
  drawLabels(leaders, labels, inner, scene, fitted);
  // Cluster titles too small to read at this size are left out, like template text; each cluster's box keeps its name in a <title>.
  for (const title of titles.children()) if (Number(title.attr('font-size')) / fitted.k < MIN_TEXT_PX) title.remove();
  let { box } = fitted;
  if (rows && fitted.legendAt) drawLegend(g({ class: 'legend' }), rows, fitted.legendAt, fitted.k);
  // Land only where the geography is: not under the logical panel.
  const landBox = logical.box && geoScene ? { ...fitted.box, w: Math.max(0, logical.box.x - fitted.box.x) } : fitted.box;
  if (input.traffic) {
    // Rate labels keep off markers, node labels, both legends and the banner; the frame is drawn over them.
    const rates = g({ class: 'traffic-rates', fill: '#111111', stroke: '#ffffff', 'stroke-width': 2.5 * fitted.k, 'paint-order': 'stroke', 'stroke-linejoin': 'round' });
    const framed = drawTrafficFrame(g({ class: 'traffic-frame' }), box, fitted.k, input.traffic, fixed !== null);
    const taken = [...scene.markers, ...fitted.placed.map((p) => p.box), framed.panel];
    if (rows && fitted.legendAt) {
      const { w, h } = legendSize(rows, fitted.k);
      taken.push({ x0: fitted.legendAt.x, y0: fitted.legendAt.y, x1: fitted.legendAt.x + w, y1: fitted.legendAt.y + h });
    }
    if (input.traffic.banner) taken.push({ x0: box.x, y0: framed.box.y, x1: box.x + box.w, y1: framed.box.y + 26 * fitted.k });
    drawRateLabels(rates, scene.rates ?? [], taken, fitted.k);
    box = framed.box;
  }

  if (!transparent) setAttrs(bgRect, { x: box.x, y: box.y, width: box.w, height: box.h, fill: bg });
  else bgRect.remove();
  if (frame) {
    const d = landPath(frame.projection, landBox);
    if (d) setAttrs(land.path(), {
      d, fill: dark ? 'rgba(255,255,255,0.09)' : 'rgba(0,0,0,0.06)',
      stroke: dark ? 'rgba(255,255,255,0.35)' : 'rgba(0,0,0,0.28)', 'stroke-width': 0.6, 'stroke-linejoin': 'round',
    });
  }
  setAttrs(canvas, {
    ...sizeAttributes(box, size), viewBox: `${fmt(box.x)} ${fmt(box.y)} ${fmt(box.w)} ${fmt(box.h)}`,
    'font-family': PICTURE_FONT_FAMILY, role: 'img', 'aria-label': input.title,
  });
  return serialize(canvas.node as unknown as DomLike, { root: true, inner });
}

/** One scene of the geographic and the logical parts (the panel's box counts as drawn, so the picture keeps it whole). */
function mergeScenes(geo: Scene | null, logical: Scene | null, panel: Box | null): Scene {
  const parts = [geo, logical].filter((x): x is Scene => x !== null);
  // One part alone is the scene (its lists hold thousands of markers and circuit pieces, not copied).
  if (parts.length === 1 && !panel) return parts[0];
  const extent = [...parts.map((p) => p.extent), ...(panel ? [toRect(panel)] : [])].reduce(union, emptyExtent());
  return {
    extent,
    markers: parts.flatMap((p) => p.markers),
    labels: parts.flatMap((p) => p.labels),
    lines: parts.flatMap((p) => p.lines),
    textPx: Math.min(Infinity, ...parts.map((p) => p.textPx)),
    hiddenPx: Math.max(0, ...parts.map((p) => p.hiddenPx)),
    rates: parts.flatMap((p) => p.rates ?? []),
  };
}

export interface TopologySvgOptions {
  layout?: Layout;
  color?: string;
  background?: string;
  edgeWidth?: number;
  showLegend?: boolean;
  /** Width and/or height in px (picture-size.ts); none: no fixed size, the picture scales to its container. */
  width?: number;
  height?: number;
  /** Without spreading markers and placing labels (benchmarks: the cost those two add). */
  plain?: boolean;
}

const isLogical = (t: Topology) => t.pathLayout?.type === 'curveLinear';

/** The picture of one dataset topology (dataset output `svg`). */
export function renderTopologySvg(topology: Topology, options: TopologySvgOptions = {}): string {
  const style: LayerStyle = {
    name: topology.name,
    color: color(options.color, PALETTE[0]),
    edgeWidth: Math.min(Math.max(options.edgeWidth ?? 2, 0.5), 20),
    logical: options.layout ? options.layout === 'logical' : isLogical(topology),
  };
  return compose({ title: topology.name || 'Topology', layers: [{ topology, style }], background: color(options.background, '#ffffff'), showLegend: options.showLegend ?? false,
    size: { width: options.width, height: options.height }, plain: options.plain });
}

/** Whether a map's layer is drawn as a logical diagram: its `layout`, else its `mapjsonUrl`'s, else its topology's path layout. */
export function layerLogical(layer: MapLayer, t: Topology): boolean {
  if (layer.layout) return layer.layout === 'logical';
  const fromUrl = layer.mapjsonUrl ? parseDatasetOutputUrl(layer.mapjsonUrl) : null;
  return fromUrl && 'layout' in fromUrl ? fromUrl.layout === 'logical' : isLogical(t);
}

/**
 * The picture of a map: its resolved output (layers carrying `mapjson`), or
 * the configuration plus the topologies resolveMapLayers returned. Hidden
 * layers (`visible: false`) are left out.
 */
export function renderMapSvg(map: { name?: string; configuration?: MapConfiguration }, topologies?: Array<Topology | null>, size: PictureSize = {},
  traffic?: { layers: ReadonlyMap<number, LayerTraffic>; frame: TrafficFrame }, options: { plain?: boolean } = {}): string {
  const cfg: MapConfiguration = map.configuration ?? { layers: [] };
  const layers = (cfg.layers ?? []).flatMap((layer, i) => {
    const t = topologies ? topologies[i] : normalizeTopology(layer.mapjson, layer.name ?? '');
    if (!t || layer.visible === false) return [];
    const style: LayerStyle = {
      name: typeof layer.name === 'string' && layer.name ? layer.name : t.name || `Layer ${i + 1}`,
      color: color(layer.color, PALETTE[i % PALETTE.length]),
      edgeWidth: Math.min(Math.max(Number(layer.edgeWidth ?? 2) || 2, 0.5), 20),
      logical: layerLogical(layer, t),
      edgeColors: typeof layer.edgeColorBy === 'string' && layer.edgeColorBy ? edgeColoring(t, layer.edgeColorBy) : undefined,
      traffic: traffic?.layers.get(i),
    };
    return [{ topology: t, style }];
  });
  return compose({
    title: map.name || 'Map',
    layers,
    background: color(cfg.background, '#ffffff'),
    showLegend: cfg.showLegend === true,
    viewport: cfg.viewport,
    size,
    traffic: traffic?.frame,
    plain: options.plain,
  });
}
