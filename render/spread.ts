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

const centre = (m: Marker, p: Pt): Pt => [p[0] + (m.box.x0 + m.box.x1) / 2, p[1] + (m.box.y0 + m.box.y1) / 2];

/**
 * Pushes overlapping pairs apart along the line between their boxes' centres
 * (their true bearing), each half the way, until none overlaps; nodes that
 * overlap nothing never move, so the geography stays as it is elsewhere.
 * Markers at one point part in a direction set by their order. True when
 * nothing overlaps any more.
 */
function relax(markers: readonly Marker[], pos: Pt[], gap: number, maxSide: number): boolean {
  let best = Infinity, since = 0;
  const index = new BoxIndex(maxSide + gap);
  for (let round = 0; round < RELAX_ROUNDS; round++) {
    index.clear();
    markers.forEach((m, i) => { index.add(rectAt(m, pos[i], gap / 2)); });
    let moved = false;
    let pairs = 0;
    markers.forEach((m, i) => {
      index.each(rectAt(m, pos[i], gap / 2), (j) => {
        if (j <= i) return;
        const n = markers[j];
        const [ax, ay] = centre(m, pos[i]), [bx, by] = centre(n, pos[j]);
        let ux = bx - ax, uy = by - ay;
        const d = Math.hypot(ux, uy);
        if (d > 1e-6) { ux /= d; uy /= d; }
        else {
          const a = (j - i) * 2.399963 + i * 0.7;
          [ux, uy] = [Math.cos(a), Math.sin(a)];
        }
        const w = (m.box.x1 - m.box.x0 + n.box.x1 - n.box.x0) / 2 + gap, h = (m.box.y1 - m.box.y0 + n.box.y1 - n.box.y0) / 2 + gap;
        // Along that line, the distance at which the boxes clear in x or in y.
        const t = Math.min(Math.abs(ux) > 1e-9 ? w / Math.abs(ux) : Infinity, Math.abs(uy) > 1e-9 ? h / Math.abs(uy) : Infinity);
        const push = (t - d) / 2 + 0.01;
        if (push <= 0) return;
        pos[i] = [pos[i][0] - ux * push, pos[i][1] - uy * push];
        pos[j] = [pos[j][0] + ux * push, pos[j][1] + uy * push];
        moved = true;
        pairs++;
      });
    });
    if (!moved) return true;
    // A crowd too dense to untie by pushing stops getting better: give up early, the clusters take over.
    if (pairs < best * 0.95) { best = pairs; since = 0; }
    else if (++since >= STALLED_ROUNDS) break;
  }
  index.clear();
  return markers.every((m, i) => {
    const clear = !index.blocked(rectAt(m, pos[i], gap / 2 - 0.01));
    index.add(rectAt(m, pos[i], gap / 2 - 0.01));
    return clear;
  });
}
