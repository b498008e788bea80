// Compass order in a schematic (a logical drawing of nodes with coordinates):
// west stays west and north stays north. The stress layout projects its
// positions onto that order after every round (stress-layout.ts), which
// keeps every pair in order; the crossing reduction (untangle.ts) may then
// give up a few pairs for a crossing less, within a budget counted here.
// Pure arithmetic on drawing positions (x east, y south) and [lat, lng].
//
// "East of" across the antimeridian: a graph's longitudes are read on the
// piece of the circle its nodes lie in, cut in the middle of their largest
// empty arc (geometry.ts continuousLng, the rule the geographic layout uses),
// so Tokyo lies west of Honolulu and Seattle on a Pacific loop, not at the
// far east beyond Europe. The layout's geography and the measure
// (layout-quality.ts) both read positions through compassPlaces.
//
// A graph has a compass order only while its nodes lie within half the
// globe's longitudes (hasCompassOrder): beyond that, some pair lies less
// far apart the other way round, so whichever piece of the circle is read,
// "east of" in the picture is west of on the globe for that pair, and a
// loop of circuits round the world comes back east of where it started.
// The logical layout draws such a graph as it draws one without
// coordinates, and the measure counts no compass order for it.
import { continuousLng, lngCut } from './geometry.ts';
import { compassSorted } from './compass-sort.ts';
import type { Pt } from './paths.ts';

/** [lat, lng] per node, longitudes made one continuous range (unchanged unless the graph crosses the antimeridian). */
export function compassPlaces(geo: readonly (readonly [number, number])[]): Pt[] {
  const lng = continuousLng(geo.map((g) => g[1]));
  return geo.map(([lat, lon]): Pt => [lat, lng(lon)]);
}

/** The most longitude a graph's nodes may span (degrees, their circle's piece) for it to have a compass order. */
const HALF_GLOBE = 180;

/** Whether the nodes at `geo` ([lat, lng]) have an east-west order the globe agrees with: they lie within half of it. */
export function hasCompassOrder(geo: readonly (readonly [number, number])[]): boolean {
  return lngCut(geo.map((g) => g[1])).span <= HALF_GLOBE;
}

/** compassPlaces, keyed by node; undefined for nodes without a compass order (more than half the globe apart). */
export function compassPlacesOf<K>(geo: ReadonlyMap<K, readonly [number, number]>): Map<K, Pt> | undefined {
  const raw = [...geo.values()];
  if (!hasCompassOrder(raw)) return undefined;
  const places = compassPlaces(raw);
  return new Map([...geo.keys()].map((k, i) => [k, places[i]]));
}

/**
 * The least-squares projection of `values` onto the order `order` (indices,
 * smallest first): the closest values that never fall along it (pool
 * adjacent violators, O(n)). Nodes of equal rank are ordered by their
 * current value first, so they constrain nothing among themselves.
 */
function isotonic(values: number[], order: readonly number[]): void {
  const means: number[] = [], sizes: number[] = [];
  for (const i of order) {
    let m = values[i], s = 1;
    while (means.length > 0 && means[means.length - 1] > m) {
      const pm = means.pop()!, ps = sizes.pop()!;
      m = (pm * ps + m * s) / (ps + s);
      s += ps;
    }
    means.push(m);
    sizes.push(s);
  }
  let k = 0;
  means.forEach((m, b) => { for (let j = 0; j < sizes[b]; j++) values[order[k++]] = m; });
}

/**
 * Projects `at` in place so that x follows longitude and y follows latitude
 * (north up), nodes of different coordinate at least `gap` apart along the
 * axis (an equal position would keep no order); a `strength` under 1 moves
 * them only that part of the way (a soft order, the rest left to stress).
 */
export function keepCompassOrder(at: Pt[], geo: readonly Pt[], gap: number, strength = 1): void {
  for (const axis of [0, 1] as const) {
    // By longitude (x) or southing (y), then position; the gap as a rank offset: v - gap * rank must not fall,
    // where rank counts distinct coordinates (compass-sort.ts).
    const { order, rank } = compassSorted(geo, axis, (i) => at[i][axis]);
    const values = at.map((p, i) => p[axis] - gap * rank[i]);
    isotonic(values, order);
    values.forEach((v, i) => { at[i][axis] += strength * (v + gap * rank[i] - at[i][axis]); });
  }
}

/** Pairs and axes a node's position keeps in compass order with every other node (pairs of equal coordinate excluded). */
export function compassKeptBy(v: number, p: Pt, at: readonly Pt[], geo: readonly Pt[]): { kept: number; pairs: number } {
  let kept = 0, pairs = 0;
  for (let j = 0; j < at.length; j++) {
    if (j === v) continue;
    const east = Math.sign(geo[j][1] - geo[v][1]), south = Math.sign(geo[v][0] - geo[j][0]);
    if (east !== 0) { pairs++; if (Math.sign(at[j][0] - p[0]) === east) kept++; }
    if (south !== 0) { pairs++; if (Math.sign(at[j][1] - p[1]) === south) kept++; }
  }
  return { kept, pairs };
}
