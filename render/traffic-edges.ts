// A circuit with live traffic as two half-edges meeting at its middle
// (docs/traffic.md: Pictures): the half at A's end carries A→Z and its arrow
// points towards Z, the half at Z's end carries Z→A. Each is coloured by its
// direction's utilisation, or drawn in the colour and dash of its state;
// each has a `<title>` with the exact figures and asks for a rate label at
// its own middle (placed later, only where it overlaps nothing).
import { elementMarkup, escapeText } from '../svg-safety/sanitize.ts';
import type { Pt } from './paths.ts';
import { fmt } from './svg-canvas.ts';
import { bandColor, STATE_COLORS, type Band } from './traffic-scale.ts';

type CircuitStatus = 'ok' | 'down' | 'stale' | 'nodata';

/** One bound circuit's traffic: rates in bits/s, capacities per direction (undefined: unknown). */
export interface CircuitTraffic {
  edge: string;
  status: CircuitStatus;
  aToZ?: number;
  zToA?: number;
  capacityAtoZ?: number;
  capacityZtoA?: number;
  ends: { a: boolean; z: boolean };
}

/** What a layer's circuits are drawn with. */
export interface LayerTraffic {
  circuits: ReadonlyMap<string, CircuitTraffic>;
  bands: readonly Band[];
}

/** A rate label a half-edge asks for, at its middle. */
export interface RateLabel {
  x: number;
  y: number;
  text: string;
}

/** Bits per second as people write them: 950 Mb/s, 4.2 Gb/s. */
function formatRate(bps: number): string {
  const units = [[1e12, 'Tb/s'], [1e9, 'Gb/s'], [1e6, 'Mb/s'], [1e3, 'kb/s']] as const;
  for (const [size, unit] of units) if (bps >= size) return `${(bps / size).toFixed(bps / size >= 100 ? 0 : 1)} ${unit}`;
  return `${Math.round(bps)} b/s`;
}

/** A rate as a label writes it, short: 950M, 4.2G, 12G. */
function shortRate(bps: number): string {
  const units = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']] as const;
  for (const [size, unit] of units) if (bps >= size) return `${(bps / size).toFixed(bps / size >= 10 ? 0 : 1)}${unit}`;
  return `${Math.round(bps)}`;
}

/** How one direction is drawn: colour, dash, and the words of its title and label. */
function directionLook(t: CircuitTraffic, dir: 'aToZ' | 'zToA', bands: readonly Band[]) {
  const rate = t[dir], cap = dir === 'aToZ' ? t.capacityAtoZ : t.capacityZtoA;
  const arrow = dir === 'aToZ' ? 'A→Z' : 'Z→A';
  if (t.status === 'down') return { color: STATE_COLORS.down, dash: '2 3', state: 'interface down', label: 'down', title: `${arrow}: interface down` };
  if (rate === undefined || t.status === 'nodata') return { color: STATE_COLORS.nodata, dash: '4 3', state: 'no data', label: '', title: `${arrow}: no data` };
  const stale = t.status === 'stale' ? ' (stale: no recent sample)' : '';
  if (!cap) {
    return { color: STATE_COLORS.unknown, dash: t.status === 'stale' ? '1 3' : '', state: 'capacity unknown', label: shortRate(rate),
      title: `${arrow}: ${formatRate(rate)} (${Math.round(rate)} bit/s), capacity unknown${stale}` };
  }
  const percent = (rate / cap) * 100;
  const over = percent > 100;
  return {
    color: over ? STATE_COLORS.over : bandColor(bands, percent), dash: t.status === 'stale' ? '1 3' : '',
    state: over ? 'over 100 %' : t.status === 'stale' ? 'stale' : 'ok',
    label: shortRate(rate),
    title: `${arrow}: ${formatRate(rate)} of ${formatRate(cap)} (${percent.toFixed(1)} %; ${Math.round(rate)} bit/s)${stale}`,
  };
}

const dist = (p: Pt, q: Pt) => Math.hypot(q[0] - p[0], q[1] - p[1]);

