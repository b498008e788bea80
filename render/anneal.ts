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
// circuit through a node, a CV, total length and area per node no greater
// (a schematic below its compass promise may lengthen its circuits by a
// tenth to keep it), the compass order no lower (or at least KEPT_COMPASS),
// its shape no further from a dashboard's, its circuits at most GROWTH
// times as long in px, and something better (anneal-score.ts weighs it).
// One run; a schematic below its compass promise gets a second with other
// weights, and the one nearer the promise wins, then the better score.
// GÉANT 2012: 6 crossings and 79 % of pairs
// in compass order to 5 and 90.5 %; the generated mesh: 9 crossings to 7.
//
// Deterministic (a generator seeded by the graph, a fixed number of steps)
// and bounded: O(degree * edges + nodes^2) a step.
import { AnnealScore, CROSSING, type Figures, GROWTH, lengthAllowance, UNDER_COMPASS } from './anneal-score.ts';
import type { Pt } from './paths.ts';

type Box = { w: number; h: number };

/**
 * Steps a run per node, at least and at most: GÉANT (37 nodes, 58
 * circuits) 118,400 steps, about 0.9 s a run. At half as many the
 * generated mesh stops at 8 crossings (7 so) and GÉANT's default run at
 * 89.7 % of pairs in compass order.
 */
const STEPS_PER_NODE = 3200;
const MIN_STEPS = 30_000;
const MAX_STEPS = 160_000;
/**
 * At most this many steps times (nodes + circuits) a run: a step's work
 * grows with both, and one layout holds the drawing thread meanwhile. The
 * corpus graphs stay within it (the generated mesh, 40 nodes and 70
 * circuits, 14.1 million); a graph of 120 nodes and 239 circuits gets
 * 41,782 steps, about 2 s, where 160,000 took 8.4 s.
 */
const MAX_WORK = 15e6;
/**
 * The fewest nodes annealed: the stress drawing of a handful of nodes has
 * nothing left for it to find, and 30,000 steps on each of them were most
 * of what annealing cost the test suite (16 drawings of 4 nodes, 2 s).
 */
const MIN_NODES = 6;
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
/**
 * Runs, each with its own weights (points a unit of compass order short,
 * points a crossing). A drawing within its compass promise: the default.
 * One below it: also a run with crossings weighing a tenth, so that up to
 * its own number may stay while the order is won back (GÉANT: 5 crossings
 * and 90.5 % of pairs so, where the default run reaches 2 crossings and
 * 86.8 %). A second run with the compass order weighing ten times as much
 * was tried for drawings within it and helped none of the corpus.
 */
type Run = { compass: number; crossing: number };
const WITHIN_PROMISE: Run[] = [{ compass: UNDER_COMPASS, crossing: CROSSING }];
const BELOW_PROMISE: Run[] = [...WITHIN_PROMISE, { compass: UNDER_COMPASS, crossing: CROSSING / 10 }];

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
  b.crossings <= a.crossings && b.blocked <= a.blocked && b.cv <= a.cv + 1e-9 && b.total <= a.total * lengthAllowance(a) + 1e-9 && b.area <= a.area + 1e-9
  && b.compass >= floor && b.shape <= a.shape + 1e-9 && b.scale <= a.scale * GROWTH;

/**
 * Node centres (px) annealed from `from`, or null when annealing found no
 * drawing better than it and no worse by any measure.
 */
export function anneal(from: readonly Pt[], input: AnnealInput): Pt[] | null {
  const n = from.length;
  if (n < MIN_NODES || input.ends.length === 0) return null;
  const judge = new AnnealScore(from, input);
  const start = judge.figures(), startScore = judge.limits();
  const floor = Math.min(KEPT_COMPASS, start.compass);
  // Each run's best, judged by the default score: the fewest crossings and shortfalls win.
  let kept: { short: number; score: number; at: Pt[] } | null = null;
  const runs = start.compass < KEPT_COMPASS ? BELOW_PROMISE : WITHIN_PROMISE;
  for (const [k, weights] of runs.entries()) {
    const at = run(from, input, weights, n * 7919 + input.ends.length + k, start, floor);
    if (!at) continue;
    // Measured again from scratch: a run keeps its figures up to date move by move.
    const end = new AnnealScore(at, input);
    const score = end.energy();
    const f = end.figures(), short = Math.max(0, KEPT_COMPASS - f.compass);
    if (end.limits() >= startScore - 1e-9 || !noWorse(start, f, floor)) continue;
    // A compass order short of its promise first (a broken promise reads worst), then the score.
    if (!kept || short < kept.short - 1e-9 || (short <= kept.short + 1e-9 && score < kept.score)) kept = { short, score, at };
  }
  return kept?.at ?? null;
}

/** One annealing run, weighing `compass` points a unit of compass order short and `crossing` a crossing: the best drawing seen no worse than `start`. */
function run(from: readonly Pt[], input: AnnealInput, { compass, crossing }: Run, seed: number, start: Figures, floor: number): Pt[] | null {
  const n = from.length;
  const score = new AnnealScore(from, input, compass, crossing);
  const random = generator(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const steps = Math.min(MAX_STEPS, Math.floor(MAX_WORK / (n + input.ends.length)), Math.max(MIN_STEPS, STEPS_PER_NODE * n));
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
  return best?.at ?? null;
}
