// The schematic ("metro map") positions of a graph whose nodes all have
// coordinates, as R&E networks draw their own wall maps: the geography as
// the start, every circuit pulled to one length, no two nodes nearer than
// that length, the positions held in compass order after every round
// (compass-order.ts), and in the later rounds each circuit turned towards
// its nearest multiple of 45 degrees. Stress majorization, as stress-layout.ts,
// but with the circuits as the only springs: the other pairs only push apart
// when too close, so the circuits come out alike (a tree exactly so) instead
// of stretched by hop distances that geography does not follow.
// Deterministic, pure arithmetic, O(n^2) a round.
import { keepCompassOrder } from './compass-order.ts';
import { hypot } from './hypot.ts';
import type { Pt } from './paths.ts';
import { StarCrossings } from './star-crossings.ts';

const ROUNDS = 360;
/** Share of the rounds before circuits are turned towards 0/45/90 degrees: the shape settles first. */
const OCTILINEAR_FROM = 0.4;
/** Weights: a circuit, a pair of routers of one site (held one circuit apart), a pair too close. */
const EDGE_WEIGHT = 1;
const SITE_WEIGHT = 0.5;
const ROOM_WEIGHT = 0.5;
/** The least distance between two nodes, in circuit lengths; a router of another site keeps further from a site's routers. */
const ROOM = 0.75;
const SITE_ROOM = 1.2;
/** Room between a site's routers and another router, beyond the site's own radius, in circuit lengths. */
const SITE_CLEAR = 0.8;
/** The least gap along an axis between nodes of different coordinates, in circuit lengths. */
const COMPASS_GAP = 0.08;
const OCTANT = Math.PI / 4;
const STILL = 1e-4;

export interface SchematicOptions {
  /** How far each round moves the nodes towards compass order (1: all the way). */
  order: number;
  /** How far circuits are turned towards 0/45/90 degrees at the end (1: all the way). */
  octilinear: number;
  /** Each node's site (-1: none). */
  site: readonly number[];
  /** Where to start instead of the geography (another layout's positions, circuits about `length` long). */
  from?: readonly Pt[];
  /** The least distance between two nodes not linked, in circuit lengths (ROOM by default). */
  room?: number;
  /** Rounds (ROUNDS by default): fewer from a start that is already settled. */
  rounds?: number;
  /** No move adds a crossing: the start's crossings are kept (or undone), its lengths evened out. */
  keepCrossings?: boolean;
}

/** Halvings of a move tried before a node that would add a crossing stays where it is. */
const HALVINGS = 4;

/** The geography (x east, y south, equirectangular) scaled so the median circuit is `length`; nodes of one place set around it. */
function start(geo: readonly Pt[], ends: readonly (readonly [number, number])[], length: number): Pt[] {
  const raw = geo.map(([lat, lng]): Pt => [lng, -lat]);
  const spans = ends.map(([a, b]) => Math.hypot(raw[a][0] - raw[b][0], raw[a][1] - raw[b][1])).filter((d) => d > 1e-9).sort((a, b) => a - b);
  const scale = length / (spans[Math.floor(spans.length / 2)] || 1);
  const at = raw.map(([x, y]): Pt => [x * scale, y * scale]);
  const places = new Map<string, number[]>();
  geo.forEach((g, i) => { const k = `${g[0]},${g[1]}`; places.set(k, [...(places.get(k) ?? []), i]); });
  for (const same of places.values()) {
    if (same.length < 2) continue;
    same.forEach((i, k) => {
      const t = (2 * Math.PI * k) / same.length;
      at[i] = [at[i][0] + (length / 2) * Math.cos(t), at[i][1] + (length / 2) * Math.sin(t)];
    });
  }
  return at;
}

/**
 * For each circuit, the octant it is turned towards, or -1 where two
 * circuits of one node would claim the same one (they would overlap).
 */
function octants(at: readonly Pt[], ends: readonly (readonly [number, number])[]): number[] {
  const want = ends.map(([a, b]) => (a === b ? -1 : (Math.round(Math.atan2(at[b][1] - at[a][1], at[b][0] - at[a][0]) / OCTANT) + 8) % 8));
  // Claims per node and octant, at node * 8 + octant.
  const claims = new Int32Array(8 * at.length);
  ends.forEach(([a, b], k) => { if (want[k] >= 0) { claims[8 * a + want[k]]++; claims[8 * b + ((want[k] + 4) % 8)]++; } });
  return ends.map(([a, b], k) => (want[k] >= 0 && claims[8 * a + want[k]] === 1 && claims[8 * b + ((want[k] + 4) % 8)] === 1 ? want[k] : -1));
}

/** Each site's centre and radius (the furthest of its routers), by site. */
function siteCircles(at: readonly Pt[], site: readonly number[]): Map<number, [number, number, number]> {
  const members = new Map<number, number[]>();
  site.forEach((s, i) => { if (s >= 0) members.set(s, [...(members.get(s) ?? []), i]); });
  const out = new Map<number, [number, number, number]>();
  for (const [s, ms] of members) {
    if (ms.length < 2) continue;
    const cx = ms.reduce((t, i) => t + at[i][0], 0) / ms.length, cy = ms.reduce((t, i) => t + at[i][1], 0) / ms.length;
    out.set(s, [cx, cy, Math.max(...ms.map((i) => Math.hypot(at[i][0] - cx, at[i][1] - cy)))]);
  }
  return out;
}

