// Stress layout (stress majorization, as Graphviz `neato` draws by default):
// node positions whose distances follow the graph's own, so circuits come
// out short and alike, a ring a ring and a mesh a mesh, with straight edges
// and no bends. Three starts (stress-drawing.ts tries them and keeps the
// best drawing): the nodes' geography when they all have coordinates, then
// held in compass order after every round (compass-order.ts), so the
// schematic keeps west west and north north; classical multidimensional
// scaling of the hop distances, as neato starts; a circle in breadth-first
// order. Routers of one site are held together (their pairs weigh more).
// Deterministic: no randomness, a bounded number of rounds. Pure
// arithmetic, O(n^2) a round: for graphs of a few hundred nodes
// (logical-layout.ts decides which graphs get it).
import { keepCompassOrder } from './compass-order.ts';
import { hypot } from './hypot.ts';
import type { Pt } from './paths.ts';

/** Rounds of majorization: the stress of the corpus graphs stops falling well before. */
const ROUNDS = 300;
const STILL = 1e-4;
/** The least distance along an axis between nodes of different coordinates in a schematic, in ideal edge lengths. */
export const COMPASS_GAP = 0.08;
/** How much more a pair of routers of one site weighs: enough that a site's box stays small and clear of others. */
const SITE_WEIGHT = 4;
/** Rounds of power iteration for the classical scaling start. */
const POWER_ROUNDS = 100;

export type Start = 'geography' | 'scaling' | 'circle';

/** Hop distances from every node (breadth-first); unreachable pairs get the longest distance found plus one. */
function hops(n: number, links: readonly (readonly [number, number])[]): number[][] {
  const adj: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of links) if (a !== b) { adj[a].push(b); adj[b].push(a); }
  const d = Array.from({ length: n }, () => new Array<number>(n).fill(Infinity));
  let longest = 1;
  for (let s = 0; s < n; s++) {
    d[s][s] = 0;
    const queue = [s];
    for (let q = 0; q < queue.length; q++) {
      const u = queue[q];
      for (const v of adj[u]) if (d[s][v] === Infinity) { d[s][v] = d[s][u] + 1; longest = Math.max(longest, d[s][v]); queue.push(v); }
    }
  }
  for (const row of d) for (let j = 0; j < n; j++) if (row[j] === Infinity) row[j] = longest + 1;
  return d;
}

/** The geography (longitude east, latitude north up) scaled to the graph's size. */
function fromGeography(geo: readonly Pt[], radius: number): Pt[] {
  const xs = geo.map((p) => p[1]), ys = geo.map((p) => -p[0]);
  const [x0, y0] = [Math.min(...xs), Math.min(...ys)];
  const span = Math.max(Math.max(...xs) - x0, Math.max(...ys) - y0, 1e-9);
  return geo.map((_, i): Pt => [((xs[i] - x0) / span) * 2 * radius, ((ys[i] - y0) / span) * 2 * radius]);
}

/** A circle in breadth-first order from node 0. */
function circle(n: number, d: number[][], radius: number): Pt[] {
  const order = [...Array(n).keys()].sort((a, b) => d[0][a] - d[0][b] || a - b);
  const at = new Array<Pt>(n);
  order.forEach((v, k) => { at[v] = [radius * Math.cos((2 * Math.PI * k) / n), radius * Math.sin((2 * Math.PI * k) / n)]; });
  return at;
}

/**
 * Classical scaling (Torgerson): the two leading eigenvectors of the doubly
 * centred squared distances, by power iteration from fixed vectors.
 */
