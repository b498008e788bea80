// Web Mercator (d3-geo) for pictures: either fitted to the content (the
// caller then sizes the viewBox to what was drawn, so labels never clip) or
// to the map's viewport (center + zoom with Leaflet's tile scale, or the
// top/left/bottom/right bounds) on a fixed 1200x700 frame.
import { geoMercator, type GeoProjection } from 'd3-geo';
import { MAX_LAT } from './geometry.ts';
import type { LatLng } from './types.ts';
import type { Pt } from './paths.ts';

export const VIEWPORT_W = 1200;
export const VIEWPORT_H = 700;
const CONTENT_W = 1000;
const CONTENT_H = 640;

export interface Frame {
  projection: GeoProjection;
  project(p: LatLng): Pt;
  /** Fixed picture box in viewport mode; null when the caller fits the box to the content. */
  fixed: { x: number; y: number; w: number; h: number } | null;
}

const clampLat = (lat: number) => Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));

function frame(projection: GeoProjection, fixed: Frame['fixed']): Frame {
  return {
    projection,
    project: ([lat, lng]) => projection([lng, clampLat(lat)]) as Pt,
    fixed,
  };
}

export interface Viewport {
  center?: { lat: number; lng: number } | null;
  zoom?: number | null;
  top?: number | null;
  left?: number | null;
  bottom?: number | null;
  right?: number | null;
}

const finite = (...xs: unknown[]) => xs.every((x) => typeof x === 'number' && Number.isFinite(x));

/** The map's viewport frame, or null when the viewport does not say where to look. */
export function viewportFrame(v: Viewport | null | undefined): Frame | null {
  if (!v) return null;
  const fixed = { x: 0, y: 0, w: VIEWPORT_W, h: VIEWPORT_H };
  if (finite(v.top, v.left, v.bottom, v.right) && v.top! > v.bottom! && v.right! > v.left!) {
    const p = geoMercator().fitExtent([[0, 0], [VIEWPORT_W, VIEWPORT_H]], {
      type: 'MultiPoint', coordinates: [[v.left!, clampLat(v.bottom!)], [v.right!, clampLat(v.top!)]],
    });
    return frame(p, fixed);
  }
  if (v.center && finite(v.center.lat, v.center.lng, v.zoom)) {
    const scale = (256 * 2 ** Math.min(Math.max(v.zoom!, 0), 22)) / (2 * Math.PI);
    const p = geoMercator().scale(scale).translate([0, 0]);
    const [cx, cy] = p([v.center.lng, clampLat(v.center.lat)])!;
    p.translate([VIEWPORT_W / 2 - cx, VIEWPORT_H / 2 - cy]);
    return frame(p, fixed);
  }
  return null;
}

/** Scales the content's extent into about 1000x640 px; a single point gets about 50 px per degree. */
export function contentFrame(points: LatLng[]): Frame {
  const unit = geoMercator().scale(1).translate([0, 0]);
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [lat, lng] of points) {
    const [x, y] = unit([lng, clampLat(lat)])!;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  if (!Number.isFinite(x0)) x0 = x1 = y0 = y1 = 0;
  const dx = x1 - x0, dy = y1 - y0;
  const perDegree = (50 * 180) / Math.PI;
  const s = dx < 1e-9 && dy < 1e-9 ? perDegree : Math.min(dx > 1e-9 ? CONTENT_W / dx : Infinity, dy > 1e-9 ? CONTENT_H / dy : Infinity);
  return frame(geoMercator().scale(s).translate([-x0 * s, -y0 * s]), null);
}
