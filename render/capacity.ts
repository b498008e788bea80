// A circuit's capacity as pictures show it (docs/render.md: Capacity):
// parsed with its unit from what sheets hold ("400", "400G", "400 Gbps",
// "10GE", "100 Mbit/s", "1.6T"), written back with a unit ("400 Gbps"), and
// the stroke width a circuit of that capacity gets. Shared by every drawing
// of circuits (the map picture, the weathermap's half-edges), so one
// capacity is one width in all of them.
import { parseBitRate } from '../schema/rate.ts';

/**
 * Gigabits per second, or null when the value names no capacity
 * (schema/rate.ts, the rules of a sheet's capacity): a bare number counts as
 * Gbps, the unit R&E circuit lists use; a unit prefix (k, M, G, T) may be
 * followed by b, bit, bps, b/s, bit/s, E or bE (10GE, 400GbE). Anything
 * else (a word, a negative or zero rate) is no capacity.
 */
export function parseCapacity(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : null;
  if (typeof value !== 'string') return null;
  return parseBitRate(value, { bare: 'gbps', in: 9 }) ?? null;
}

/** "400 Gbps", "1.6 Tbps", "100 Mbps": the capacity in the largest unit that keeps it at least 1, up to 3 significant digits. */
export function formatCapacity(gbps: number): string {
  const [n, unit] = gbps >= 1e3 ? [gbps / 1e3, 'Tbps'] : gbps >= 1 ? [gbps, 'Gbps'] : gbps >= 1e-3 ? [gbps * 1e3, 'Mbps'] : [gbps * 1e6, 'kbps'];
  return `${Number(n.toPrecision(3))} ${unit}`;
}

/** The capacity drawn at the layer's own edge width; others are wider or narrower by CAPACITY_STEP per factor of 10. */
const REFERENCE_GBPS = 10;
const CAPACITY_STEP = 0.75;
const MIN_FACTOR = 0.5;
const MAX_FACTOR = 3;

/**
 * Stroke width of a circuit: the layer's `edgeWidth` times
 * 1 + 0.75 x log10(capacity / 10 Gbps), kept between 0.5x and 3x:
 * 1 Gbps 0.5x, 10 Gbps 1x, 100 Gbps 1.75x, 400 Gbps 2.2x, 1 Tbps 2.5x,
 * 10 Tbps and more 3x. A circuit without capacity keeps `edgeWidth`.
 */
export function capacityWidth(gbps: number | null, edgeWidth: number): number {
  if (gbps === null) return edgeWidth;
  const factor = 1 + CAPACITY_STEP * Math.log10(gbps / REFERENCE_GBPS);
  return edgeWidth * Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, factor));
}
