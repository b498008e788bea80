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
  /** Lines saying when the traffic was measured, the map version and the source. */
  footer: string[];
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
    // The box the text and its halo cover (a little over the font size: ascenders and descenders).
    const w = textWidth(r.text, RATE_PX) * k + 2 * k, h = size * 1.3 + 2 * k;
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

/**
 * Draws the banner, legend and footer; answers the picture's box. A fitted
 * picture grows: the banner over it, the legend and footer in a strip under
 * it. A picture framed by its viewport keeps its frame (pages size an `<img>`
 * of it to that aspect): the legend and footer go in a box in its lower
 * right corner, the banner over its top.
 */
export function drawTrafficFrame(parent: G, box: Box, k: number, frame: TrafficFrame, inside: boolean): { box: Box; panel: Rect } {
  const list = entries(frame.bands);
  const cell = (Math.max(...list.map((e) => textWidth(e.text, TEXT_PX))) + SWATCH + PAD * 2) * k;
  const footerW = Math.max(...frame.footer.map((l) => textWidth(l, TEXT_PX))) * k + 2 * PAD * k;
  const perRow = inside ? Math.max(2, Math.ceil(footerW / cell)) : Math.max(1, Math.floor((box.w - PAD * k) / cell));
  const rows = Math.ceil(list.length / perRow);
  const legendH = (rows * ROW + PAD) * k;
  const footerH = (frame.footer.length * ROW + PAD / 2) * k;
  const bannerH = frame.banner ? (ROW + PAD) * k : 0;
  const panelW = inside ? Math.max(perRow * cell + PAD * k, footerW) : Math.max(box.w, footerW);
  const x0 = inside ? box.x + box.w - panelW - PAD * k : box.x;
  const y0 = inside ? box.y + box.h - legendH - footerH - PAD * k : box.y + box.h;
  const top = inside ? box.y : box.y - bannerH;
  // Opaque: circuits running off a viewport's frame, or under the corner, must not cross the legend.
  setAttrs(parent.rect(), { class: 'traffic-legend-box', x: x0, y: y0, width: panelW, height: legendH + footerH, fill: '#ffffff', 'fill-opacity': 0.92, ...(inside ? { rx: 4 * k, stroke: '#999999', 'stroke-width': 0.8 * k } : {}) });
  const legend = setAttrs(parent.group(), { class: 'traffic-legend', 'font-size': TEXT_PX * k, fill: '#222222' }) as G;
  list.forEach((e, i) => {
    const x = x0 + PAD * k + (i % perRow) * cell, y = y0 + (PAD / 2 + Math.floor(i / perRow) * ROW + ROW / 2) * k;
    setAttrs(legend.line(), { x1: x, y1: y, x2: x + (SWATCH - 6) * k, y2: y, stroke: e.color, 'stroke-width': 4 * k, ...(e.dash ? { 'stroke-dasharray': e.dash.split(' ').map((n) => Number(n) * k).join(' ') } : {}) });
    setAttrs(legend.plain(e.text), { x: x + SWATCH * k, y, dy: '0.35em' });
  });
  frame.footer.forEach((line, i) => {
    setAttrs(legend.plain(line), { class: 'traffic-footer', x: x0 + PAD * k, y: y0 + legendH + (i * ROW + ROW / 2) * k, dy: '0.35em', fill: '#444444' });
  });
  if (frame.banner) {
    setAttrs(parent.rect(), { class: 'traffic-banner', x: box.x, y: top, width: box.w, height: bannerH, fill: '#fff3cd', stroke: '#c09100', 'stroke-width': k });
    setAttrs(parent.plain(frame.banner), { x: box.x + PAD * k, y: top + bannerH / 2, dy: '0.35em', 'font-size': TEXT_PX * k, fill: '#5c4400' });
  }
  const panel = { x0: x0, y0: y0, x1: x0 + panelW, y1: y0 + legendH + footerH };
  if (inside) return { box, panel };
  return { box: { x: box.x, y: top, w: panelW, h: box.h + bannerH + legendH + footerH }, panel };
}
