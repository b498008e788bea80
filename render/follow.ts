// Circuits drawn between spread nodes (docs/render.md: Co-located sites):
// a circuit's points follow its ends to where they are shown, and parallel
// circuits between ends a few pixels apart are kept visibly apart.
import type { TopologyEdge } from './types.ts';
import type { Pt } from './paths.ts';

/**
 * The points of a circuit drawn between its ends' shown positions: each
 * point moved by the ends' moves, blended along the line. Parallel circuits
 * (three points: ends and offset midpoint) keep their midpoints at least
 * `minApart` from the straight line, stepping by their index, so two 400G
 * circuits between data centres 3 km apart are two arcs, not one line.
 */
export function follow(at: Pt[], da: Pt, db: Pt, e: TopologyEdge, minApart: number): Pt[] {
  const k = Number(e.meta.parallel_count ?? 1), i = Number(e.meta.parallel_index ?? 0);
  // Ends where they were and no parallel circuit to keep apart (most circuits of a large picture): the points as they are.
  if (da[0] === 0 && da[1] === 0 && db[0] === 0 && db[1] === 0 && !(k > 1)) return at;
  const lens = [0];
  for (let i = 1; i < at.length; i++) lens.push(lens[i - 1] + Math.hypot(at[i][0] - at[i - 1][0], at[i][1] - at[i - 1][1]));
  const total = lens[lens.length - 1];
  const pts = at.map(([x, y], i): Pt => {
    // A circuit between two routers of one site starts with its points at one place: blended by index, its ends go
    // to their two markers and it is drawn as a short bar between them (by length, all would follow the first: a loop).
    const t = total > 0 ? lens[i] / total : i / (at.length - 1);
    return [x + da[0] * (1 - t) + db[0] * t, y + da[1] * (1 - t) + db[1] * t];
  });
  if (pts.length !== 3 || !(k > 1) || !Number.isFinite(i)) return pts;
  const [a, m, b] = pts;
  const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
  if (len < 1e-6) return pts;
  // The normal of the chord taken west to east (north to south when vertical), whichever way the circuit runs.
  const flip = a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]) ? -1 : 1;
  const nx = (-(b[1] - a[1]) / len) * flip, ny = ((b[0] - a[0]) / len) * flip;
  const cx = (a[0] + b[0]) / 2, cy = (a[1] + b[1]) / 2;
  const off = (m[0] - cx) * nx + (m[1] - cy) * ny;
  const want = (i - (k - 1) / 2) * minApart;
  if (Math.abs(off) >= Math.abs(want)) return pts;
  // Keep the side the data gave it, at least `want` out; ends at one point give no side, then the index decides.
  const side = Math.abs(off) > 1e-6 ? Math.sign(off) : Math.sign(want);
  const o = side * Math.max(Math.abs(off), Math.abs(want));
  return [a, [cx + nx * o, cy + ny * o], b];
}
