// Label placement (docs/render.md: Labels): a greedy placer in priority order
// over a grid index of boxes. Each label tries eight positions around its
// marker (right, left, the four diagonals, above, below), then the same
// directions further out with a short leader line back to the marker; the
// first position whose box is clear of every obstacle (markers, the legend,
// whatever the caller adds, such as cluster boxes) and every label placed
// before it wins, positions that cross no circuit before those that do. A label with no clear position is left out, never piled.
// Labels are placed by priority: most circuits first, then most capacity,
// then by name, so the outcome is deterministic.
import { BoxIndex, segmentCrosses, type Rect, type Seg } from './box-index.ts';
import { SegmentGrid } from './segment-grid.ts';
import { BoxGrid } from './box-grid.ts';
import { CoveredCells } from './covered-cells.ts';
import { textWidth } from './text-width.ts';

export interface LabelRequest {
  text: string;
  /** The marker's box where it is drawn. */
  marker: Rect;
  /** Circuits at the node. */
  degree: number;
  /** Sum of the capacities of its circuits (0 when unknown). */
  capacity: number;
  /** The node's name, the last tie-breaker. */
  name: string;
}

export interface PlacedLabel {
  /** Index of the request. */
  request: number;
  /** Where the text starts (text-anchor start) and its middle line (drawn with dy 0.35em). */
  x: number;
  y: number;
  /** The box reserved for it: the text's estimated extent plus its halo. */
  box: Rect;
  /** A line from the marker to a label moved away from it. */
  leader?: [number, number, number, number];
}

export interface PlaceOptions {
  /** Font size of labels, in picture units. */
  fontPx: number;
  /** Boxes no label may cover: node markers (all of them, labelled or not), the legend, cluster boxes... */
  obstacles: readonly Rect[];
  /** When set, a label must lie inside it (a picture framed on a fixed viewport). */
  bounds?: Rect | null;
  /** When set, positions inside it are tried before any outside it (a fitted picture's content, which then keeps its size). */
  prefer?: Rect | null;
  /** Lines a label had better not cross (circuits: x1, y1, x2, y2): positions clear of them are tried first. */
  avoid?: ReadonlyArray<readonly [number, number, number, number]>;
}

const DIRECTIONS: ReadonlyArray<[number, number]> = [[1, 0], [-1, 0], [1, -1], [1, 1], [-1, -1], [-1, 1], [0, -1], [0, 1]];
/** Labels from which the covered-cells table is built (covered-cells.ts). */
const MANY_LABELS = 200;
/** The directions as unit vectors, for positions further out. */
const UNITS = DIRECTIONS.map(([dx, dy]) => [dx / Math.hypot(dx, dy), dy / Math.hypot(dx, dy)] as const);

const byPriority = (requests: readonly LabelRequest[]) => (a: number, b: number) => {
  const p = requests[a], q = requests[b];
  return q.degree - p.degree || q.capacity - p.capacity || (p.name < q.name ? -1 : p.name > q.name ? 1 : 0) || a - b;
};

/** The label box next to the marker in direction (dx, dy): beside it, diagonal to its corner, or centred above or below. */
function beside(m: Rect, dx: number, dy: number, w: number, h: number, gap: number): Rect {
  const my = (m.y0 + m.y1) / 2, mx = (m.x0 + m.x1) / 2;
  let x0: number, y0: number;
  if (dx === 0) {
    x0 = mx - w / 2;
    y0 = dy < 0 ? m.y0 - gap / 2 - h : m.y1 + gap / 2;
  } else {
    x0 = dx > 0 ? m.x1 + gap : m.x0 - gap - w;
    y0 = dy === 0 ? my - h / 2 : dy < 0 ? m.y0 + gap - h : m.y1 - gap;
  }
  return { x0, y0, x1: x0 + w, y1: y0 + h };
}

const inside = (r: Rect, b: Rect) => r.x0 >= b.x0 && r.y0 >= b.y0 && r.x1 <= b.x1 && r.y1 <= b.y1;
const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

