// Small lat/lng helpers shared by topology building and group layouts.
import type { LatLng } from './types.ts';

export const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The largest latitude drawn, Web Mercator's usual limit (projection.ts clamps to it too). */
export const MAX_LAT = 85;

export function centroid(points: readonly LatLng[]): LatLng {
  if (points.length === 0) return [0, 0];
  let la = 0, ln = 0;
  for (const [a, b] of points) {
    la += a;
    ln += b;
  }
  return [la / points.length, ln / points.length];
}

/** Longitude degrees per "visual" degree at a latitude, so spreads look round on Mercator. */
export function lngStretch(lat: number): number {
  return 1 / Math.max(0.2, Math.cos((lat * Math.PI) / 180));
}

/**
 * The bend point that keeps circuit i of k between the same nodes apart: the
 * segment's midpoint moved sideways by a fraction of its length, so parallel
 * circuits fan out as arcs symmetric about the straight line.
 */
export function parallelMidpoint(a: LatLng, b: LatLng, i: number, k: number): LatLng {
  const s = lngStretch((a[0] + b[0]) / 2);
  // Work in a locally "square" space: x = lng / stretch, y = lat.
  const ax = a[1] / s, bx = b[1] / s;
  const dx = bx - ax, dy = b[0] - a[0];
  const len = Math.hypot(dx, dy) || 1;
  // Arcs 0.12 of the length apart, closer when there are many: the outermost stays within 0.3 of
  // the length from the straight line however many circuits there are.
  const step = Math.min(0.12, 0.6 / Math.max(1, k - 1));
  const off = (i - (k - 1) / 2) * step * len;
  // Perpendicular to the segment, oriented by node order so both directions agree.
  const flip = a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]) ? 1 : -1;
  const nx = (-dy / len) * flip, ny = (dx / len) * flip;
  // A latitude stays one (Web Mercator's own limit), whatever the spread.
  const lat = Math.max(-MAX_LAT, Math.min(MAX_LAT, (a[0] + b[0]) / 2 + ny * off));
  return [lat, ((ax + bx) / 2 + nx * off) * s];
}
