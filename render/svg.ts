// SVG pictures of datasets and maps. Builds the picture with svg.js on
// svgdom - background, country outlines (geographic only), each visible
// layer's edges and nodes, labels, legend - and serializes it through the
// allowlist sanitizer (sanitize.ts), which is the only way out.
import type { G } from '@svgdotjs/svg.js';
import type { MapConfiguration, MapLayer } from '../schema/map.ts';
import { COLOR_PATTERN } from '../schema/map.ts';
import type { Layout, Topology } from './types.ts';
import { newCanvas, setAttrs, fmt } from './svg-canvas.ts';
import { serialize, type DomLike } from './sanitize.ts';
import { contentFrame, viewportFrame } from './projection.ts';
import { countryPaths, type Box } from './countries.ts';
import { drawLayer, emptyExtent, type DrawTarget, type LayerStyle } from './svg-draw.ts';
import { drawLogicalLayers } from './svg-logical.ts';
import { estimateTextWidth } from './template.ts';
import { normalizeTopology } from './normalize.ts';
import { parseDatasetOutputUrl } from './layers.ts';

/** Headers every SVG response carries (docs/api.md: Dataset output). */
export const SVG_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'image/svg+xml; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'X-Content-Type-Options': 'nosniff',
});

export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const MARGIN = 24;
const FONT = 'Helvetica, Arial, sans-serif';

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
}

function compose(input: DrawInput): string {
  const bg = input.background;
  const transparent = /^(none|transparent)$/i.test(bg);
  const dark = !transparent && isDark(bg);
  // Geographic layers share the map's frame; logical ones get a frame of their own (svg-logical.ts), beside it.
  const geographic = input.layers.filter((l) => !l.style.logical);
  const points = geographic.flatMap((l) => [...l.topology.nodes.map((n) => n.coordinate), ...l.topology.edges.flatMap((e) => e.coordinates)]);
  const frame = geographic.length > 0 ? viewportFrame(input.viewport) ?? contentFrame(points) : null;

  const canvas = newCanvas();
  const inner = new WeakMap<object, string>();
  canvas.element('title').words(input.title);
  const bgRect = canvas.rect();
  const land = canvas.group();
  const g = (attrs: Record<string, string | number>) => setAttrs(canvas.group(), attrs) as G;
  const target: DrawTarget = {
    groups: g({}), edges: g({}), nodes: g({}),
    labels: g({ 'font-size': 11, fill: dark ? '#f2f2f2' : '#222222', stroke: dark ? '#000000' : '#ffffff', 'stroke-width': 3, 'stroke-linejoin': 'round', 'paint-order': 'stroke' }),
    inner,
  };
  const extent = emptyExtent();
  for (const l of geographic) drawLayer(l.topology, l.style, frame!, target, extent);

  let box: Box | null = null;
  if (frame?.fixed) box = { ...frame.fixed };
  else if (Number.isFinite(extent.x0)) box = { x: extent.x0 - MARGIN, y: extent.y0 - MARGIN, w: extent.x1 - extent.x0 + 2 * MARGIN, h: extent.y1 - extent.y0 + 2 * MARGIN };
  const geoBox = box && { ...box };
  // Cluster boxes and titles (picture pixels): obstacles for label placement.
  const logical = drawLogicalLayers(input.layers.filter((l) => l.style.logical), geoBox, target, { dark, panel: transparent ? '#ffffff' : bg });
  if (logical.box) box = box ? union(box, logical.box) : logical.box;
  if (!box) box = { x: 0, y: 0, w: 400, h: 300 };
  else if (!frame?.fixed) {
    if (box.w < 200) { box.x -= (200 - box.w) / 2; box.w = 200; }
    if (box.h < 150) { box.y -= (150 - box.h) / 2; box.h = 150; }
  }
  if (input.showLegend && input.layers.length > 0) box = drawLegend(canvas.group(), input.layers.map((l) => l.style), box, !frame?.fixed);

  if (!transparent) setAttrs(bgRect, { x: box.x, y: box.y, width: box.w, height: box.h, fill: bg });
  else bgRect.remove();
  if (frame && geoBox) {
    const d = countryPaths(frame.projection, geoBox).join('');
    if (d) setAttrs(land.path(), {
      d, fill: dark ? 'rgba(255,255,255,0.09)' : 'rgba(0,0,0,0.06)',
      stroke: dark ? 'rgba(255,255,255,0.35)' : 'rgba(0,0,0,0.28)', 'stroke-width': 0.6, 'stroke-linejoin': 'round',
    });
  }
  setAttrs(canvas, {
    width: Math.ceil(box.w), height: Math.ceil(box.h), viewBox: `${fmt(box.x)} ${fmt(box.y)} ${fmt(box.w)} ${fmt(box.h)}`,
    'font-family': FONT, role: 'img', 'aria-label': input.title,
  });
  return serialize(canvas.node as unknown as DomLike, { root: true, inner });
}

