// Country outlines behind geographic pictures, from the Natural Earth data
// bundled in the world-atlas package (TopoJSON, read from node_modules, so it
// works offline). 1:110m for wide views, 1:50m when the view spans less than
// 40 degrees. Features outside the visible box are skipped before projecting.
// Projecting the outlines is most of a map picture's cost, and a map's frame
// repeats from request to request, so the paths are memoized per projection
// parameters and box (a few recent frames).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { feature } from 'topojson-client';
import { geoBounds, geoPath, type GeoProjection } from 'd3-geo';
import type { Feature, Geometry } from 'geojson';
import type { Topology as TopoJson, GeometryCollection } from 'topojson-specification';
import { DEG, wrapLng } from './geometry.ts';

interface Country {
  feature: Feature<Geometry>;
  /** [[west, south], [east, north]]; west > east when it crosses the antimeridian. */
  bounds: [[number, number], [number, number]];
}

const require = createRequire(import.meta.url);
const loaded = new Map<string, Country[]>();

function load(resolution: '110m' | '50m'): Country[] {
  let c = loaded.get(resolution);
  if (!c) {
    const topo = JSON.parse(readFileSync(require.resolve(`world-atlas/countries-${resolution}.json`), 'utf8')) as TopoJson;
    const fc = feature(topo, topo.objects.countries as GeometryCollection);
    c = fc.features.map((f) => ({ feature: f as Feature<Geometry>, bounds: geoBounds(f) as Country['bounds'] }));
    loaded.set(resolution, c);
  }
  return c;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const RECENT_FRAMES = 16;
const recent = new Map<string, readonly string[]>();

/** Path data of every country visible in `box` (picture pixels) under `projection` (a shared, frozen array). */
export function countryPaths(projection: GeoProjection, box: Box): readonly string[] {
  // Everything the paths depend on: d3-geo's Mercator parameters (the frames set scale/translate) and the box.
  const key = JSON.stringify([projection.scale(), projection.translate(), projection.center(), projection.rotate(),
    projection.angle(), projection.reflectX(), projection.reflectY(), projection.precision(), box.x, box.y, box.w, box.h]);
  let paths = recent.get(key);
  if (paths) recent.delete(key);
  else paths = Object.freeze(projectCountries(projection, box));
  recent.set(key, paths); // most recent last
  if (recent.size > RECENT_FRAMES) recent.delete(recent.keys().next().value as string);
  return paths;
}

const joined = new WeakMap<readonly string[], string>();

/**
 * countryPaths as one path's data, joined once per frame kept: a picture
 * redrawn in the same frame (every fresh request for it) would otherwise
 * join a few hundred kilobytes of outlines again (0.4 ms of a 3-ms map).
 */
export function landPath(projection: GeoProjection, box: Box): string {
  const paths = countryPaths(projection, box);
  let d = joined.get(paths);
  if (d === undefined) joined.set(paths, (d = paths.join('')));
  return d;
}

function projectCountries(projection: GeoProjection, box: Box): string[] {
  // Web Mercator's x is linear in longitude, so the box's west and east edges are exact in the frame's own
  // (rotated) longitudes, even past the world's edge, where inverting a point would wrap it.
  const [tx] = projection.translate(), k = projection.scale(), [rotation] = projection.rotate();
  const west = (box.x - tx) / k / DEG, east = (box.x + box.w - tx) / k / DEG;
  const north = projection.invert?.([tx, box.y])?.[1] ?? 90, south = projection.invert?.([tx, box.y + box.h])?.[1] ?? -90;
  const wide = east - west >= 40;
  const countries = load(wide ? '110m' : '50m');
  const clipped = projection.clipExtent([[box.x - 2, box.y - 2], [box.x + box.w + 2, box.y + box.h + 2]]);
  const path = geoPath(clipped).digits(1);
  const out: string[] = [];
  for (const c of countries) {
    const [[w, s], [e, n]] = c.bounds;
    if (n < south || s > north || (east - west < 360 && !overlaps(wrapLng(w + rotation), wrapLng(e + rotation), west, east))) continue;
    const d = path(c.feature);
    if (d) out.push(d);
  }
  projection.clipExtent(null);
  return out;
}

/** Whether longitudes w..e (across the world's edge when w > e) meet west..east. */
function overlaps(w: number, e: number, west: number, east: number): boolean {
  return w <= e ? e >= west && w <= east : e >= west || w <= east;
}
