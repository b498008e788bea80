// The last step of a small straight-line drawing (logical-layout.ts):
// simulated annealing over node positions, scored by the measures of the
// quality module (layout-quality.ts). The searches before it (untangle.ts,
// schematic-polish.ts) move one node at a time and only downhill, so they
// stop where every single move costs something: a crossing removed only by
// passing a node across a circuit first, or compass order won back only by
// several nodes giving way at once. Annealing accepts such steps while it
// is hot and settles as it cools.
//
// What it may not do is make the drawing worse by any measure the quality
// rules read: its drawing is kept only with no more crossings and no
// circuit through a node, a CV, total length and area per node no greater,
// and the compass order no lower (or at least KEPT_COMPASS), and something
// better (anneal-score.ts weighs it). So it can only help: GÉANT 2012 from
// 6 crossings and 79 % of pairs in compass order to 4 and 88 %, the
// Exchange points from a CV of 0.43 to 0.28.
//
// Deterministic (a generator seeded by the graph, a fixed number of steps)
// and bounded: O(degree * edges + nodes^2) a step.
import { AnnealScore, type Figures } from './anneal-score.ts';
import type { Pt } from './paths.ts';

type Box = { w: number; h: number };

/** Steps per node, at least and at most in all: GÉANT (37 nodes, 58 circuits) in about 0.3 s. */
const STEPS_PER_NODE = 800;
const MIN_STEPS = 20_000;
const MAX_STEPS = 50_000;
/** Temperature at the start and the end, in score points (a crossing is 10). */
const HOT = 2;
const COLD = 0.002;
/** How far a node jumps, in mean circuit lengths: far at first, close at the end. */
const REACH = [1.2, 0.04];
/** Share of moves to the centre of the node's neighbours (a little off it), and of the rest, in a schematic, past another node where the compass order wants it. */
const TO_CENTRE = 0.1;
const TO_ORDER = 0.15;
/** The least compass order a drawing annealed is kept with (the schematic's promise), unless it started below. */
const KEPT_COMPASS = 0.9;

/** A small seeded generator (mulberry32): the same graph always anneals the same way. */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface AnnealInput {
  boxes: readonly Box[];
  ends: readonly (readonly [number, number])[];
  /** [lat, lng] per node (compass places), when the drawing is a schematic. */
  geo?: readonly Pt[];
}

/** Whether `b` is no worse than `a` by any figure the quality rules read. */
const noWorse = (a: Figures, b: Figures, floor: number) =>
  b.crossings <= a.crossings && b.blocked <= a.blocked && b.cv <= a.cv + 1e-9 && b.total <= a.total + 1e-9 && b.area <= a.area + 1e-9
  && b.compass >= floor && b.shape <= a.shape + 1e-9;

/**
 * Node centres (px) annealed from `from`, or null when annealing found no
 * drawing better than it and no worse by any measure.
 */
export function anneal(from: readonly Pt[], input: AnnealInput): Pt[] | null {
  const n = from.length;
  if (n < 3 || input.ends.length === 0) return null;
  const score = new AnnealScore(from, input);
  const start = score.figures(), startScore = score.limits();
  const floor = Math.min(KEPT_COMPASS, start.compass);
  const random = generator(n * 7919 + input.ends.length);
  const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const steps = Math.min(MAX_STEPS, Math.max(MIN_STEPS, STEPS_PER_NODE * n));
  const { x, y } = score, { geo } = input;
  const length = score.meanLength();
  const neighbours = Array.from({ length: n }, (_, v) => score.neighbours(v));
  let energy = score.energy();
  let best: { energy: number; at: Pt[] } | null = null;
  for (let s = 0; s < steps; s++) {
    const done = s / steps;
    const heat = HOT * (COLD / HOT) ** done;
    const reach = length * (REACH[0] + (REACH[1] - REACH[0]) * done);
    const v = Math.floor(random() * n);
    const around = neighbours[v];
    let px: number, py: number;
    if (random() < TO_CENTRE && around.length > 0) {
      px = 0; py = 0;
      for (const u of around) { px += x[u] / around.length; py += y[u] / around.length; }
      px += gauss() * reach * 0.3; py += gauss() * reach * 0.3;
    } else if (geo && random() < TO_ORDER) {
      // Past another node along one axis, where the compass order puts it: a pair out of order set right.
      const u = Math.floor(random() * n), axis = random() < 0.5 ? 0 : 1;
      const want = axis === 0 ? Math.sign(geo[v][1] - geo[u][1]) : Math.sign(geo[u][0] - geo[v][0]);
      const [mine, theirs] = axis === 0 ? [x[v], x[u]] : [y[v], y[u]];
      if (u === v || want === 0 || Math.sign(mine - theirs) === want) continue;
      const to = theirs + want * length * (0.05 + 0.3 * random());
      [px, py] = axis === 0 ? [to, y[v] + gauss() * reach * 0.2] : [x[v] + gauss() * reach * 0.2, to];
    } else { px = x[v] + gauss() * reach; py = y[v] + gauss() * reach; }
    const next = score.energyIf(v, px, py);
    if (next <= energy || random() < Math.exp((energy - next) / heat)) {
      score.move();
      energy = next;
      // The best drawing seen that is no worse than the start by any measure.
      if ((!best || energy < best.energy - 1e-12) && noWorse(start, score.figures(), floor)) best = { energy, at: score.snapshot() };
    }
  }
  if (!best) return null;
  const end = new AnnealScore(best.at, input);
  return end.limits() < startScore - 1e-9 && noWorse(start, end.figures(), floor) ? best.at : null;
}
