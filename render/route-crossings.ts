// Crossings of a routed logical layout, counted on ELK's own routes: the
// points where two edges with no node in common cross, segment against
// segment. The test and the benchmark count dot's drawing, and ours read back
// from the SVG, the same way (drawing-geometry.ts): a proper
// crossing of two segments, touching or running along each other is none.
// ELK's routes run from node border to node border; the picture adds a piece
// from the border to the node's centre, inside the node, where no other edge
// passes, so both counts agree.

const EPS = 1e-6;
type Pt = [number, number];
const side = (o: Pt, a: Pt, b: Pt) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
const apart = (u: number, v: number) => (u > EPS && v < -EPS) || (u < -EPS && v > EPS);

/** Points where two routes cross, over pairs of edges with no node in common. Boxes are compared first: most pairs are far apart. */
export function routeCrossings(ends: [number, number][], routes: Record<string, Pt[]>): number {
  const pts = ends.map((_, i) => routes[`e${i}`] ?? []);
  const boxes = pts.map((P) => {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const [x, y] of P) { if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y; }
    return [x0, y0, x1, y1];
  });
  let n = 0;
  for (let i = 0; i < ends.length; i++) {
    const [a, b] = ends[i], P = pts[i], bi = boxes[i];
    for (let j = i + 1; j < ends.length; j++) {
      const [c, d] = ends[j], bj = boxes[j];
      if (a === c || a === d || b === c || b === d) continue;
      if (bi[2] < bj[0] || bj[2] < bi[0] || bi[3] < bj[1] || bj[3] < bi[1]) continue;
      const Q = pts[j];
      for (let s = 1; s < P.length; s++) {
        for (let t = 1; t < Q.length; t++) {
          if (apart(side(Q[t - 1], Q[t], P[s - 1]), side(Q[t - 1], Q[t], P[s])) && apart(side(P[s - 1], P[s], Q[t - 1]), side(P[s - 1], P[s], Q[t]))) n++;
        }
      }
    }
  }
  return n;
}
