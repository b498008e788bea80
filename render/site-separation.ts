// Site boxes pushed apart in a stress drawing (stress-drawing.ts) where
// spreading the whole drawing cannot part them (stress-clusters.ts): a
// site whose routers the layout put far apart covers a router of another
// site between them (the North America demo: Jacksonville inside
// Atlanta's box), and a uniform scale grows both alike. Each site moves as
// one piece (its routers keep their places within it), as does a router of
// no site; two overlapping pieces move apart along the axis where they
// overlap least, each half the way, in the direction they already lie, so
// the compass order along that axis is kept. Deterministic, O(rounds * pieces^2).
import type { Pt } from './paths.ts';
import { routerBox, type Site, siteBoxes, spreadForSites } from './stress-clusters.ts';

type Box = { w: number; h: number };
type Rect = [x: number, y: number, w: number, h: number];

/** Room kept between two pieces (px), a little more than stress-clusters.ts asks. */
const ROOM = 8;
const ROUNDS = 200;

/** Moves the pieces of `c` (router centres, px) in place until no two overlap; false when ROUNDS do not do it. */
export function separateSites(c: Pt[], boxes: readonly Box[], sites: readonly Site[]): boolean {
  const inSite = new Set(sites.flatMap((s) => s.members));
  const loose = c.map((_, i) => i).filter((i) => !inSite.has(i));
  const pieces = [...sites.map((s) => s.members), ...loose.map((i) => [i])];
  const rects = (): Rect[] => [
    ...siteBoxes(c, boxes, sites),
    ...loose.map((i) => routerBox(c[i], boxes[i])),
  ];
  const move = (piece: readonly number[], dx: number, dy: number) => { for (const i of piece) c[i] = [c[i][0] + dx, c[i][1] + dy]; };
  for (let round = 0; round < ROUNDS; round++) {
    let any = false;
    const r = rects();
    for (let a = 0; a < pieces.length; a++) {
      for (let b = a + 1; b < pieces.length; b++) {
        const [A, B] = [r[a], r[b]];
        const px = Math.min(A[0] + A[2], B[0] + B[2]) - Math.max(A[0], B[0]) + ROOM;
        const py = Math.min(A[1] + A[3], B[1] + B[3]) - Math.max(A[1], B[1]) + ROOM;
        if (px <= 0 || py <= 0) continue;
        any = true;
        // Along the axis of least overlap, in the order the two already lie (by centre; equal: by index).
        const along = px <= py ? 0 : 1;
        const d = (B[along] + B[along + 2] / 2) - (A[along] + A[along + 2] / 2);
        const half = ((along === 0 ? px : py) / 2) * (d < 0 ? -1 : 1);
        move(pieces[a], along === 0 ? -half : 0, along === 1 ? -half : 0);
        move(pieces[b], along === 0 ? half : 0, along === 1 ? half : 0);
        r[a] = along === 0 ? [A[0] - half, A[1], A[2], A[3]] : [A[0], A[1] - half, A[2], A[3]];
        r[b] = along === 0 ? [B[0] + half, B[1], B[2], B[3]] : [B[0], B[1] + half, B[2], B[3]];
      }
    }
    if (!any) return true;
  }
  return false;
}

/**
 * `at` placed (`place`: positions to centres, or null) with its site boxes
 * clear: spread as stress-clusters.ts does, else, where that cannot part
 * them, with the sites moved apart, if that crosses (`crossings`) no more.
 */
export function spreadOrSeparate(at: readonly Pt[], boxes: readonly Box[], sites: readonly Site[], place: (at: Pt[]) => Pt[] | null, crossings: (at: readonly Pt[]) => number): Pt[] | null {
  const spread = spreadForSites(at, boxes, sites, place);
  if (spread || sites.length === 0) return spread;
  const c = place(at.map((p): Pt => [p[0], p[1]]));
  if (!c || !separateSites(c, boxes, sites) || crossings(c) > crossings(at)) return null;
  return spreadForSites(c, boxes, sites, place);
}
