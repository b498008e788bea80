// PNG pictures: an SVG the renderer produced (so already through the
// sanitizer, svg-safety/sanitize.ts) rasterized with resvg at its own size, its
// text in the font the project ships (picture-font.ts) with system fonts
// never loaded. The size is checked against the limits before any pixel is
// allocated. resvg parses, lays out and draws on libuv's thread pool
// (renderAsync), so the event loop only encodes the PNG (docs/render.md: PNG).
import { Resvg, renderAsync } from '@resvg/resvg-js';
import { validationFailed } from '../errors.ts';
import { boundFilterRegions } from './filter-regions.ts';
import { PICTURE_FONT_FILES, PICTURE_FONT_NAME } from './picture-font.ts';

/** Headers of every PNG answer (docs/api.md: Output). */
export const PNG_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'image/png',
  'X-Content-Type-Options': 'nosniff',
});

export interface PngLimits {
  /** Most pixels on either side. */
  maxSide: number;
  /** Most pixels in all (width x height): 4 bytes each while drawing. */
  maxPixels: number;
}

const FONT = {
  loadSystemFonts: false,
  fontFiles: [...PICTURE_FONT_FILES],
  defaultFontFamily: PICTURE_FONT_NAME,
  // Every generic family, and any family a template names, ends at the shipped font.
  sansSerifFamily: PICTURE_FONT_NAME,
  serifFamily: PICTURE_FONT_NAME,
  monospaceFamily: PICTURE_FONT_NAME,
  cursiveFamily: PICTURE_FONT_NAME,
  fantasyFamily: PICTURE_FONT_NAME,
};

const ROOT = /<svg\b([^>]*)>/;
const attr = (attrs: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(attrs)?.[1];
const length = (value: string | undefined) => {
  const m = value === undefined ? null : /^\s*([0-9]+(?:\.[0-9]+)?)\s*(?:px)?\s*$/.exec(value);
  return m ? Number(m[1]) : undefined;
};

/** The pixel size resvg gives the picture: its root's width and height, else its viewBox's (else 100, as resvg). */
export function pictureSize(svg: string): { width: number; height: number } {
  const attrs = ROOT.exec(svg)?.[1] ?? '';
  const box = (attr(attrs, 'viewBox') ?? '').trim().split(/[\s,]+/).map(Number);
  const fromBox = box.length === 4 && box.every(Number.isFinite) ? { width: box[2], height: box[3] } : undefined;
  const width = length(attr(attrs, 'width')) ?? fromBox?.width ?? 100;
  const height = length(attr(attrs, 'height')) ?? fromBox?.height ?? 100;
  return { width: Math.max(1, Math.round(width)), height: Math.max(1, Math.round(height)) };
}

/** 422 naming the size and the limit when the picture is too large to rasterize. */
export function checkPngSize(size: { width: number; height: number }, limits: PngLimits): void {
  const { width, height } = size;
  if (width > limits.maxSide || height > limits.maxSide) {
    throw validationFailed(`the picture is ${width} x ${height} px: a PNG is at most ${limits.maxSide} px on a side ` +
      '(setting output.pngMaxSide); ask for the SVG, which has no such limit');
  }
  if (width * height > limits.maxPixels) {
    throw validationFailed(`the picture is ${width} x ${height} px (${width * height} px): a PNG is at most ${limits.maxPixels} px in all ` +
      '(setting output.pngMaxPixels); ask for the SVG, which has no such limit');
  }
}

/**
 * Rasterizations at once. Each holds one of libuv's threads (4 unless
 * UV_THREADPOOL_SIZE says otherwise) for its 50-200 ms, and file reads and
 * password checks wait on the same threads: the rest queue here instead.
 */
const AT_ONCE = 2;
let running = 0;
const waiting: Array<() => void> = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < AT_ONCE) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over as it is
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** The PNG of a sanitized SVG at its own size; 422 beyond the limits. */
export async function renderPng(svg: string, limits: PngLimits): Promise<Buffer> {
  checkPngSize(pictureSize(svg), limits);
  const bounded = boundFilterRegions(svg, rootScale(svg));
  checkReach(new Resvg(bounded, OPTIONS), svg);
  const image = await inTurn(() => renderAsync(bounded, OPTIONS));
  return image.asPng();
}

/**
 * The PNG of a sanitized SVG at its own size, drawn on the calling thread: a
 * render thread's (pool/), whose time budget then bounds it. The caller checks
 * the size first (checkPngSize).
 */
export function rasterize(svg: string): Uint8Array {
  const resvg = new Resvg(boundFilterRegions(svg, rootScale(svg)), OPTIONS);
  checkReach(resvg, svg);
  return resvg.render().asPng();
}

const OPTIONS = { font: FONT, fitTo: { mode: 'original' as const }, logLevel: 'off' as const };

/**
 * Most pixels a drawing may reach beyond the picture's edges in a PNG
 * (docs/api.md: PNG pictures). resvg's rasterizer (tiny-skia) aborts the whole
 * process, not just the render, on a shape some 5 x 10^8 px out (an integer
 * overflow it panics on and cannot unwind: one template rect 10^9 units wide
 * stopped the service); nothing that far out is ever seen.
 */
const MAX_REACH_PX = 1_000_000;

/** 422 when the parsed picture's drawing (transforms, strokes, text and markers included) reaches beyond MAX_REACH_PX. */
function checkReach(resvg: Resvg, svg: string): void {
  const box = resvg.getBBox();
  if (!box) return;
  const { width, height, view } = rootScale(svg);
  const [vx, vy, vw, vh] = view;
  const [sx, sy] = [width / vw, height / vh];
  const reach = Math.max((vx - box.x) * sx, (vy - box.y) * sy, (box.x + box.width - vx - vw) * sx, (box.y + box.height - vy - vh) * sy);
  if (!(reach <= MAX_REACH_PX)) {
    throw validationFailed(`the picture draws shapes ${Number.isFinite(reach) ? `${Math.round(reach)} px` : 'without bound'} beyond its edges: ` +
      `a PNG is drawn only when its drawing stays within ${MAX_REACH_PX} px of them (draw a smaller shape in the template); the SVG has no such limit`);
  }
}

/** The picture's pixel size and its pixels per unit of the root's user space (its viewBox). */
function rootScale(svg: string): { width: number; height: number; scale: number; view: number[] } {
  const { width, height } = pictureSize(svg);
  const box = (attr(ROOT.exec(svg)?.[1] ?? '', 'viewBox') ?? '').trim().split(/[\s,]+/).map(Number);
  const view = box.length === 4 && box.every(Number.isFinite) && box[2] > 0 && box[3] > 0 ? box : [0, 0, width, height];
  return { width, height, scale: Math.max(width / view[2], height / view[3]), view };
}
