// The size a picture is shown at (docs/api.md: Picture size). Every picture
// carries a viewBox and, beside it, a width and height: without a requested
// size its natural size (the viewBox's, in px), so a bare <img src=…/svg/>
// shows it whole instead of as a 300x150 replaced-element default, while CSS
// on the <img> or the inline <svg> still sizes it (the viewBox scales the
// drawing), and a rasterizer draws it at that size. `width` and/or `height` give it that size in px: one of them keeps
// the picture's aspect ratio, both widen its view to their aspect (the
// content centred) rather than distort it. Text is kept legible at that size:
// pictures drawn smaller than their viewBox get larger label fonts in
// picture units, so fewer labels fit instead of smaller ones.
import type { Rect } from './box-index.ts';

export interface PictureSize {
  width?: number;
  height?: number;
}

interface Box { x: number; y: number; w: number; h: number }

/** Output px per picture unit for `box` shown at `size` (1 when no size is asked for). */
function outputScale(box: Box, size: PictureSize): number {
  const sx = size.width ? size.width / box.w : Infinity, sy = size.height ? size.height / box.h : Infinity;
  const s = Math.min(sx, sy);
  return Number.isFinite(s) ? s : 1;
}

/** Picture units per output px of labels: at least 1, more when the picture is drawn smaller than its viewBox. */
export const textScale = (box: Box, size: PictureSize) => Math.max(1, 1 / outputScale(box, size));

/** With both sides given, `box` widened (or heightened) about its centre to their aspect ratio. */
export function fitAspect(box: Box, size: PictureSize): Box {
  if (!size.width || !size.height) return box;
  const want = size.width / size.height, have = box.w / box.h;
  if (have < want) { const w = box.h * want; return { ...box, x: box.x - (w - box.w) / 2, w }; }
  const h = box.w / want;
  return { ...box, y: box.y - (h - box.h) / 2, h };
}

/** The root's width and height attributes: the viewBox's size by default, else the size asked for (the other side from the aspect ratio). */
export function sizeAttributes(box: Box, size: PictureSize): { width: number; height: number } {
  if (!size.width && !size.height) return { width: Math.max(1, Math.round(box.w)), height: Math.max(1, Math.round(box.h)) };
  const s = outputScale(box, size);
  return { width: size.width ?? Math.max(1, Math.round(box.w * s)), height: size.height ?? Math.max(1, Math.round(box.h * s)) };
}

export const toRect = (b: Box): Rect => ({ x0: b.x, y0: b.y, x1: b.x + b.w, y1: b.y + b.h });
export const toBox = (r: Rect): Box => ({ x: r.x0, y: r.y0, w: r.x1 - r.x0, h: r.y1 - r.y0 });
