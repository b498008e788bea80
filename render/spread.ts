// Spreads co-located markers (docs/render.md: Co-located sites): markers
// whose boxes would overlap at the picture's scale - two data centres of one
// metro, a router and the exchange point in the same building - are moved
// apart around their common centre until none overlaps another, so every
// marker is visible. Only the picture moves them; the topology keeps the true
// coordinates. Deterministic: the same input gives the same positions.
//
// Markers at one point start on a ring or grid around it (spread-layout.ts);
// then overlapping pairs are pushed apart until none overlaps, so markers
// that overlap nothing stay where they are. A crowd too dense for that is
// laid out as clusters (spread-layout.ts), which cannot overlap.
import { BoxIndex } from './box-index.ts';
import { BoxGrid } from './box-grid.ts';
import type { Pt } from './paths.ts';
import { clusters, layOut, rectAt, type Marker } from './spread-layout.ts';

const RELAX_ROUNDS = 120;
const STALLED_ROUNDS = 8;

/** Where each marker is drawn: its true position, or a spread one when it would overlap another. `gap` is the clear space kept between markers. */
export function spreadMarkers(markers: readonly Marker[], gap = 3): Pt[] {
  const pos: Pt[] = markers.map((m) => [m.at[0], m.at[1]]);
  if (markers.length < 2) return pos;
  const maxSide = Math.max(1, ...markers.map((m) => Math.max(m.box.x1 - m.box.x0, m.box.y1 - m.box.y0)));
  // Markers at one point (a site's routers) start from a ring or grid around it, which pushing alone would string out.
  const atPoint = new Map<string, number[]>();
  markers.forEach((m, i) => {
    const key = `${Math.round(m.at[0] * 2)},${Math.round(m.at[1] * 2)}`;
    const list = atPoint.get(key);
    if (list) list.push(i);
    else atPoint.set(key, [i]);
  });
  for (const group of atPoint.values()) if (group.length > 1) layOut(group, markers, pos, gap);
  if (relax(markers, pos, gap, maxSide)) return pos;
  // Dense knots relaxing did not untie: laid out as clusters, which cannot overlap.
  clusters(markers, pos, gap, maxSide);
  return pos;
}

/**
 * Pushes overlapping pairs apart along the line between their boxes' centres
 * (their true bearing), each half the way, until none overlaps; nodes that
 * overlap nothing never move, so the geography stays as it is elsewhere.
 * Markers at one point part in a direction set by their order. True when
 * nothing overlaps any more.
 */
