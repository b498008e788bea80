// The geometry of a finished drawing, whoever drew it (our layouts, or
// Graphviz's read back by the tests and the bench): node boxes by name,
// edges as polylines between two named nodes, cluster boxes. Counts proper
// crossings between edges with no node in common, and edges drawn through a
// node they do not end at. Pure arithmetic: render/layout-quality.ts
// measures drawings with it, logical-layout.ts picks among its candidates.

export type P = [number, number];
export interface Rect { x: number; y: number; w: number; h: number }
/**
 * Whether segment p-q comes into the box of size b centred on c, its sides
 * moved out by `grow` px (a negative grow shrinks it: grazing is not
 * through). Liang-Barsky clipping.
 */
export function segmentMeetsBox(p: P, q: P, c: P, b: { w: number; h: number }, grow: number): boolean {
  const x0 = c[0] - b.w / 2 - grow, x1 = c[0] + b.w / 2 + grow, y0 = c[1] - b.h / 2 - grow, y1 = c[1] + b.h / 2 + grow;
  let t0 = 0, t1 = 1;
  const dx = q[0] - p[0], dy = q[1] - p[1];
  for (const [pp, qq] of [[-dx, p[0] - x0], [dx, x1 - p[0]], [-dy, p[1] - y0], [dy, y1 - p[1]]]) {
    if (Math.abs(pp) < 1e-12) { if (qq < 0) return false; continue; }
    const t = qq / pp;
    if (pp < 0) { if (t > t1) return false; if (t > t0) t0 = t; } else { if (t < t0) return false; if (t < t1) t1 = t; }
  }
  return t1 - t0 > 1e-9;
}

/** An edge as drawn: its two nodes (by name) and its polyline. */
export interface Line { a: string; b: string; pts: P[] }
export interface Drawing {
  nodes: Map<string, Rect>;
  lines: Line[];
  /** Cluster name -> box, title box (ours: from the title text; dot's: none). */
  clusters: Map<string, { box: Rect; title?: Rect }>;
  width: number;
  height: number;
}

const side = (o: P, a: P, b: P) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
const EPS = 1e-6;
/** Proper crossing of two segments (touching or overlapping is not a crossing). */
export function segmentsCross(p1: P, p2: P, q1: P, q2: P): boolean {
  const d1 = side(q1, q2, p1), d2 = side(q1, q2, p2), d3 = side(p1, p2, q1), d4 = side(p1, p2, q2);
  return ((d1 > EPS && d2 < -EPS) || (d1 < -EPS && d2 > EPS)) && ((d3 > EPS && d4 < -EPS) || (d3 < -EPS && d4 > EPS));
}

/** Points where two edges with no node in common cross. */
export function crossings(lines: Line[]): number {
  let n = 0;
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const A = lines[i], B = lines[j];
      if (A.a === B.a || A.a === B.b || A.b === B.a || A.b === B.b) continue;
      for (let s = 0; s + 1 < A.pts.length; s++) {
        for (let t = 0; t + 1 < B.pts.length; t++) if (segmentsCross(A.pts[s], A.pts[s + 1], B.pts[t], B.pts[t + 1])) n++;
      }
    }
  }
  return n;
}

/** Whether segment p-q enters the inside of `r` (Liang-Barsky clipping). */
function segmentEnters(p: P, q: P, r: Rect): boolean {
  let t0 = 0, t1 = 1;
  const dx = q[0] - p[0], dy = q[1] - p[1];
  for (const [pp, qq] of [[-dx, p[0] - r.x], [dx, r.x + r.w - p[0]], [-dy, p[1] - r.y], [dy, r.y + r.h - p[1]]]) {
    if (Math.abs(pp) < 1e-12) { if (qq < 0) return false; continue; }
    const t = qq / pp;
    if (pp < 0) { if (t > t1) return false; if (t > t0) t0 = t; } else { if (t < t0) return false; if (t < t1) t1 = t; }
  }
  return t1 - t0 > 1e-9;
}

/** "edge through node" for every edge that enters a node (shrunk by 1 px: grazing is not through) it does not end at. */
export function throughNodes(d: Pick<Drawing, 'nodes' | 'lines'>): string[] {
  const out: string[] = [];
  for (const l of d.lines) {
    for (const [name, r] of d.nodes) {
      if (name === l.a || name === l.b) continue;
      const inner = { x: r.x + 1, y: r.y + 1, w: r.w - 2, h: r.h - 2 };
      if (l.pts.some((p, i) => i > 0 && segmentEnters(l.pts[i - 1], p, inner))) out.push(`${l.a}-${l.b} through ${name}`);
    }
  }
  return out;
}
