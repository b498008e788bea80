// What a picture with live traffic adds around the map (docs/traffic.md:
// Pictures): the rate labels of the half-edges where they overlap nothing,
// a banner over the top when a source could not be read (naming why), and
// under the map a legend of the colour bands and of every state, then a
// footer saying when the traffic was measured, the map version and the
// source. The picture's box grows to hold them.
import type { G } from '@svgdotjs/svg.js';
import { BoxIndex, type Rect } from './box-index.ts';
import type { Box } from './countries.ts';
import { setAttrs } from './svg-canvas.ts';
import { textWidth } from './text-width.ts';
import type { RateLabel } from './traffic-edges.ts';
import { STATE_COLORS, type Band } from './traffic-scale.ts';

export interface TrafficFrame {
  bands: readonly Band[];
  /** "Traffic at 2026-11-28 20:00 UTC · map version 3 · source main". */
  footer: string;
  /** Why the traffic could not be read; absent when it was. */
  banner?: string;
}

const RATE_PX = 9, TEXT_PX = 11, ROW = 18, PAD = 8, SWATCH = 22;

/** Rate labels in the order asked, each only where it overlaps no marker, node label or rate label placed before it. */
export function drawRateLabels(parent: G, rates: readonly RateLabel[], taken: readonly Rect[], k: number): void {
  const index = new BoxIndex(32 * k);
  for (const r of taken) index.add(r);
  const size = RATE_PX * k;
  for (const r of rates) {
    const w = textWidth(r.text, RATE_PX) * k + 2 * k, h = size + 2 * k;
    const box = { x0: r.x - w / 2, y0: r.y - h / 2, x1: r.x + w / 2, y1: r.y + h / 2 };
    if (index.blocked(box)) continue;
    index.add(box);
    setAttrs(parent.plain(r.text), { x: r.x, y: r.y, dy: '0.35em', 'text-anchor': 'middle', 'font-size': size });
  }
}

interface Entry { color: string; dash?: string; text: string }

function entries(bands: readonly Band[]): Entry[] {
  let from = 0;
  const out: Entry[] = bands.map((b) => {
    const e = { color: b.color, text: `${from}–${b.upTo} %` };
    from = b.upTo;
    return e;
  });
  out.push({ color: STATE_COLORS.over, text: 'over 100 %' }, { color: STATE_COLORS.unknown, text: 'rate, capacity unknown' },
    { color: '#777777', dash: '1 3', text: 'stale' }, { color: STATE_COLORS.down, dash: '2 3', text: 'interface down ✕' },
    { color: STATE_COLORS.nodata, dash: '4 3', text: 'no data' });
  return out;
}

/** Draws the banner, legend and footer around `box`; answers the grown box. */
export function drawTrafficFrame(parent: G, box: Box, k: number, frame: TrafficFrame): Box {
  const list = entries(frame.bands);
  const cell = (Math.max(...list.map((e) => textWidth(e.text, TEXT_PX))) + SWATCH + PAD * 2) * k;
  const perRow = Math.max(1, Math.floor((box.w - PAD * k) / cell));
  const rows = Math.ceil(list.length / perRow);
  const legendH = (rows * ROW + PAD) * k;
  const footerH = (ROW + PAD / 2) * k;
  const bannerH = frame.banner ? (ROW + PAD) * k : 0;
  const top = box.y - bannerH, bottom = box.y + box.h;
  // An opaque strip: circuits running off a viewport's frame must not cross the legend.
  setAttrs(parent.rect(), { x: box.x, y: bottom, width: Math.max(box.w, 1), height: legendH + footerH, fill: '#ffffff', 'fill-opacity': 0.95 });
  const legend = setAttrs(parent.group(), { class: 'traffic-legend', 'font-size': TEXT_PX * k, fill: '#222222' }) as G;
  list.forEach((e, i) => {
    const x = box.x + PAD * k + (i % perRow) * cell, y = bottom + (PAD / 2 + Math.floor(i / perRow) * ROW + ROW / 2) * k;
    setAttrs(legend.line(), { x1: x, y1: y, x2: x + (SWATCH - 6) * k, y2: y, stroke: e.color, 'stroke-width': 4 * k, ...(e.dash ? { 'stroke-dasharray': e.dash.split(' ').map((n) => Number(n) * k).join(' ') } : {}) });
    setAttrs(legend.plain(e.text), { x: x + SWATCH * k, y, dy: '0.35em' });
  });
  setAttrs(parent.plain(frame.footer), { class: 'traffic-footer', x: box.x + PAD * k, y: bottom + legendH + footerH / 2, dy: '0.35em', 'font-size': TEXT_PX * k, fill: '#444444' });
  if (frame.banner) {
    setAttrs(parent.rect(), { class: 'traffic-banner', x: box.x, y: top, width: box.w, height: bannerH, fill: '#fff3cd', stroke: '#c09100', 'stroke-width': k });
    setAttrs(parent.plain(frame.banner), { x: box.x + PAD * k, y: top + bannerH / 2, dy: '0.35em', 'font-size': TEXT_PX * k, fill: '#5c4400' });
  }
  const w = Math.max(box.w, textWidth(frame.footer, TEXT_PX) * k + 2 * PAD * k, frame.banner ? textWidth(frame.banner, TEXT_PX) * k + 2 * PAD * k : 0);
  return { x: box.x, y: top, w, h: box.h + bannerH + legendH + footerH };
}
