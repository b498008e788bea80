// Small lat/lng helpers shared by topology building, group layouts and
// projections, including where the circle of longitudes is cut: content
// across the antimeridian (Tokyo and Los Angeles) is one cluster, not two
// ends of the world.
import type { LatLng } from './types.ts';

export const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The largest latitude drawn, Web Mercator's usual limit (projection.ts clamps to it too). */
export const MAX_LAT = 85;

/** Radians per degree. */
export const DEG = Math.PI / 180;

/** A computed longitude back within [-180, 180]; one already there is kept as it is. */
export const wrapLng = (lng: number) => (Math.abs(lng) <= 180 ? lng : lng - 360 * Math.round(lng / 360));

/** `lng` moved by whole turns to within 180 degrees of `ref`: the short way round from `ref`. */
export const nearLng = (ref: number, lng: number) => lng + 360 * Math.round((ref - lng) / 360);

/**
 * Where to cut the circle of longitudes so that `lngs` lie in one piece: the
 * middle of their largest empty arc, or 180 when that arc already holds the
 * antimeridian (the usual case, in which nothing moves). `span` is how many
 * degrees the piece covers.
 */
export function lngCut(lngs: readonly number[]): { cut: number; span: number } {
  const wrapped = new Float64Array(lngs.length);
  let n = 0, first = Infinity, last = -Infinity;
  for (const lng of lngs) {
    if (!Number.isFinite(lng)) continue;
    const v = (wrapped[n++] = wrapLng(lng));
    if (v < first) first = v;
    if (v > last) last = v;
  }
  if (n === 0) return { cut: 180, span: 0 };
  let gap = 360 - (last - first), from = last;
  if (last > first) {
    // The largest gap between sorted values without sorting (a 2,000-node picture has 12,000 points): n buckets
    // each narrower than it must be (at least the range over n - 1), so it lies between buckets, and only each
    // bucket's least and greatest value count. Buckets in order: of equal gaps the westernmost wins, as sorted.
    const width = (last - first) / n;
    const lo = new Float64Array(n).fill(Infinity), hi = new Float64Array(n).fill(-Infinity);
    for (let i = 0; i < n; i++) {
      const v = wrapped[i], b = Math.min(n - 1, Math.floor((v - first) / width));
      if (v < lo[b]) lo[b] = v;
      if (v > hi[b]) hi[b] = v;
    }
    let previous = hi[0];
    for (let b = 1; b < n; b++) {
      if (lo[b] === Infinity) continue;
      if (lo[b] - previous > gap) {
        gap = lo[b] - previous;
        from = previous;
      }
      previous = hi[b];
    }
  }
  return from === last ? { cut: 180, span: last - first } : { cut: from + gap / 2, span: 360 - gap };
}

/**
 * How a layer's longitudes are made one continuous range when its content
 * crosses the antimeridian: the shift that moves a longitude onto the piece
 * `lngCut` leaves, choosing whichever of (cut - 360, cut] and (cut, cut + 360]
 * moves fewer of `lngs` out of [-180, 180]. Identity when nothing crosses.
 */
export function continuousLng(lngs: readonly number[]): (lng: number) => number {
  const { cut } = lngCut(lngs);
  if (cut === 180) return (lng) => lng;
  const below = (lng: number) => beforeCut(cut, wrapLng(lng));
  const above = (lng: number) => below(lng) + 360;
  const outside = (f: (lng: number) => number) => lngs.filter((l) => Number.isFinite(l) && Math.abs(f(l)) > 180).length;
  return outside(above) < outside(below) ? above : below;
}

/** `lng` measured on the piece that `cut` leaves: in (cut - 360, cut]. */
const beforeCut = (cut: number, lng: number) => (cut === 180 || lng <= cut ? lng : lng - 360);

/** The mean position; longitudes are averaged on the piece the points lie in, so 179 and -179 meet at 180, not 0. */
export function centroid(points: readonly LatLng[]): LatLng {
  if (points.length === 0) return [0, 0];
  const { cut } = lngCut(points.map((p) => p[1]));
  let la = 0, ln = 0;
  for (const [a, b] of points) {
    la += a;
    ln += beforeCut(cut, b);
  }
  return [la / points.length, wrapLng(ln / points.length)];
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
  // Work in a locally "square" space: x = lng / stretch, y = lat; b the short way round from a.
  const ax = a[1] / s, bx = nearLng(a[1], b[1]) / s;
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
  return [lat, wrapLng(((ax + bx) / 2 + nx * off) * s)];
}