const union = (a: Box, b: Box): Box => {
  const x = Math.min(a.x, b.x), y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
};

/** A legend of layers under the content (fitted pictures) or over its bottom-left corner (viewport pictures). */
function drawLegend(parent: G, styles: LayerStyle[], box: Box, extend: boolean): Box {
  const row = 18, pad = 8;
  const w = pad * 2 + 28 + Math.max(...styles.map((s) => estimateTextWidth(s.name || 'Layer', 11)));
  const h = pad * 2 + row * styles.length;
  const out = extend ? { ...box, h: box.h + h + 8 } : box;
  const x = box.x + 8, y = out.y + out.h - h - 8;
  setAttrs(parent.rect(), { x, y, width: w, height: h, rx: 4, fill: '#ffffff', 'fill-opacity': 0.9, stroke: '#999999', 'stroke-width': 0.8 });
  styles.forEach((s, i) => {
    const cy = y + pad + row * i + row / 2;
    setAttrs(parent.line(), { x1: x + pad, y1: cy, x2: x + pad + 20, y2: cy, stroke: s.color, 'stroke-width': Math.min(Math.max(s.edgeWidth, 2), 6) });
    setAttrs(parent.plain(s.name || `Layer ${i + 1}`), { x: x + pad + 28, y: cy, dy: '0.35em', 'font-size': 11, fill: '#222222' });
  });
  return out;
}

export interface TopologySvgOptions {
  layout?: Layout;
  color?: string;
  background?: string;
  edgeWidth?: number;
  showLegend?: boolean;
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
  return compose({ title: topology.name || 'Topology', layers: [{ topology, style }], background: color(options.background, '#ffffff'), showLegend: options.showLegend ?? false });
}

function layerLogical(layer: MapLayer, t: Topology): boolean {
  if (layer.layout) return layer.layout === 'logical';
  const fromUrl = layer.mapjsonUrl ? parseDatasetOutputUrl(layer.mapjsonUrl) : null;
  return fromUrl && 'layout' in fromUrl ? fromUrl.layout === 'logical' : isLogical(t);
}

/**
 * The picture of a map: its resolved output (layers carrying `mapjson`), or
 * the configuration plus the topologies resolveMapLayers returned. Hidden
 * layers (`visible: false`) are left out.
 */
export function renderMapSvg(map: { name?: string; configuration?: MapConfiguration }, topologies?: Array<Topology | null>): string {
  const cfg: MapConfiguration = map.configuration ?? { layers: [] };
  const layers = (cfg.layers ?? []).flatMap((layer, i) => {
    const t = topologies ? topologies[i] : normalizeTopology(layer.mapjson, layer.name ?? '');
    if (!t || layer.visible === false) return [];
    const style: LayerStyle = {
      name: typeof layer.name === 'string' && layer.name ? layer.name : t.name || `Layer ${i + 1}`,
      color: color(layer.color, PALETTE[i % PALETTE.length]),
      edgeWidth: Math.min(Math.max(Number(layer.edgeWidth ?? 2) || 2, 0.5), 20),
      logical: layerLogical(layer, t),
    };
    return [{ topology: t, style }];
  });
  return compose({
    title: map.name || 'Map',
    layers,
    background: color(cfg.background, '#ffffff'),
    showLegend: cfg.showLegend === true,
    viewport: cfg.viewport,
  });
}
