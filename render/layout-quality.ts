// How good a drawing is, beyond crossings (docs/render.md: Layout quality):
// the measures the research on diagram quality names, taken the same way on
// our drawings and Graphviz's (drawing-geometry.ts). Shared by production
// (logical-layout.ts picks its drawing by it), the tests and `npm run bench -- render`.
//   crossings, edges through nodes (drawing-geometry.ts);
//   edge length (centre to centre): total and spread (coefficient of variation), in units of the
//     drawing's node spacing (the median distance from a node to its nearest
//     neighbour), so drawings at different scales compare;
//   bends: corners where an edge turns by more than 20 degrees (a sampled
//     spline bends where it turns that much between samples);
//   area per node: the box around nodes and edges over the node count, in
//     node spacings squared;
//   compass order kept: for nodes with coordinates, the share of pairs whose
//     east-west and north-south order the drawing keeps;
//   octilinear: the share of edges whose ends lie at 0/45/90 degrees (5 off).
import { compassPlacesOf } from './compass-order.ts';
import { crossings, throughNodes, type Drawing, type P } from './drawing-geometry.ts';
import { hypot } from './hypot.ts';

export interface Quality {
  crossings: number;
  through: number;
  totalLength: number;
  lengthCv: number;
  bends: number;
  areaPerNode: number;
  /** Share of node pairs (and axes) in compass order; null without coordinates. */
  compassKept: number | null;
  /** Share of edges whose ends lie within 5 degrees of a multiple of 45 from each other (a schematic's lines). */
  octilinear: number;
}

const centre = (r: { x: number; y: number; w: number; h: number }): P => [r.x + r.w / 2, r.y + r.h / 2];
const dist = (a: P, b: P) => hypot(a[0] - b[0], a[1] - b[1]);
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]; };

/** The median distance from a node's centre to its nearest other node's. */
function spacing(points: P[]): number {
  const nearest = points.map((p, i) => Math.min(...points.filter((_, j) => j !== i).map((q) => dist(p, q))));
  return median(nearest.filter(Number.isFinite)) || 1;
}

function bendsOf(pts: P[]): number {
  let n = 0;
  for (let i = 1; i + 1 < pts.length; i++) {
    const a = Math.atan2(pts[i][1] - pts[i - 1][1], pts[i][0] - pts[i - 1][0]), b = Math.atan2(pts[i + 1][1] - pts[i][1], pts[i + 1][0] - pts[i][0]);
    let turn = Math.abs(b - a);
    if (turn > Math.PI) turn = 2 * Math.PI - turn;
    if (turn > (20 * Math.PI) / 180) n++;
  }
  return n;
}

/**
 * The quality of `d`. `geo`: node name -> [lat, lng], for the compass order.
 * `ySouth`: the drawing's y grows southwards (SVG, ours); dot's JSON grows north.
 */
export function quality(d: Drawing, places?: ReadonlyMap<string, readonly [number, number]>, ySouth = true): Quality {
  // East of across the antimeridian: on the graph's own continuous longitudes (compass-order.ts).
  const geo = places && compassPlacesOf(places);
  const names = [...d.nodes.keys()];
  const points = names.map((n) => centre(d.nodes.get(n)!));
  const unit = spacing(points);
  // Centre to centre: Graphviz clips its edges at the node's outline, we draw them from the centre.
  const from = (name: string, p: P) => { const r = d.nodes.get(name); return r ? dist(centre(r), p) : 0; };
  const lengths = d.lines.map((l) => (from(l.a, l.pts[0]) + l.pts.reduce((s, p, i) => (i === 0 ? 0 : s + dist(l.pts[i - 1], p)), 0)
    + from(l.b, l.pts[l.pts.length - 1])) / unit);
  const mean = lengths.reduce((s, x) => s + x, 0) / Math.max(1, lengths.length);
  const sd = Math.sqrt(lengths.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, lengths.length));
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const grow = ([x, y]: P) => { x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y); };
  for (const r of d.nodes.values()) { grow([r.x, r.y]); grow([r.x + r.w, r.y + r.h]); }
  for (const l of d.lines) l.pts.forEach(grow);
  let compassKept: number | null = null;
  if (geo) {
    let kept = 0, pairs = 0;
    names.forEach((a, i) => {
      const ga = geo.get(a);
      if (!ga) return;
      for (let j = i + 1; j < names.length; j++) {
        const gb = geo.get(names[j]);
        if (!gb) continue;
        const [pa, pb] = [points[i], points[j]];
        for (const [g, p] of [[Math.sign(gb[1] - ga[1]), Math.sign(pb[0] - pa[0])], [Math.sign(gb[0] - ga[0]), (ySouth ? -1 : 1) * Math.sign(pb[1] - pa[1])]]) {
          if (g === 0) continue;
          pairs++;
          if (g === p) kept++;
        }
      }
    });
    compassKept = pairs === 0 ? 1 : kept / pairs;
  }
  return {
    crossings: crossings(d.lines),
    through: throughNodes(d).length,
    totalLength: lengths.reduce((s, x) => s + x, 0),
    lengthCv: mean > 0 ? sd / mean : 0,
    bends: d.lines.reduce((s, l) => s + bendsOf(l.pts), 0),
    areaPerNode: Number.isFinite(x0) ? ((x1 - x0) * (y1 - y0)) / (unit * unit) / Math.max(1, names.length) : 0,
    compassKept,
    octilinear: d.lines.length === 0 ? 1 : d.lines.filter((l) => {
      const [a, b] = [d.nodes.get(l.a), d.nodes.get(l.b)];
      if (!a || !b) return false;
      const [p, q] = [centre(a), centre(b)];
      const angle = Math.atan2(q[1] - p[1], q[0] - p[0]), octant = Math.PI / 4;
      return Math.abs(angle - Math.round(angle / octant) * octant) <= (5 * Math.PI) / 180;
    }).length / d.lines.length,
  };
}

/** One printed line of a quality, for the bench and test messages. */
export const describeQuality = (q: Quality) =>
  `${q.crossings} crossings, ${q.through} edges through nodes, edge length total ${q.totalLength.toFixed(1)} (CV ${q.lengthCv.toFixed(2)}), ` +
  `${q.bends} bends, area per node ${q.areaPerNode.toFixed(1)}${q.compassKept === null ? '' : `, compass order kept ${(100 * q.compassKept).toFixed(0)}%`}, ` +
  `${(100 * q.octilinear).toFixed(0)}% of edges at 0/45/90 degrees`;
