// Web Mercator (d3-geo) for pictures: either fitted to the content (the
// caller then sizes the viewBox to what was drawn, so labels never clip) or
// to the map's viewport (center + zoom with Leaflet's tile scale, or the
// top/left/bottom/right bounds) on a fixed 1200x700 frame. A frame whose
// content or view lies across the antimeridian is rotated so that the world's
// edge falls where there is nothing to draw; a circuit that still crosses the
// edge is drawn leaving one side and entering the other (Frame.line).
import { geoEquirectangular, geoMercator, type GeoProjection } from 'd3-geo';
import { DEG, MAX_LAT, lngCut, nearLng, wrapLng } from './geometry.ts';
import type { LatLng } from './types.ts';
import type { Pt } from './paths.ts';
import { medianNearest } from './crowding.ts';

const VIEWPORT_W = 1200;
const VIEWPORT_H = 700;
const CONTENT_W = 1000;
const CONTENT_H = 640;

export interface Frame {
  projection: GeoProjection;
  project(p: LatLng): Pt;
  /**
   * A line through `points` (those that project; others are left out): `at`,
   * where each point is in the picture, and the polylines to draw, each point
   * the short way round from the one before. That is one polyline, or two
   * when it crosses the world's edge: the second a world's width over, each
   * running off the picture on its side.
   */
  line(points: readonly LatLng[]): { at: Pt[]; lines: Pt[][] };
  /** Fixed picture box in viewport mode; null when the caller fits the box to the content. */
  fixed: { x: number; y: number; w: number; h: number } | null;
}

const clampLat = (lat: number) => Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));

function frame(projection: GeoProjection, fixed: Frame['fixed']): Frame {
  const project = ([lat, lng]: LatLng) => projection([lng, clampLat(lat)]) as Pt;
  const [rotation] = projection.rotate();
  const world = 2 * Math.PI * projection.scale();
  return {
    projection,
    project,
    fixed,
    line(points) {
      // Longitudes as the frame sees them (rotated), and how many world widths each point lies off where it is drawn.
      // (The frame's rotation and scale are set before it is made; read once, not per circuit.)
      // Turns are listed only once one is not 0 (a circuit across the world's edge; most are not).
      const at: Pt[] = [];
      let turns: number[] | null = null;
      let previous = 0, off = 0;
      for (const p of points) {
        const xy = project(p);
        if (!Number.isFinite(xy[0]) || !Number.isFinite(xy[1])) continue;
        // Where d3 draws it: the rotated longitude back within [-180, 180], as d3-geo's rotation wraps it.
        const seen = p[1] + rotation, drawn = wrapLng(seen);
        const along = at.length === 0 ? drawn : nearLng(previous, seen);
        previous = along;
        const t = Math.round((along - drawn) / 360);
        if (t !== 0) {
          off = t;
          turns ??= at.map(() => 0);
        }
        at.push(xy);
        turns?.push(t);
      }
      if (off === 0 || !turns) return { at, lines: [at] };
      const unwrapped = at.map(([x, y], i) => [x + (turns as number[])[i] * world, y] as Pt);
      return { at, lines: [unwrapped, unwrapped.map(([x, y]) => [x - off * world, y] as Pt)] };
    },
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
    // Leaflet's bounds of a view across the antimeridian run past 180 (170 to 190): look from their middle.
    const across = v.right! - v.left! < 360 && (v.left! < -180 || v.right! > 180);
    const p = geoMercator().rotate([across ? -(v.left! + v.right!) / 2 : 0, 0]).fitExtent([[0, 0], [VIEWPORT_W, VIEWPORT_H]], {
      type: 'MultiPoint', coordinates: [[v.left!, clampLat(v.bottom!)], [v.right!, clampLat(v.top!)]],
    });
    return frame(p, fixed);
  }
  if (v.center && finite(v.center.lat, v.center.lng, v.zoom)) {
    const scale = (256 * 2 ** Math.min(Math.max(v.zoom!, 0), 22)) / (2 * Math.PI);
    // A view that reaches past the antimeridian is looked at from its centre, so what lies beyond 180 is drawn there.
    const across = Math.abs(v.center.lng) + VIEWPORT_W / 2 / scale / DEG > 180;
    const p = geoMercator().rotate([across ? -v.center.lng : 0, 0]).scale(scale).translate([0, 0]);
    const [cx, cy] = p([v.center.lng, clampLat(v.center.lat)])!;
    p.translate([VIEWPORT_W / 2 - cx, VIEWPORT_H / 2 - cy]);
    return frame(p, fixed);
  }
  return null;
}

