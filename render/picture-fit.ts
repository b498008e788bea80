// Frames a drawn scene and its labels: places the labels (labels.ts) at the
// font size the picture will be seen at, sizes the picture box around what
// was drawn (or takes a viewport's fixed box), makes room for a legend, and
// widens the box to a requested aspect ratio. When the requested size draws
// the picture smaller than its box, labels get a larger font in picture
// units so they stay 11 px on screen, and fewer fit; since labels and legend
// change the box, that is repeated until the scale holds. Over a fixed view
// the legend takes a corner no marker is in, else goes under the view.
import type { G } from '@svgdotjs/svg.js';
import { type Rect, union } from './box-index.ts';
import type { Box } from './countries.ts';
import { placeLabels, type PlacedLabel } from './labels.ts';
import { fitAspect, textScale, toRect, type PictureSize } from './picture-size.ts';
import type { Scene } from './svg-draw.ts';
import { elementMarkup, escapeText, type Inner } from '../svg-safety/sanitize.ts';
import { fmt, setAttrs } from './svg-canvas.ts';

/** Label font size in px as seen. */
const LABEL_PX = 11;
const MARGIN = 24;
const MAX_ROUNDS = 6;

export interface FitOptions {
  /** A viewport's fixed box, or null to fit the box to what was drawn. */
  fixed: Box | null;
  size: PictureSize;
  /** Smallest box of a fitted picture. */
  minW: number;
  minH: number;
  /** The legend's size at text scale k (picture units per px), or null for none. */
  legend: ((k: number) => { w: number; h: number }) | null;
  /** More boxes no label may cover (cluster boxes and their titles...). */
  obstacles?: readonly Rect[];
}

export interface Fitted {
  box: Box;
  /** Picture units per px of text: labels are LABEL_PX * k in the picture. */
  k: number;
  placed: PlacedLabel[];
  /** Where the legend's top-left corner goes. */
  legendAt: { x: number; y: number } | null;
}

export function fitPicture(scene: Scene, o: FitOptions): Fitted {
  // A fixed view widened to the requested aspect first: its legend and label bounds are the picture's.
  const fixed = o.fixed ? fitAspect(o.fixed, o.size) : null;
  let k = 1;
  let out: Fitted | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const legend = o.legend ? o.legend(k) : null;
    const obstacles: Rect[] = [...scene.markers, ...(o.obstacles ?? [])];
    // Over a fixed view the legend takes the first corner clear of markers (lower left first), else goes under the view; labels keep off it.
    let legendAt = fixed && legend ? clearCorner(fixed, legend, 8 * k, scene.markers) : null;
    const under = Boolean(fixed && legend && !legendAt);
    if (fixed && legend && !legendAt) legendAt = { x: fixed.x + 8 * k, y: fixed.y + fixed.h };
    if (legendAt && legend) obstacles.push({ x0: legendAt.x, y0: legendAt.y, x1: legendAt.x + legend.w, y1: legendAt.y + legend.h });
    // A fitted picture prefers labels within its content, which keeps its scale; one asked for at a
    // size keeps them there (else each label placed outside would shrink the drawing, and grow the next labels).
    const { x0, y0, x1, y1 } = scene.extent;
    const sized = Boolean(o.size.width || o.size.height);
    const m = sized ? MARGIN * k : MARGIN / 2;
    const content = fixed ? null : { x0: x0 - m, y0: y0 - m, x1: x1 + m, y1: y1 + m };
    const placed = placeLabels(scene.labels, {
      fontPx: LABEL_PX * k, obstacles, bounds: fixed ? toRect(fixed) : sized ? content : null, prefer: sized ? null : content, avoid: scene.lines,
    });
    let box: Box;
    if (fixed) box = under && legend ? { ...fixed, h: fixed.h + legend.h + 8 * k } : { ...fixed };
    else {
      let e: Rect = { x0: scene.extent.x0, y0: scene.extent.y0, x1: scene.extent.x1, y1: scene.extent.y1 };
      for (const p of placed) e = union(e, p.box);
      if (!Number.isFinite(e.x0)) box = { x: 0, y: 0, w: 400, h: 300 };
      else {
        box = { x: e.x0 - MARGIN, y: e.y0 - MARGIN, w: e.x1 - e.x0 + 2 * MARGIN, h: e.y1 - e.y0 + 2 * MARGIN };
        if (box.w < o.minW) { box.x -= (o.minW - box.w) / 2; box.w = o.minW; }
        if (box.h < o.minH) { box.y -= (o.minH - box.h) / 2; box.h = o.minH; }
      }
      // Under the content, so it covers nothing.
      if (legend) {
        legendAt = { x: box.x + 8 * k, y: box.y + box.h };
        box.h += legend.h + 8 * k;
      }
    }
    box = fitAspect(box, o.size);
    out = { box, k, placed, legendAt };
    const need = textScale(box, o.size);
    if (need <= k) break;
    k = need * 1.02;
  }
  return out!;
}

/** The top-left corner of `legend` in the first corner of `view` (lower left, lower right, upper left, upper right), `inset` in, that covers no marker. */
function clearCorner(view: Box, legend: { w: number; h: number }, inset: number, markers: readonly Rect[]): { x: number; y: number } | null {
  const left = view.x + inset, right = view.x + view.w - inset - legend.w;
  const top = view.y + inset, bottom = view.y + view.h - inset - legend.h;
  for (const [x, y] of [[left, bottom], [right, bottom], [left, top], [right, top]]) {
    const r: Rect = { x0: x, y0: y, x1: x + legend.w, y1: y + legend.h };
    if (!markers.some((m) => m.x0 < r.x1 && r.x0 < m.x1 && m.y0 < r.y1 && r.y0 < m.y1)) return { x, y };
  }
  return null;
}

/** Writes placed labels (and their leader lines) as sanitized markup into their groups. */
export function drawLabels(leaders: G, labels: G, inner: WeakMap<object, Inner>, scene: Scene, fitted: Fitted): void {
  const k = fitted.k;
  setAttrs(labels, { 'font-size': LABEL_PX * k, 'stroke-width': 3 * k });
  setAttrs(leaders, { 'stroke-width': k });
  const text: string[] = [], lines: string[] = [];
  for (const p of fitted.placed) {
    text.push(elementMarkup('text', { x: fmt(p.x), y: fmt(p.y), dy: '0.35em' }, escapeText(scene.labels[p.request].text)));
    if (p.leader) {
      const [x1, y1, x2, y2] = p.leader;
      lines.push(elementMarkup('line', { x1: fmt(x1), y1: fmt(y1), x2: fmt(x2), y2: fmt(y2) }));
    }
  }
  inner.set(labels.node, text);
  inner.set(leaders.node, lines);
}
