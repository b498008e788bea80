// Colours of live traffic (docs/traffic.md: Colours): a utilisation belongs
// to the first band whose `upTo` (percent) it does not exceed. The default is
// the scale NOC screens have shown since PHP Weathermap; `colorblind` is
// viridis, which reads in every common colour-vision deficiency and in grey.
// The states that are not a utilisation have colours of their own.

export interface Band {
  upTo: number;
  color: string;
}

const WEATHERMAP_SCALE: readonly Band[] = [
  { upTo: 1, color: '#c0c0c0' }, { upTo: 10, color: '#8c00ff' }, { upTo: 25, color: '#2020ff' }, { upTo: 40, color: '#00c0ff' },
  { upTo: 55, color: '#00f000' }, { upTo: 70, color: '#f0f000' }, { upTo: 85, color: '#ffc000' }, { upTo: 100, color: '#ff0000' },
];

const COLORBLIND_SCALE: readonly Band[] = [
  { upTo: 10, color: '#440154' }, { upTo: 25, color: '#46327e' }, { upTo: 40, color: '#365c8d' }, { upTo: 55, color: '#277f8e' },
  { upTo: 70, color: '#1fa187' }, { upTo: 85, color: '#4ac16d' }, { upTo: 100, color: '#fde725' },
];

/** The colours of the states (each also has its own dash or mark: traffic-edges.ts). */
export const STATE_COLORS = {
  nodata: '#9e9e9e',
  down: '#000000',
  over: '#ff00ff',
  unknown: '#5f7d8c',
} as const;

/** The configuration's `trafficScale`: a named scale or its own bands. */
export function scaleOf(setting: unknown): readonly Band[] {
  if (setting === 'colorblind') return COLORBLIND_SCALE;
  if (Array.isArray(setting) && setting.length > 0) return setting as Band[];
  return WEATHERMAP_SCALE;
}

/** The colour of a utilisation in percent; beyond the last band, the over-100 % colour. */
export function bandColor(bands: readonly Band[], percent: number): string {
  for (const b of bands) if (percent <= b.upTo) return b.color;
  return STATE_COLORS.over;
}
