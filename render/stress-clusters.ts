// Sites drawn as boxes around their routers in a stress drawing
// (stress-drawing.ts), as ELK draws its compound nodes: each box is its
// members' boxes with room for the title above (logical-graph.ts
// CLUSTER_PAD), at least as wide as its title. Boxes must not overlap one
// another or cover a router of another site; where they do, the drawing is
// spread further (a scale keeps every angle, crossing and compass order),
// and with no scale that clears them, there is no drawing.
import { CLUSTER_PAD } from './logical-graph.ts';
import type { Pt } from './paths.ts';

type Box = { w: number; h: number };
/** A site: its routers (indices) and the width its title needs. */
export interface Site { members: number[]; titleWidth: number }
type Rect = [x: number, y: number, w: number, h: number];

/** Room kept between two boxes (px). */
const ROOM = 6;
/** Spreading tried, step by step, before giving up. */
const SPREAD_STEP = 1.2;
const MAX_SPREAD = 6;

/** A router's box, centred at `p`. */
export const routerBox = (p: Pt, box: Box): Rect => [p[0] - box.w / 2, p[1] - box.h / 2, box.w, box.h];

/** A site's box around its routers at `c` (centres). */
export function siteBox({ members, titleWidth }: Site, c: readonly Pt[], boxes: readonly Box[]): Rect {
  const x0 = Math.min(...members.map((i) => c[i][0] - boxes[i].w / 2)) - CLUSTER_PAD.side;
  const x1 = Math.max(...members.map((i) => c[i][0] + boxes[i].w / 2)) + CLUSTER_PAD.side;
  const y0 = Math.min(...members.map((i) => c[i][1] - boxes[i].h / 2)) - CLUSTER_PAD.top;
  const y1 = Math.max(...members.map((i) => c[i][1] + boxes[i].h / 2)) + CLUSTER_PAD.bottom;
  const w = Math.max(x1 - x0, titleWidth + 2 * CLUSTER_PAD.side);
  return [x0 - (w - (x1 - x0)) / 2, y0, w, y1 - y0];
}

/** Each site's box around its routers at `c` (centres). */
export function siteBoxes(c: readonly Pt[], boxes: readonly Box[], sites: readonly Site[]): Rect[] {
  return sites.map((s) => siteBox(s, c, boxes));
}

/** Whether two boxes keep ROOM between them. */
export const apart = (a: Rect, b: Rect) => a[0] + a[2] + ROOM <= b[0] || b[0] + b[2] + ROOM <= a[0] || a[1] + a[3] + ROOM <= b[1] || b[1] + b[3] + ROOM <= a[1];

/** Whether the site boxes keep clear of one another and of every router that is not theirs. */
function clear(c: readonly Pt[], boxes: readonly Box[], sites: readonly Site[], rects: readonly Rect[]): boolean {
  const siteOf = new Map<number, number>();
  sites.forEach((s, k) => { for (const m of s.members) siteOf.set(m, k); });
  for (let a = 0; a < rects.length; a++) {
    for (let b = a + 1; b < rects.length; b++) if (!apart(rects[a], rects[b])) return false;
    for (let i = 0; i < c.length; i++) {
      if (siteOf.get(i) === a) continue;
      if (!apart(rects[a], routerBox(c[i], boxes[i]))) return false;
    }
  }
  return true;
}

/**
 * The smallest spreading of `at` (by SPREAD_STEP) whose placement (`place`:
 * positions to centres, or null) keeps the site boxes clear; null if none
 * up to MAX_SPREAD does.
 */
export function spreadForSites(at: readonly Pt[], boxes: readonly Box[], sites: readonly Site[], place: (at: Pt[]) => Pt[] | null): Pt[] | null {
  for (let s = 1; s <= MAX_SPREAD; s *= SPREAD_STEP) {
    const c = place(at.map((p): Pt => [p[0] * s, p[1] * s]));
    if (!c) return null;
    if (sites.length === 0 || clear(c, boxes, sites, siteBoxes(c, boxes, sites))) return c;
  }
  return null;
}