/** Places what fits; the answer lists placed labels only, in placement order. */
export function placeLabels(requests: readonly LabelRequest[], options: PlaceOptions): PlacedLabel[] {
  const f = options.fontPx;
  const pad = 0.15 * f, gap = 0.3 * f, h = 1.3 * f;
  const cell = Math.max(3 * f, 16);
  // Obstacles stay as they are while labels are placed: a grid built once answers for them (most labels of a crowded
  // picture ask about every position and find none clear); the labels and leaders placed go in an index that grows.
  const obstacles = options.obstacles;
  const fixed = new BoxGrid(cell, obstacles);
  const index = new BoxIndex(cell);
  const found = new Int32Array(Math.max(1, obstacles.length));
  // Most positions in a crowd lie over some marker whole: a summed-area table says so in four lookups. It costs a
  // pass over the picture's raster, which a few labels do not pay back.
  const covered = requests.length >= MANY_LABELS ? new CoveredCells(obstacles, f / 3) : null;
  const blocked = (r: Rect) => covered?.surely(r) || fixed.overlapping(r, found, 1) > 0 || index.blocked(r);
  // A leader crosses an obstacle only within its bounding box (grown a little, so rounding cannot leave one out).
  const cutOff = (sx: number, sy: number, tx: number, ty: number) => {
    const seg: [number, number, number, number] = [sx, sy, tx, ty];
    const near = fixed.overlapping({ x0: Math.min(sx, tx) - 0.02, y0: Math.min(sy, ty) - 0.02, x1: Math.max(sx, tx) + 0.02, y1: Math.max(sy, ty) + 0.02 }, found);
    for (let k = 0; k < near; k++) if (segmentCrosses(seg, obstacles[found[k]])) return true;
    return index.segmentBlocked(sx, sy, tx, ty);
  };
  const order = requests.map((_, i) => i).sort(byPriority(requests));
  const placed: PlacedLabel[] = [];
  const soft = new SegmentGrid(cell, (options.avoid ?? []) as readonly Seg[]);
  // Preferred area first, then anywhere; beside the marker first, then further out on a leader;
  // at each distance, clear of circuits first, then over them.
  const passes: { within: Rect | null; d: number; step: number; clear: boolean }[] = [];
  const steps = [0, 1.4 * f, 2.8 * f];
  for (const within of options.prefer ? [options.prefer, null] : [null]) {
    steps.forEach((d, step) => { for (const clear of options.avoid?.length ? [true, false] : [false]) passes.push({ within, d, step, clear }); });
  }
  // The same position comes up in several passes (inside the preferred area or not, clear of circuits or not), and
  // nothing is placed meanwhile: its box and what blocks it are worked out once per label (0 not yet, 1 yes, 2 no).
  const boxes: (Rect | null)[] = new Array(steps.length * DIRECTIONS.length);
  const hard = new Int8Array(boxes.length), over = new Int8Array(boxes.length), cut = new Int8Array(boxes.length);
  for (const i of order) {
    const { marker: m, text } = requests[i];
    const w = textWidth(text, f) + 2 * pad;
    let box: Rect | null = null;
    let leader: PlacedLabel['leader'];
    boxes.fill(null);
    hard.fill(0);
    over.fill(0);
    cut.fill(0);
    // Positions found blocked: once every one is, the passes left have nothing to try (most labels of a crowd).
    let shut = 0;
    for (const { within, d, step, clear } of passes) {
      if (shut === boxes.length) break;
      for (let k = 0; k < DIRECTIONS.length; k++) {
        // Indexed, not destructured: this loop runs for every position of every label.
        const dx = DIRECTIONS[k][0], dy = DIRECTIONS[k][1];
        const at = step * DIRECTIONS.length + k;
        let r = boxes[at];
        if (!r) {
          r = boxes[at] = beside(m, dx, dy, w, h, gap);
          const ux = UNITS[k][0] * d, uy = UNITS[k][1] * d;
          r.x0 += ux; r.x1 += ux; r.y0 += uy; r.y1 += uy;
        }
        if ((options.bounds && !inside(r, options.bounds)) || (within && !inside(r, within))) continue;
        if (hard[at] === 0 && (hard[at] = blocked(r) ? 1 : 2) === 1) shut++;
        if (hard[at] === 1) continue;
        if (clear) {
          if (over[at] === 0) over[at] = soft.crosses(r) ? 1 : 2;
          if (over[at] === 1) continue;
        }
        if (d === 0) { box = r; break; }
        // From just outside the marker, toward the label's nearest point.
        const cx = (m.x0 + m.x1) / 2, cy = (m.y0 + m.y1) / 2;
        const tx = clamp(cx, r.x0, r.x1), ty = clamp(cy, r.y0, r.y1);
        const sx = dx === 0 ? cx : dx > 0 ? m.x1 + 0.5 : m.x0 - 0.5, sy = dy === 0 ? cy : dy > 0 ? m.y1 + 0.5 : m.y0 - 0.5;
        if (cut[at] === 0) cut[at] = cutOff(sx, sy, tx, ty) ? 1 : 2;
        if (cut[at] === 1) continue;
        box = r;
        leader = [sx, sy, tx, ty];
        break;
      }
      if (box) break;
    }
    if (!box) continue;
    index.add(box);
    if (leader) index.addSegment(...leader);
    placed.push({ request: i, x: box.x0 + pad, y: (box.y0 + box.y1) / 2, box, ...(leader ? { leader } : {}) });
  }
  return placed;
}
