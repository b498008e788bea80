// The legend of a map or dataset picture: a row per layer (its colour and
// width), under a layer coloured by a field a row per value (edge-colors.ts),
// and one row for the capacities its circuits carry, each drawn at the width
// capacity.ts gives it, with the capacity and its unit, side by side (a row
// each made the legend cover markers of a small picture). Sized in px at
// text scale k (picture units per px on screen), like the labels.
import type { G } from '@svgdotjs/svg.js';
import { capacityWidth, formatCapacity, parseCapacity } from './capacity.ts';
import { setAttrs } from './svg-canvas.ts';
import type { LayerStyle } from './svg-draw.ts';
import { textWidth } from './text-width.ts';
import type { Topology } from './types.ts';

export const LEGEND_ROW = 18, LEGEND_PAD = 8;
const FONT_PX = 11, SAMPLE = 20, INDENT = 12;
/** Capacities shown at most: the smallest, the largest and evenly between. */
const MAX_CAPACITY_ROWS = 4;
/** The widest sample stroke, so a row stays a row. */
const MAX_SAMPLE_WIDTH = LEGEND_ROW - 4;

interface Entry { text: string; color: string; width: number }
/** A row: one entry (a layer, a value), or the capacities' entries side by side. */
export interface LegendRow { entries: Entry[]; indent: boolean; capacity?: true }
const one = (text: string, color: string, width: number, indent = false): LegendRow => ({ entries: [{ text, color, width }], indent });

const MAX_CHARS = 48;
/** A value or name as a row shows it: a long one cut (by characters) with an ellipsis. */
const cut = (s: string) => { const c = Array.from(s); return c.length <= MAX_CHARS ? s : `${c.slice(0, MAX_CHARS - 1).join('').trimEnd()}…`; };

/** The rows for these layers (in order) and the capacities their circuits carry. */
export function legendRows(layers: readonly { topology: Topology; style: LayerStyle }[]): LegendRow[] {
  const rows: LegendRow[] = [];
  const capacities = new Map<string, { gbps: number; width: number }>();
  layers.forEach(({ topology, style }, i) => {
    const coloring = style.edgeColors;
    const name = style.name || `Layer ${i + 1}`;
    rows.push(one(cut(coloring ? `${name} by ${coloring.field}` : name), style.color, Math.min(Math.max(style.edgeWidth, 2), 6)));
    if (coloring) {
      for (const [value, color] of coloring.colors) rows.push(one(cut(value), color, 3, true));
      if (coloring.others) rows.push(one('other values', style.color, 3, true));
    }
    for (const e of topology.edges) {
      const gbps = parseCapacity(e.meta.capacity);
      if (gbps === null) continue;
      const key = formatCapacity(gbps);
      if (!capacities.has(key)) capacities.set(key, { gbps, width: capacityWidth(gbps, style.edgeWidth) });
    }
  });
  const caps = [...capacities].sort((a, b) => a[1].gbps - b[1].gbps);
  const picked = caps.length <= MAX_CAPACITY_ROWS ? caps
    : [...new Set(Array.from({ length: MAX_CAPACITY_ROWS }, (_, i) => Math.round((i * (caps.length - 1)) / (MAX_CAPACITY_ROWS - 1))))].map((i) => caps[i]);
  if (picked.length > 0) rows.push({ entries: picked.map(([text, c]) => ({ text, color: '#555555', width: Math.min(c.width, MAX_SAMPLE_WIDTH) })), indent: false, capacity: true });
  return rows;
}

/** An entry's width in px: its sample, a gap, its text; entries of a row are GAP apart. */
const entryW = (e: Entry) => SAMPLE + 8 + textWidth(e.text, FONT_PX);
const GAP = 12;
const rowW = (r: LegendRow) => (r.indent ? INDENT : 0) + r.entries.reduce((w, e, i) => w + entryW(e) + (i > 0 ? GAP : 0), 0);

export const legendSize = (rows: readonly LegendRow[], k: number) => ({
  w: (LEGEND_PAD * 2 + Math.max(0, ...rows.map(rowW))) * k,
  h: (LEGEND_PAD * 2 + LEGEND_ROW * rows.length) * k,
});

/** The legend at (x, y): under the content (fitted pictures), or over a corner of the view clear of markers, else under it (picture-fit.ts). */
export function drawLegend(parent: G, rows: readonly LegendRow[], at: { x: number; y: number }, k: number): void {
  const { w, h } = legendSize(rows, k);
  const { x, y } = at;
  // Made sized (then set): svg.js measures an unsized rect or line through svgdom (a third of a small map's legend time).
  setAttrs(parent.rect(0, 0), { x, y, width: w, height: h, rx: 4 * k, fill: '#ffffff', 'fill-opacity': 0.9, stroke: '#999999', 'stroke-width': 0.8 * k });
  rows.forEach((r, i) => {
    const cy = y + (LEGEND_PAD + LEGEND_ROW * i + LEGEND_ROW / 2) * k;
    let x0 = x + (LEGEND_PAD + (r.indent ? INDENT : 0)) * k;
    for (const e of r.entries) {
      setAttrs(parent.line(0, 0, 0, 0), { x1: x0, y1: cy, x2: x0 + SAMPLE * k, y2: cy, stroke: e.color, 'stroke-width': e.width * k });
      setAttrs(parent.plain(e.text), { x: x0 + (SAMPLE + 8) * k, y: cy, dy: '0.35em', 'font-size': FONT_PX * k, fill: '#222222' });
      x0 += (entryW(e) + GAP) * k;
    }
  });
}

/** The most of a picture's area a legend may take. */
const MAX_SHARE = 1 / 6;

/** The legends to try, largest first: every row, then without the capacities, then the layers' rows only. */
export function legendChoices(rows: readonly LegendRow[]): LegendRow[][] {
  const out: LegendRow[][] = [];
  for (const keep of [(_: LegendRow) => true, (r: LegendRow) => !r.capacity, (r: LegendRow) => !r.capacity && !r.indent]) {
    const choice = rows.filter(keep);
    if (choice.length > 0 && !out.some((c) => c.length === choice.length)) out.push(choice);
  }
  return out;
}

/** Whether a legend of size `legend` takes at most a sixth of the picture `box`. */
export const legendFits = (legend: { w: number; h: number }, box: { w: number; h: number }) => legend.w * legend.h <= MAX_SHARE * box.w * box.h;
