// How the routers of one site sit around their spot in a stress drawing or
// schematic (stress-drawing.ts): the layout holds a site's routers together
// but not always in the order or the direction their circuits leave it, so
// a circuit to the far router crosses the site's own bar, or a circuit
// leaving its neighbour (the North America demo: Atlanta's two routers the
// wrong way round for Nashville and Washington). Each site tries its
// routers' places permuted and turned about their centre by multiples of
// 45 degrees, and takes the arrangement whose circuits cross fewest others,
// then the shortest. Only routers of one place rearrange (with coordinates,
// they share them), every other node stays, and in a schematic no
// arrangement takes the drawing below MIN_COMPASS of its pairs in compass
// order. Greedy over the sites, a few passes, deterministic.
// O(passes * sites * k! * 8 * degree * edges).
import { compassKeptBy } from './compass-order.ts';
import { segmentsCross } from './drawing-geometry.ts';
import type { Pt } from './paths.ts';

const PASSES = 2;
/** Sites of more routers than this are left as they are (k! orders). */
const MAX_ROUTERS = 4;
const TURNS = 8;
/** The least share of pairs kept in compass order (as untangle.ts). */
const MIN_COMPASS = 0.92;

/** Every order of `xs`, the given one first. */
function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

/** `places` turned by `k` eighths of a turn about their centre. */
function turned(places: readonly Pt[], k: number): Pt[] {
  const cx = places.reduce((s, p) => s + p[0], 0) / places.length, cy = places.reduce((s, p) => s + p[1], 0) / places.length;
  const t = (2 * Math.PI * k) / TURNS, [c, s] = [Math.cos(t), Math.sin(t)];
  return places.map(([x, y]): Pt => [cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c]);
}

/**
 * Rearranges the routers of each site in `at`, in place, where that crosses
 * less or, as crossed, shortens their circuits. `site`: each node's site
 * (-1: none); `geo`: [lat, lng] per node, in a schematic.
 */
export function arrangeSites(at: Pt[], ends: readonly (readonly [number, number])[], site: readonly number[], geo?: readonly Pt[]): void {
  const edges = ends.filter(([a, b]) => a !== b);
  const incident: number[][] = at.map(() => []);
  edges.forEach(([a, b], k) => { incident[a].push(k); incident[b].push(k); });
  const groups = new Map<string, number[]>();
  site.forEach((s, i) => {
    if (s < 0 || incident[i].length === 0) return;
    const key = geo ? `${s}:${geo[i][0]},${geo[i][1]}` : String(s);
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  // Crossings of the circuits at `vs` with all others (each pair once), and their length.
  // Crossings of `mine` (the circuits at a site's routers) with all others (each pair once), and their length.
  const cost = (mine: readonly number[]): [number, number] => {
    let crossed = 0, length = 0;
    mine.forEach((k, m) => {
      const [a, b] = edges[k], [p, q] = [at[a], at[b]];
      length += Math.hypot(p[0] - q[0], p[1] - q[1]);
      const [x0, x1, y0, y1] = [Math.min(p[0], q[0]), Math.max(p[0], q[0]), Math.min(p[1], q[1]), Math.max(p[1], q[1])];
      edges.forEach(([x, y], f) => {
        if (x === a || x === b || y === a || y === b || (mine.indexOf(f) >= 0 && mine.indexOf(f) <= m)) return;
        const [r, t] = [at[x], at[y]];
        // Boxes apart: no crossing (most pairs, and cheaper than the test).
        if ((r[0] < x0 && t[0] < x0) || (r[0] > x1 && t[0] > x1) || (r[1] < y0 && t[1] < y0) || (r[1] > y1 && t[1] > y1)) return;
        if (segmentsCross(p, q, r, t)) crossed++;
      });
    });
    return [crossed, length];
  };
  // Compass pairs kept, counted from both ends (as untangle.ts): a member's change counts twice.
  let kept = 0, pairs = 0;
  if (geo) at.forEach((p, v) => { const c = compassKeptBy(v, p, at, geo); kept += c.kept; pairs += c.pairs; });
  const keptBy = (vs: readonly number[]) => (geo ? vs.reduce((s, v) => s + compassKeptBy(v, at[v], at, geo).kept, 0) : 0);
  for (let pass = 0; pass < PASSES; pass++) {
    let moved = false;
    for (const members of groups.values()) {
      if (members.length < 2 || members.length > MAX_ROUTERS) continue;
      const places = members.map((i) => at[i]);
      const mine = [...new Set(members.flatMap((v) => incident[v]))];
      const keptBefore = keptBy(members);
      let best = cost(mine), bestPlaces = places, bestKept = keptBefore;
      // Two routers turned half way round are the two swapped: half the turns do.
      for (let k = 0; k < (members.length === 2 ? TURNS / 2 : TURNS); k++) {
        for (const order of permutations(turned(places, k))) {
          members.forEach((i, m) => { at[i] = order[m]; });
          const c = cost(mine);
          if (!(c[0] < best[0] || (c[0] === best[0] && c[1] < best[1] - 1e-9))) continue;
          const keptNow = keptBy(members);
          if (geo && keptNow < keptBefore && (kept + 2 * (keptNow - keptBefore)) / pairs < MIN_COMPASS) continue;
          best = c; bestPlaces = order; bestKept = keptNow;
        }
      }
      members.forEach((i, m) => { at[i] = bestPlaces[m]; });
      if (bestPlaces !== places) { moved = true; kept += 2 * (bestKept - keptBefore); }
    }
    if (!moved) break;
  }
}

