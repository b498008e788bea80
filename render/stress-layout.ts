// Stress layout (stress majorization, as Graphviz `neato` draws by default):
// node positions whose distances follow the graph's own, so circuits come
// out short and alike, a ring a ring and a mesh a mesh, with straight edges
// and no bends. Started from the nodes' geography when they all have
// coordinates (the compass order of a backbone mostly survives), else from
// a circle in breadth-first order. Deterministic: no randomness, a fixed
// number of rounds. Pure arithmetic, O(n^2) a round: for graphs of a few
// hundred nodes (logical-layout.ts decides which graphs get it).
import type { Pt } from './paths.ts';

/** Rounds of majorization: the stress of the corpus graphs stops falling well before. */
const ROUNDS = 300;
const STILL = 1e-4;

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

/** A start: the geography (longitude east, latitude north up) scaled to the graph's size, else a circle in breadth-first order. */
function start(n: number, d: number[][], length: number, geo?: readonly Pt[]): Pt[] {
  const radius = (length * n) / (2 * Math.PI);
  if (geo) {
    const xs = geo.map((p) => p[1]), ys = geo.map((p) => -p[0]);
    const span = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys), 1e-9);
    return geo.map((_, i): Pt => [((xs[i] - Math.min(...xs)) / span) * 2 * radius, ((ys[i] - Math.min(...ys)) / span) * 2 * radius]);
  }
  const order = [...Array(n).keys()].sort((a, b) => d[0][a] - d[0][b] || a - b);
  const at = new Array<Pt>(n);
  order.forEach((v, k) => { at[v] = [radius * Math.cos((2 * Math.PI * k) / n), radius * Math.sin((2 * Math.PI * k) / n)]; });
  return at;
}

/**
 * Positions (px) of `n` nodes linked by `links`, ideal edge length `length`;
 * `geo` ([lat, lng] per node) starts from the geography.
 */
export function stressLayout(n: number, links: readonly (readonly [number, number])[], length: number, geo?: readonly Pt[]): Pt[] {
  if (n === 0) return [];
  const d = hops(n, links);
  const x = start(n, d, length, geo);
  for (let round = 0; round < ROUNDS; round++) {
    let moved = 0;
    for (let i = 0; i < n; i++) {
      let sx = 0, sy = 0, sw = 0;
      for (let j = 0; j < n; j++) {
        if (j === i) continue;
        const dij = d[i][j] * length, w = 1 / (dij * dij);
        const dx = x[i][0] - x[j][0], dy = x[i][1] - x[j][1];
        const now = Math.hypot(dx, dy) || 1e-6;
        sx += w * (x[j][0] + (dij * dx) / now);
        sy += w * (x[j][1] + (dij * dy) / now);
        sw += w;
      }
      const nx = sx / sw, ny = sy / sw;
      moved = Math.max(moved, Math.hypot(nx - x[i][0], ny - x[i][1]));
      x[i] = [nx, ny];
    }
    if (moved < STILL * length) break;
  }
  return x;
}