function relax(markers: readonly Marker[], pos: Pt[], gap: number, maxSide: number): boolean {
  let best = Infinity, since = 0;
  const n = markers.length, pad = gap / 2;
  // Positions, box offsets and half sizes in flat arrays: this loop asks about every pair that overlaps, round after round.
  const px = Float64Array.from(pos, (p) => p[0]), py = Float64Array.from(pos, (p) => p[1]);
  const bx0 = Float64Array.from(markers, (m) => m.box.x0), by0 = Float64Array.from(markers, (m) => m.box.y0);
  const bx1 = Float64Array.from(markers, (m) => m.box.x1), by1 = Float64Array.from(markers, (m) => m.box.y1);
  const midX = Float64Array.from(markers, (m) => (m.box.x0 + m.box.x1) / 2), midY = Float64Array.from(markers, (m) => (m.box.y0 + m.box.y1) / 2);
  const near = new Int32Array(n);
  // The sides of the boxes where a round starts, refilled each round.
  const left = new Float64Array(n), top = new Float64Array(n), right = new Float64Array(n), bottom = new Float64Array(n);
  // Markers that moved in the round before (all, at first): a pair of which neither moved was apart at the end of that
  // round and still is, so only these ask. Most of a large picture settles in a few rounds while a knot takes dozens.
  let active = new Uint8Array(n).fill(1), moved = new Uint8Array(n);
  // The grid files boxes where they were when it was built; those moved since (drifted) are asked one by one, until
  // there are so many that building it again costs less.
  let grid: BoxGrid | null = null;
  const drifted = new Uint8Array(n), drift: number[] = [];
  const driftMax = 32 + (n >> 5);
  let pairs = 0;
  /** Pushes markers a < b apart along the line between their boxes' centres, when they overlap. */
  const part = (a: number, b: number) => {
    let ux = px[b] + midX[b] - (px[a] + midX[a]), uy = py[b] + midY[b] - (py[a] + midY[a]);
    const d = Math.hypot(ux, uy);
    if (d > 1e-6) { ux /= d; uy /= d; }
    else {
      const angle = (b - a) * 2.399963 + a * 0.7;
      ux = Math.cos(angle);
      uy = Math.sin(angle);
    }
    const w = (bx1[a] - bx0[a] + bx1[b] - bx0[b]) / 2 + gap, h = (by1[a] - by0[a] + by1[b] - by0[b]) / 2 + gap;
    // Along that line, the distance at which the boxes clear in x or in y.
    const t = Math.min(Math.abs(ux) > 1e-9 ? w / Math.abs(ux) : Infinity, Math.abs(uy) > 1e-9 ? h / Math.abs(uy) : Infinity);
    const push = (t - d) / 2 + 0.01;
    if (push <= 0) return;
    px[a] -= ux * push;
    py[a] -= uy * push;
    px[b] += ux * push;
    py[b] += uy * push;
    moved[a] = moved[b] = 1;
    pairs++;
  };
  let done = false;
  for (let round = 0; round < RELAX_ROUNDS; round++) {
    // The boxes where the round starts (only those that moved changed); each marker asks about them where it is by then.
    for (let i = 0; i < n; i++) {
      if (!active[i]) continue;
      left[i] = px[i] + bx0[i] - pad; top[i] = py[i] + by0[i] - pad; right[i] = px[i] + bx1[i] + pad; bottom[i] = py[i] + by1[i] + pad;
      if (grid && !drifted[i]) { drifted[i] = 1; drift.push(i); }
    }
    if (!grid || drift.length > driftMax) {
      grid = new BoxGrid(maxSide + gap, [left, top, right, bottom]);
      for (const i of drift) drifted[i] = 0;
      drift.length = 0;
    }
    pairs = 0;
    for (let i = 0; i < n; i++) {
      if (!active[i]) continue;
      const count = grid.overlappingSides(px[i] + bx0[i] - pad, py[i] + by0[i] - pad, px[i] + bx1[i] + pad, py[i] + by1[i] + pad, near);
      // Each pair once: from its first marker when both ask, else from the one that does.
      for (let k = 0; k < count; k++) {
        const j = near[k];
        if (j !== i && !drifted[j] && !(active[j] && j < i)) part(Math.min(i, j), Math.max(i, j));
      }
      // The drifted ones where they are now (the grid reads the same side arrays).
      for (const j of drift) {
        if (j !== i && !(active[j] && j < i) && grid.meets(j, px[i] + bx0[i] - pad, py[i] + by0[i] - pad, px[i] + bx1[i] + pad, py[i] + by1[i] + pad)) part(Math.min(i, j), Math.max(i, j));
      }
    }
    [active, moved] = [moved, active];
    moved.fill(0);
    if (pairs === 0) { done = true; break; }
    // A crowd too dense to untie by pushing stops getting better: give up early, the clusters take over.
    if (pairs < best * 0.95) { best = pairs; since = 0; }
    else if (++since >= STALLED_ROUNDS) break;
  }
  for (let i = 0; i < n; i++) pos[i] = [px[i], py[i]];
  if (done) return true;
  const index = new BoxIndex(maxSide + gap);
  return markers.every((m, i) => {
    const clear = !index.blocked(rectAt(m, pos[i], gap / 2 - 0.01));
    index.add(rectAt(m, pos[i], gap / 2 - 0.01));
    return clear;
  });
}