function scaling(n: number, d: number[][], length: number): Pt[] {
  const sq = d.map((row) => row.map((v) => v * v));
  const rowMean = sq.map((row) => row.reduce((s, v) => s + v, 0) / n);
  const all = rowMean.reduce((s, v) => s + v, 0) / n;
  const B = sq.map((row, i) => row.map((v, j) => -0.5 * (v - rowMean[i] - rowMean[j] + all)));
  const vectors: number[][] = [];
  const values: number[] = [];
  for (let k = 0; k < 2; k++) {
    let v = Array.from({ length: n }, (_, i) => Math.cos(i * (k + 1) + k));
    let lambda = 0;
    for (let round = 0; round < POWER_ROUNDS; round++) {
      const w = B.map((row) => row.reduce((s, b, j) => s + b * v[j], 0));
      for (let p = 0; p < vectors.length; p++) {
        const dot = w.reduce((s, x, i) => s + x * vectors[p][i], 0);
        for (let i = 0; i < n; i++) w[i] -= dot * vectors[p][i];
      }
      const norm = Math.hypot(...w) || 1;
      lambda = norm;
      v = w.map((x) => x / norm);
    }
    vectors.push(v);
    values.push(lambda);
  }
  return vectors[0].map((_, i): Pt => [vectors[0][i] * Math.sqrt(values[0]) * length, vectors[1][i] * Math.sqrt(values[1]) * length]);
}

export interface StressOptions {
  start: Start;
  /** [lat, lng] per node: the geography start, and the compass order kept. */
  geo?: readonly Pt[];
  /** Each node's site (-1: none): routers of one site are held together. */
  site?: readonly number[];
  /** How far each round moves the nodes towards compass order (1: all the way; stress-drawing.ts tries several). */
  order?: number;

}

/** Positions (px) of `n` nodes linked by `links`, ideal edge length `length`. */
export function stressLayout(n: number, links: readonly (readonly [number, number])[], length: number, options: StressOptions): Pt[] {
  if (n === 0) return [];
  const d = hops(n, links);
  const radius = (length * n) / (2 * Math.PI);
  const { geo, site } = options;
  const x = options.start === 'geography' && geo ? fromGeography(geo, radius)
    : options.start === 'scaling' && n > 2 ? scaling(n, d, length) : circle(n, d, radius);
  const ordered = options.start === 'geography' && geo;
  // Each pair's ideal distance and weight, once: the rounds only read them (row i, column j at i * n + j).
  const ideal = new Float64Array(n * n), weight = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const dij = d[i][j] * length;
      ideal[i * n + j] = dij;
      weight[i * n + j] = (site && site[i] >= 0 && site[i] === site[j] ? SITE_WEIGHT : 1) / (dij * dij);
    }
  }
  // The positions also as one flat array (x, y of node i at 2i, 2i + 1), which the rounds read, kept equal to `x`.
  const flat = new Float64Array(2 * n);
  const copy = () => { for (let i = 0; i < n; i++) { flat[2 * i] = x[i][0]; flat[2 * i + 1] = x[i][1]; } };
  copy();
  for (let round = 0; round < ROUNDS; round++) {
    let moved = 0;
    for (let i = 0; i < n; i++) {
      let sx = 0, sy = 0, sw = 0;
      const xi = flat[2 * i], yi = flat[2 * i + 1];
      for (let j = 0, k = i * n; j < n; j++, k++) {
        if (j === i) continue;
        const dij = ideal[k], w = weight[k];
        const xj = flat[2 * j], yj = flat[2 * j + 1];
        const dx = xi - xj, dy = yi - yj;
        const now = hypot(dx, dy) || 1e-6;
        sx += w * (xj + (dij * dx) / now);
        sy += w * (yj + (dij * dy) / now);
        sw += w;
      }
      const nx = sx / sw, ny = sy / sw;
      moved = Math.max(moved, hypot(nx - xi, ny - yi));
      x[i] = [nx, ny];
      flat[2 * i] = nx; flat[2 * i + 1] = ny;
    }
    if (ordered) { keepCompassOrder(x, geo, COMPASS_GAP * length, options.order ?? 1); copy(); }
    if (moved < STILL * length) break;
  }
  return x;
}
