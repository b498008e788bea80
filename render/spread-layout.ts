// Cluster layouts for spreading markers (spread.ts). Markers at one point, or
// a crowd too dense to push apart, are laid out around the centre of their
// true positions: two side by side along the line between them, up to seven
// on a ring in the order of their bearings from the centre, more on a grid in
// their north-to-south, west-to-east order. Overlapping markers join one
// cluster (union-find); a laid-out cluster that overlaps another marker merges
// with it and is laid out again, until nothing overlaps (each round merges
// clusters, so it ends).
import type { Rect } from './box-index.ts';
import { BoxGrid } from './box-grid.ts';
import type { Pt } from './paths.ts';

const MAX_ROUNDS = 64;

export interface Marker {
  /** True position in picture units. */
  at: Pt;
  /** The marker's box around its position: offsets (left and top negative). */
  box: Rect;
}

export const rectAt = (m: Marker, p: Pt, pad: number): Rect => ({
  x0: p[0] + m.box.x0 - pad, y0: p[1] + m.box.y0 - pad, x1: p[0] + m.box.x1 + pad, y1: p[1] + m.box.y1 + pad,
});

/**
 * Overlapping markers join one cluster (union-find), laid out around the
 * centre of its members' true positions; a laid-out cluster that overlaps
 * another marker merges with it and is laid out again (each round merges, so
 * it ends).
 */
export function clusters(markers: readonly Marker[], pos: Pt[], gap: number, maxSide: number): void {
  const parent = markers.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const near = new Int32Array(markers.length);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const rects = markers.map((m, i) => rectAt(m, pos[i], gap / 2));
    const grid = new BoxGrid(maxSide + gap, rects);
    const merged = new Set<number>();
    // Each overlapping pair once; a component's root is its least member whatever order they join in.
    rects.forEach((r, i) => {
      const count = grid.overlapping(r, near);
      for (let k = 0; k < count; k++) {
        const j = near[k];
        if (j >= i) continue;
        const a = find(i), b = find(j);
        if (a === b) continue; // members of a laid-out cluster are apart by construction
        const root = Math.min(a, b);
        parent[a] = parent[b] = root;
        merged.add(root);
      }
    });
    if (merged.size === 0) return;
    const members = new Map<number, number[]>();
    markers.forEach((_, i) => {
      const root = find(i);
      if (!merged.has(root)) return;
      const list = members.get(root);
      if (list) list.push(i);
      else members.set(root, [i]);
    });
    for (const group of members.values()) layOut(group, markers, pos, gap);
  }
}

/** Places a cluster's members around the centre of their true positions, apart by their box sizes plus `gap`. */
export function layOut(group: number[], markers: readonly Marker[], pos: Pt[], gap: number): void {
  const n = group.length;
  const cx = group.reduce((s, i) => s + markers[i].at[0], 0) / n;
  const cy = group.reduce((s, i) => s + markers[i].at[1], 0) / n;
  const cellW = Math.max(...group.map((i) => markers[i].box.x1 - markers[i].box.x0)) + gap;
  const cellH = Math.max(...group.map((i) => markers[i].box.y1 - markers[i].box.y0)) + gap;
  // Box centres may sit off the anchor (a template's text below its marker): keep the boxes apart, not the anchors.
  const mid = (i: number): Pt => [(markers[i].box.x0 + markers[i].box.x1) / 2, (markers[i].box.y0 + markers[i].box.y1) / 2];
  const place = (i: number, x: number, y: number) => {
    const [mx, my] = mid(i);
    pos[i] = [x - mx, y - my];
  };
  const bearing = (i: number) => Math.atan2(markers[i].at[1] - cy, markers[i].at[0] - cx);
  const away = (i: number) => Math.hypot(markers[i].at[0] - cx, markers[i].at[1] - cy) > 1e-6;
  if (n === 2) {
    const [a, b] = group;
    let ux = markers[b].at[0] - markers[a].at[0], uy = markers[b].at[1] - markers[a].at[1];
    const len = Math.hypot(ux, uy);
    [ux, uy] = len > 1e-6 ? [ux / len, uy / len] : [1, 0];
    // Along that line, the distance at which the two boxes clear each other in x or in y.
    const t = Math.min(Math.abs(ux) > 1e-9 ? cellW / Math.abs(ux) : Infinity, Math.abs(uy) > 1e-9 ? cellH / Math.abs(uy) : Infinity);
    place(a, cx - (ux * t) / 2, cy - (uy * t) / 2);
    place(b, cx + (ux * t) / 2, cy + (uy * t) / 2);
    return;
  }
  if (n <= 7) {
    // Neighbours on the ring are a chord apart; a chord as long as the cell's diagonal clears in x or y.
    const r = Math.hypot(cellW, cellH) / (2 * Math.sin(Math.PI / n));
    const order = [...group].sort((i, j) => (away(i) ? bearing(i) : -Math.PI) - (away(j) ? bearing(j) : -Math.PI) || i - j);
    const start = away(order[0]) ? bearing(order[0]) : -Math.PI / 2;
    order.forEach((i, k) => {
      const a = start + (2 * Math.PI * k) / n;
      place(i, cx + r * Math.cos(a), cy + r * Math.sin(a));
    });
    return;
  }
  const cols = Math.ceil(Math.sqrt(n)), rows = Math.ceil(n / cols);
  const order = [...group].sort((i, j) => markers[i].at[1] - markers[j].at[1] || markers[i].at[0] - markers[j].at[0] || i - j);
  // Row by row, north first; within a row, west first.
  for (let r = 0; r < rows; r++) {
    const row = order.slice(r * cols, (r + 1) * cols).sort((i, j) => markers[i].at[0] - markers[j].at[0] || i - j);
    row.forEach((i, c) => { place(i, cx + (c - (row.length - 1) / 2) * cellW, cy + (r - (rows - 1) / 2) * cellH); });
  }
}