/** The polyline cut at its middle by length: the half from its start and the half from its end, each ending at the middle. */
function halves(pts: readonly Pt[]): [Pt[], Pt[]] {
  const total = pts.slice(1).reduce((s, p, i) => s + dist(pts[i], p), 0);
  let run = 0;
  for (let i = 1; i < pts.length; i++) {
    const d = dist(pts[i - 1], pts[i]);
    if (run + d >= total / 2) {
      const f = d === 0 ? 0 : (total / 2 - run) / d;
      const mid: Pt = [pts[i - 1][0] + f * (pts[i][0] - pts[i - 1][0]), pts[i - 1][1] + f * (pts[i][1] - pts[i - 1][1])];
      return [[...pts.slice(0, i), mid], [...pts.slice(i).reverse(), mid]];
    }
    run += d;
  }
  return [[...pts], [...pts].reverse()];
}

/** The point half way along a polyline. */
const middle = (pts: readonly Pt[]): Pt => halves(pts)[0].at(-1) as Pt;

/** An arrowhead at the end of `pts`, pointing along its last piece. */
function arrowhead(pts: readonly Pt[], size: number): string {
  const tip = pts[pts.length - 1];
  let from = pts[pts.length - 2];
  for (let i = pts.length - 2; i >= 0 && dist(pts[i], tip) < 1e-6; i--) from = pts[i];
  const len = dist(from, tip) || 1;
  const ux = (tip[0] - from[0]) / len, uy = (tip[1] - from[1]) / len;
  const back: Pt = [tip[0] - ux * size * 1.6, tip[1] - uy * size * 1.6];
  const left: Pt = [back[0] - uy * size, back[1] + ux * size], right: Pt = [back[0] + uy * size, back[1] - ux * size];
  return elementMarkup('polygon', { points: [tip, left, right].map((p) => `${fmt(p[0])},${fmt(p[1])}`).join(' '), stroke: 'none' });
}

const polyD = (pts: readonly Pt[]) => pts.map((p, i) => `${i ? 'L' : 'M'}${fmt(p[0])} ${fmt(p[1])}`).join('');

/**
 * The markup of a circuit's two halves, `pts` running from `aFirst ? A : Z`;
 * `width` the layer's edge width. Labels are asked for, not drawn.
 */
export function halfEdgeMarkup(name: string, pts: readonly Pt[], aFirst: boolean, t: CircuitTraffic, bands: readonly Band[], width: number): { markup: string; labels: RateLabel[] } {
  const [fromStart, fromEnd] = halves(pts);
  const [atA, atZ] = aFirst ? [fromStart, fromEnd] : [fromEnd, fromStart];
  const w = Math.max(width, 2.5);
  const labels: RateLabel[] = [];
  const parts = ([['aToZ', atA], ['zToA', atZ]] as const).map(([dir, half]) => {
    const look = directionLook(t, dir, bands);
    // A circuit bound at one end only still shows both directions, as that end counts them.
    const title = elementMarkup('title', {}, escapeText(`${name}: ${look.title}`));
    const attrs: Record<string, string> = { d: polyD(half), stroke: look.color, 'stroke-width': fmt(w) };
    if (look.dash) attrs['stroke-dasharray'] = look.dash;
    const arrow = t.status === 'down' || look.state === 'no data' ? '' : elementMarkup('g', { fill: look.color }, arrowhead(half, w * 1.3));
    if (look.label) {
      const [x, y] = middle(half);
      labels.push({ x, y, text: look.label });
    }
    return elementMarkup('g', { class: `traffic ${dir}` }, elementMarkup('path', attrs, title) + arrow);
  });
  // A down circuit gets a mark at its middle: a cross in the down colour.
  let mark = '';
  if (t.status === 'down') {
    const [x, y] = fromStart[fromStart.length - 1];
    const r = w * 1.6;
    mark = elementMarkup('path', { d: `M${fmt(x - r)} ${fmt(y - r)}L${fmt(x + r)} ${fmt(y + r)}M${fmt(x - r)} ${fmt(y + r)}L${fmt(x + r)} ${fmt(y - r)}`, stroke: STATE_COLORS.down, 'stroke-width': fmt(w * 0.8), class: 'down-mark' });
  }
  return { markup: parts.join('') + mark, labels };
}
