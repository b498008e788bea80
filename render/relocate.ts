// Crossings a schematic cannot undo by small moves (schematic-lifted.ts):
// untangle.ts moves a node around its neighbours, as far as its circuits
// stay short, but a circuit that spans the drawing stays where it is: a
// ring closed from its far west to its far east crosses the whole picture,
// and with its western end lifted to the top left it runs above everything
// and crosses nothing, for some of that node's pairs out of north-south
// order. Here the unit (a node, or a site's routers of one place, moved
// together) whose move undoes most crossings goes to the point of a grid over the whole drawing where its circuits cross fewest,
// then are shortest, with no more nodes or circuits too near it than it
// had, and the drawing keeping MIN_COMPASS of its pairs in compass order;
// then the next, MAX_MOVES at most. Greedy and deterministic:
// O(moves * units * grid * (degree * edges + nodes)).
import { compassKeptBy } from './compass-order.ts';
import { segmentsCross } from './drawing-geometry.ts';
import type { Pt } from './paths.ts';

/** Units moved at most. */
const MAX_MOVES = 4;
/** Grid step and margin around the drawing, in circuit lengths. */
const STEP = 0.5;
const MARGIN = 1;
/** The least room from a moved node to another node, and between a node and a circuit it is not on, in circuit lengths (as untangle.ts). */
const NODE_ROOM = 0.5;
const LINE_ROOM = 0.25;
/** The least share of pairs kept in compass order (as untangle.ts: the promise is 90 %, and a margin). */
const MIN_COMPASS = 0.92;

/** Distance from p to segment a-b. */
function toSegment(p: Pt, a: Pt, b: Pt): number {
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
  const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy || 1)));
  return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

/**
 * Moves units of `at` (in place) whose circuits cross, circuits `length`
 * long; `site`: each node's site (-1: none); `geo`: [lat, lng] per node.
 * Returns whether any unit moved.
 */
export function relocate(at: Pt[], ends: readonly (readonly [number, number])[], length: number, site: readonly number[], geo: readonly Pt[]): boolean {
  const n = at.length;
  const edges = ends.filter(([a, b]) => a !== b);
  const units = new Map<string, number[]>();
  at.forEach((_, i) => {
    const key = site[i] >= 0 ? `${site[i]}:${geo[i][0]},${geo[i][1]}` : `n${i}`;
    units.set(key, [...(units.get(key) ?? []), i]);
  });
  let kept = 0, pairs = 0;
  at.forEach((p, v) => { const c = compassKeptBy(v, p, at, geo); kept += c.kept; pairs += c.pairs; });
  if (pairs === 0) return false;
  // The unit's outside circuits (inside ones move with it), crossings of them with all others, and their length.
  const cost = (unit: ReadonlySet<number>, mine: readonly number[]): [number, number] => {
    let crossed = 0, len = 0;
    for (const k of mine) {
      const [a, b] = edges[k];
      len += Math.hypot(at[a][0] - at[b][0], at[a][1] - at[b][1]);
      edges.forEach(([x, y], f) => {
        if (x === a || x === b || y === a || y === b || (unit.has(x) && unit.has(y))) return;
        if ((unit.has(x) || unit.has(y)) && f <= k) return;
        if (segmentsCross(at[a], at[b], at[x], at[y])) crossed++;
      });
    }
    return [crossed, len];
  };
  // Pairs too near: a member and another node, a member and a circuit it is not on, one of its circuits and a node.
  // A place may not have more than the unit had where it was (the geography itself puts some nodes close together).
  const near = (unit: ReadonlySet<number>, mine: readonly number[]) => {
    let count = 0;
    for (const v of unit) {
      for (let j = 0; j < n; j++) if (!unit.has(j) && Math.hypot(at[v][0] - at[j][0], at[v][1] - at[j][1]) < NODE_ROOM * length) count++;
      for (const [a, b] of edges) if (!unit.has(a) && !unit.has(b) && toSegment(at[v], at[a], at[b]) < LINE_ROOM * length) count++;
    }
    for (const k of mine) {
      const [a, b] = edges[k];
      for (let j = 0; j < n; j++) if (j !== a && j !== b && !unit.has(j) && toSegment(at[j], at[a], at[b]) < LINE_ROOM * length) count++;
    }
    return count;
  };
  const keptBy = (unit: readonly number[]) => unit.reduce((s, v) => s + compassKeptBy(v, at[v], at, geo).kept, 0);
  /** A unit's best place: crossings it removes, compass pairs it gives up, its circuits' length there, and the shift. */
  type Move = { gain: number; lost: number; length: number; members: number[]; shift: Pt };
  const bestMove = (members: number[]): Move | null => {
    const unit = new Set(members);
    const mine = edges.flatMap(([a, b], k) => (unit.has(a) !== unit.has(b) ? [k] : []));
    if (mine.length === 0) return null;
    const was = members.map((v) => at[v]);
    const [crossed] = cost(unit, mine);
    if (crossed === 0) return null;
    const keptBefore = keptBy(members), nearBefore = near(unit, mine);
    const cx = was.reduce((s, p) => s + p[0], 0) / was.length, cy = was.reduce((s, p) => s + p[1], 0) / was.length;
    const xs = at.map((p) => p[0]), ys = at.map((p) => p[1]);
    const [x0, x1, y0, y1] = [Math.min(...xs) - MARGIN * length, Math.max(...xs) + MARGIN * length, Math.min(...ys) - MARGIN * length, Math.max(...ys) + MARGIN * length];
    let best: Move | null = null;
    for (let y = y0; y <= y1; y += STEP * length) {
      for (let x = x0; x <= x1; x += STEP * length) {
        const shift: Pt = [x - cx, y - cy];
        members.forEach((v, m) => { at[v] = [was[m][0] + shift[0], was[m][1] + shift[1]]; });
        const [c, len] = cost(unit, mine);
        if (c >= crossed || (best && (crossed - c < best.gain || (crossed - c === best.gain && len >= best.length)))) continue;
        const lost = 2 * (keptBefore - keptBy(members));
        if ((kept - lost) / pairs < MIN_COMPASS || near(unit, mine) > nearBefore) continue;
        best = { gain: crossed - c, lost, length: len, members, shift };
      }
    }
    members.forEach((v, m) => { at[v] = was[m]; });
    return best;
  };
  // The move that undoes most crossings first (then the one giving up fewest compass pairs), one at a time.
  let any = false;
  for (let move = 0; move < MAX_MOVES; move++) {
    let best: Move | null = null;
    for (const members of units.values()) {
      const m = bestMove(members);
      if (m && (!best || m.gain > best.gain || (m.gain === best.gain && m.lost < best.lost))) best = m;
    }
    if (!best) break;
    const { members, shift } = best;
    for (const v of members) at[v] = [at[v][0] + shift[0], at[v][1] + shift[1]];
    kept -= best.lost;
    any = true;
  }
  return any;
}
