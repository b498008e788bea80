// Path geometry in picture pixels: straight polylines, cardinal splines
// (Terranova's `curveCardinal` pathLayout, same maths as d3-shape's
// curveCardinal with its tension), and a small loop for a circuit whose two
// ends are the same node.
import { fmt } from './svg-canvas.ts';

export type Pt = [number, number];

function polylineD(pts: Pt[]): string {
  return pts.map((p, i) => `${i ? 'L' : 'M'}${fmt(p[0])} ${fmt(p[1])}`).join('');
}

/** Cubic Bézier segments through every point; tension 0 is Catmull-Rom-like, 1 is straight. */
function cardinalD(pts: Pt[], tension = 0): string {
  if (pts.length < 3) return polylineD(pts);
  const k = (1 - Math.min(1, Math.max(0, tension))) / 6;
  let d = `M${fmt(pts[0][0])} ${fmt(pts[0][1])}`;
  for (let i = 0; i < pts.length - 1; i++) {
    const p0 = pts[Math.max(0, i - 1)], p1 = pts[i], p2 = pts[i + 1], p3 = pts[Math.min(pts.length - 1, i + 2)];
    const c1: Pt = [p1[0] + k * (p2[0] - p0[0]), p1[1] + k * (p2[1] - p0[1])];
    const c2: Pt = [p2[0] - k * (p3[0] - p1[0]), p2[1] - k * (p3[1] - p1[1])];
    d += `C${fmt(c1[0])} ${fmt(c1[1])} ${fmt(c2[0])} ${fmt(c2[1])} ${fmt(p2[0])} ${fmt(p2[1])}`;
  }
  return d;
}

/** A teardrop above the node; `i` grows it so parallel self-circuits stay apart. */
function loopD(p: Pt, i = 0): string {
  const r = 12 + 6 * i;
  return `M${fmt(p[0])} ${fmt(p[1])}C${fmt(p[0] - r)} ${fmt(p[1] - 2 * r)} ${fmt(p[0] + r)} ${fmt(p[1] - 2 * r)} ${fmt(p[0])} ${fmt(p[1])}`;
}

export function edgeD(pts: Pt[], pathType: string, tension: number | undefined, parallelIndex = 0): string {
  const first = pts[0], last = pts[pts.length - 1];
  if (pts.length === 2 && Math.abs(first[0] - last[0]) < 0.5 && Math.abs(first[1] - last[1]) < 0.5) return loopD(first, parallelIndex);
  return pathType === 'curveLinear' || pathType === 'linear' ? polylineD(pts) : cardinalD(pts, tension ?? 0);
}
