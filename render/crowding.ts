// How crowded a picture's nodes are: the median distance from a node's
// position to the nearest other position (positions held by several nodes,
// a site's routers, count once: spreading lays those out on a ring anyway).
// The geographic frame (projection.ts contentFrame) reads it to give dense
// content room, so that markers keep their places instead of being pushed
// into one block (spread.ts).
import type { Pt } from './paths.ts';
import { dataBox } from './marker-box.ts';
import type { Crowd } from './projection.ts';
import type { TopologyNode } from './types.ts';

/** The room a marker of `nodes` takes: the median marker's longer side (its data box, marker-box.ts) and `gap`. */
export function crowdOf(nodes: readonly TopologyNode[], gap: number): Crowd {
  const leaves = nodes.filter((n) => !n.children);
  const sides = leaves.map((n) => { const { w, h } = dataBox(n); return Math.max(w, h); }).sort((a, b) => a - b);
  return { nodes: leaves.map((n) => n.coordinate), room: sides.length > 0 ? sides[sides.length >> 1] + gap : 0 };
}

/** The median, over the points of `points`, of the distance to the nearest point at another position; 0 when there is none. */
export function medianNearest(points: readonly Pt[]): number {
  const xs: number[] = [], ys: number[] = [];
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const p of points) {
    const x = p[0], y = p[1];
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    xs.push(x); ys.push(y);
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  const n = xs.length;
  if (n < 2 || (x1 === x0 && y1 === y0)) return 0;
  // A grid of about one point a cell, filed by counting sort; each point looks in rings of cells around its own
  // until no nearer point can lie further out.
  const cell = Math.max(Math.sqrt(((x1 - x0) * (y1 - y0)) / n), (x1 - x0 + y1 - y0) / (2 * n));
  const cols = Math.floor((x1 - x0) / cell) + 1, rows = Math.floor((y1 - y0) / cell) + 1;
  const col = new Int32Array(n), row = new Int32Array(n), start = new Int32Array(cols * rows + 1), ids = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    col[i] = Math.floor((xs[i] - x0) / cell); row[i] = Math.floor((ys[i] - y0) / cell);
    start[row[i] * cols + col[i] + 1]++;
  }
  for (let k = 0; k < cols * rows; k++) start[k + 1] += start[k];
  const next = start.slice(0, cols * rows);
  for (let i = 0; i < n; i++) ids[next[row[i] * cols + col[i]]++] = i;
  const nearest = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let best = Infinity;
    // Ring `ring` holds no point nearer than (ring - 1) cells: stop once that is beyond the best found.
    for (let ring = 0; ring <= Math.max(cols, rows) && ((ring - 1) * cell) ** 2 < best; ring++) {
      for (let r = Math.max(0, row[i] - ring); r <= Math.min(rows - 1, row[i] + ring); r++) {
        // The ring's cells in this row: all of them on its top and bottom rows, its two ends on the others.
        const edge = Math.abs(r - row[i]) === ring, step = edge ? 1 : Math.max(1, 2 * ring);
        for (let c = col[i] - ring; c <= col[i] + ring; c += step) {
          if (c < 0 || c >= cols) continue;
          for (let p = start[r * cols + c], end = start[r * cols + c + 1]; p < end; p++) {
            const dx = xs[ids[p]] - xs[i], dy = ys[ids[p]] - ys[i], d = dx * dx + dy * dy;
            if (d > 0 && d < best) best = d;
          }
        }
      }
    }
    nearest[i] = best;
  }
  nearest.sort();
  const median = nearest[n >> 1];
  return Number.isFinite(median) ? Math.sqrt(median) : 0;
}