/**
 * How much larger than 1000x640 px crowded content may be drawn: at most
 * this many times (a 2,000-node backbone spread evenly over a continent
 * needs about 2.2 for its markers to keep their places).
 */
const MAX_CROWD_GROWTH = 3;

/** Content crowded: its nodes, and the room a marker takes (its side and the gap kept around it, px). */
export interface Crowd {
  nodes: readonly LatLng[];
  room: number;
}

/**
 * Scales the content's extent into about 1000x640 px; a single point gets
 * about 50 px per degree. With `crowd`: larger, up to MAX_CROWD_GROWTH
 * times, where the median node lies nearer its nearest neighbour than a
 * marker's room, so markers stay near their places rather than being spread
 * into one block.
 */
export function contentFrame(points: LatLng[], crowd?: Crowd): Frame {
  // The world's edge goes where the content leaves its largest gap (no rotation when that gap holds 180 already).
  const { cut } = lngCut(points.map((p) => p[1]));
  const rotation = cut === 180 ? 0 : 180 - cut;
  const unit = geoMercator().rotate([rotation, 0]).scale(1).translate([0, 0]);
  // Mercator's x grows with the rotated longitude and its y falls with latitude: the extent is that of the points
  // furthest each way, found without projecting them all (a 2,000-node picture has 12,000 points). The rotation
  // as d3-geo applies it: in radians, then by whole turns back within a half turn of 0.
  const turn = ((rotation * Math.PI) / 180) % (2 * Math.PI);
  const rotated = (lng: number) => {
    const l = (lng * Math.PI) / 180 + turn;
    return Math.abs(l) > Math.PI ? l - Math.round(l / (2 * Math.PI)) * 2 * Math.PI : l;
  };
  let west = -1, east = -1, south = -1, north = -1, least = Infinity, most = -Infinity;
  points.forEach(([lat, lng], i) => {
    const l = rotated(lng);
    if (!Number.isFinite(l) || !Number.isFinite(lat)) return;
    if (l < least) { least = l; west = i; }
    if (l > most) { most = l; east = i; }
    if (south < 0 || lat < points[south][0]) south = i;
    if (north < 0 || lat > points[north][0]) north = i;
  });
  const at = (i: number) => unit([points[i][1], clampLat(points[i][0])])!;
  let x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  if (west >= 0) [x0, x1, y0, y1] = [at(west)[0], at(east)[0], at(north)[1], at(south)[1]];
  const dx = x1 - x0, dy = y1 - y0;
  const perDegree = (50 * 180) / Math.PI;
  let s = dx < 1e-9 && dy < 1e-9 ? perDegree : Math.min(dx > 1e-9 ? CONTENT_W / dx : Infinity, dy > 1e-9 ? CONTENT_H / dy : Infinity);
  if (crowd && crowd.room > 0) {
    const apart = medianNearest(crowd.nodes.map(([lat, lng]) => unit([lng, clampLat(lat)]) as Pt)) * s;
    if (apart > 0 && apart < crowd.room) s *= Math.min(MAX_CROWD_GROWTH, crowd.room / apart);
  }
  return frame(geoMercator().rotate([rotation, 0]).scale(s).translate([-x0 * s, -y0 * s]), null);
}

/**
 * A logical layout's frame: its small lat/lng box drawn linearly
 * (equirectangular) at `pixelsPerDegree`, the layout's own scale (so nodes
 * keep the spacing ELK gave them), or fitted into about 1000x640 px when the
 * topology does not say; the north-west corner of `points` lands on `at`.
 */
export function logicalFrame(points: LatLng[], pixelsPerDegree: unknown, at: Pt = [0, 0]): Frame {
  let south = Infinity, north = -Infinity, west = Infinity, east = -Infinity;
  for (const [lat, lng] of points) {
    if (!Number.isFinite(lat) || !Number.isFinite(lng)) continue;
    if (lat < south) south = lat;
    if (lat > north) north = lat;
    if (lng < west) west = lng;
    if (lng > east) east = lng;
  }
  if (!Number.isFinite(south)) south = north = west = east = 0;
  const given = typeof pixelsPerDegree === 'number' && Number.isFinite(pixelsPerDegree) && pixelsPerDegree > 0 ? Math.min(pixelsPerDegree, 1e4) : 0;
  const fit = Math.min(east - west > 1e-9 ? CONTENT_W / (east - west) : Infinity, north - south > 1e-9 ? CONTENT_H / (north - south) : Infinity);
  const k = given || (Number.isFinite(fit) ? fit : 50);
  const s = (k * 180) / Math.PI; // d3's equirectangular: x = lng in radians x scale
  return frame(geoEquirectangular().scale(s).translate([at[0] - west * k, at[1] + north * k]), null);
}
