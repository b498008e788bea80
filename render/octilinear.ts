// Circuits straightened towards 0/45/90 degrees, as the schematic ("metro
// map") drawings of R&E backbones draw them: each round turns every circuit
// a little towards its nearest multiple of 45 degrees about its midpoint,
// keeping its length, and each node takes the mean of what its circuits ask
// of it. Soft: a node pulled two ways ends between them, so the drawing
// stays close to what it was (its crossings); `project` puts the nodes
// back in compass order after each round; the caller keeps the result only
// where it measures no worse.
import type { Pt } from './paths.ts';

const ROUNDS = 60;
const RATE = 0.5;
const OCTANT = Math.PI / 4;

export function octilinear(at: readonly Pt[], ends: readonly (readonly [number, number])[], project?: (c: Pt[]) => void): Pt[] {
  const c = at.map((p): Pt => [p[0], p[1]]);
  for (let round = 0; round < ROUNDS; round++) {
    const sum = c.map(() => [0, 0, 0]);
    for (const [a, b] of ends) {
      if (a === b) continue;
      const [dx, dy] = [c[b][0] - c[a][0], c[b][1] - c[a][1]];
      const len = Math.hypot(dx, dy);
      if (len < 1e-9) continue;
      const angle = Math.atan2(dy, dx), want = Math.round(angle / OCTANT) * OCTANT;
      const turned = angle + (want - angle) * RATE;
      const [mx, my] = [(c[a][0] + c[b][0]) / 2, (c[a][1] + c[b][1]) / 2];
      const [hx, hy] = [(Math.cos(turned) * len) / 2, (Math.sin(turned) * len) / 2];
      sum[a][0] += mx - hx; sum[a][1] += my - hy; sum[a][2]++;
      sum[b][0] += mx + hx; sum[b][1] += my + hy; sum[b][2]++;
    }
    c.forEach((_, i) => { if (sum[i][2] > 0) c[i] = [sum[i][0] / sum[i][2], sum[i][1] / sum[i][2]]; });
    project?.(c);
  }
  return c;
}