/** Positions (px) of the nodes at `geo` ([lat, lng]) linked by `ends`, circuits of `length`. */
export function schematicLayout(geo: readonly Pt[], ends: readonly (readonly [number, number])[], length: number, options: SchematicOptions): Pt[] {
  const n = geo.length;
  if (n === 0) return [];
  const { site, order, octilinear } = options;
  // Per node, its circuits: neighbour and circuit index.
  const links: [number, number][][] = Array.from({ length: n }, () => []);
  ends.forEach(([a, b], k) => { if (a !== b) { links[a].push([b, k]); links[b].push([a, k]); } });
  // Which pairs a circuit links, row i column j at i * n + j.
  const linked = new Uint8Array(n * n);
  links.forEach((ls, i) => { for (const [j] of ls) linked[i * n + j] = 1; });
  const at = options.from ? options.from.map((p): Pt => [p[0], p[1]]) : start(geo, ends, length);
  // Crossings node i's circuits would add, were it moved (star-crossings.ts).
  const star = new StarCrossings(at, ends, 1e-9);
  const neighbours = links.map((ls) => ls.map(([j]) => j));
  // Node i moved towards p, as far as that adds no crossing (halving the move a few times).
  const moveTo = (i: number, p: Pt) => {
    if (!options.keepCrossings || links[i].length === 0) { at[i] = p; return; }
    let q = p;
    for (let h = 0; h <= HALVINGS; h++, q = [(q[0] + at[i][0]) / 2, (q[1] + at[i][1]) / 2]) {
      if (star.added(i, at[i], q, neighbours[i]) > 0) continue;
      at[i] = q;
      return;
    }
  };
  const rounds = options.rounds ?? ROUNDS;
  for (let round = 0; round < rounds; round++) {
    const turn = octilinear * Math.max(0, (round / rounds - OCTILINEAR_FROM) / (1 - OCTILINEAR_FROM));
    const oct = turn > 0 ? octants(at, ends) : [];
    let moved = 0;
    const sites = siteCircles(at, site);
    for (let i = 0; i < n; i++) {
      let sx = 0, sy = 0, sw = 0;
      const pull = (j: number, w: number, d: number, ux: number, uy: number) => {
        sx += w * (at[j][0] + d * ux); sy += w * (at[j][1] + d * uy); sw += w;
      };
      for (const [j, k] of links[i]) {
        const dx = at[i][0] - at[j][0], dy = at[i][1] - at[j][1];
        let angle = Math.atan2(dy, dx);
        // Octant of the circuit as seen from j towards i: its own octant from a, the opposite from b.
        if (turn > 0 && oct[k] >= 0) {
          const want = (ends[k][0] === j ? oct[k] : oct[k] + 4) * OCTANT;
          let delta = want - angle;
          delta -= 2 * Math.PI * Math.round(delta / (2 * Math.PI));
          angle += delta * turn;
        }
        pull(j, EDGE_WEIGHT, length, Math.cos(angle), Math.sin(angle));
      }
      for (let j = 0; j < n; j++) {
        if (j === i || linked[i * n + j] === 1) continue;
        const dx = at[i][0] - at[j][0], dy = at[i][1] - at[j][1];
        const together = site[i] >= 0 && site[i] === site[j];
        const room = length * (site[i] !== site[j] && (site[i] >= 0 || site[j] >= 0) ? SITE_ROOM : options.room ?? ROOM);
        // Further apart along one axis than the room: no nearer in all (hypot.ts is never below either).
        if (!together && (Math.abs(dx) >= room || Math.abs(dy) >= room)) continue;
        const d = hypot(dx, dy);
        if (!together && d >= room) continue;
        const [ux, uy] = d > 1e-9 ? [dx / d, dy / d] : [Math.cos(i + j), Math.sin(i + j)];
        pull(j, together ? SITE_WEIGHT : ROOM_WEIGHT, together ? length : room, ux, uy);
      }
      // Clear of other sites: no nearer a site's centre than its routers are, and a little room more.
      for (const [s, circle] of sites) {
        if (s === site[i]) continue;
        const cx = circle[0], cy = circle[1], r = circle[2];
        const dx = at[i][0] - cx, dy = at[i][1] - cy, d = hypot(dx, dy), room = r + SITE_CLEAR * length;
        if (d >= room) continue;
        const [ux, uy] = d > 1e-9 ? [dx / d, dy / d] : [Math.cos(i), Math.sin(i)];
        sx += ROOM_WEIGHT * (cx + room * ux); sy += ROOM_WEIGHT * (cy + room * uy); sw += ROOM_WEIGHT;
      }
      if (sw === 0) continue;
      const nx = sx / sw, ny = sy / sw;
      const was = at[i];
      moveTo(i, [nx, ny]);
      moved = Math.max(moved, hypot(was[0] - at[i][0], was[1] - at[i][1]));
    }
    if (options.keepCrossings) {
      const ordered = at.map((p): Pt => [p[0], p[1]]);
      keepCompassOrder(ordered, geo, COMPASS_GAP * length, order);
      ordered.forEach((p, i) => { moveTo(i, p); });
    } else keepCompassOrder(at, geo, COMPASS_GAP * length, order);
    if (turn === 0 && round < OCTILINEAR_FROM * rounds - 1 && moved < STILL * length) round = Math.ceil(OCTILINEAR_FROM * rounds) - 1;
    else if (turn > 0 && moved < STILL * length) break;
  }
  return at;
}
