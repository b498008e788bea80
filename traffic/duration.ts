// Durations as Prometheus writes them (30s, 5m, 1h, 500ms), for the
// settings of a metrics source and the `?range=` of a picture.

const UNIT_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Seconds of a duration; undefined when it is not one. */
export function durationSeconds(text: string): number | undefined {
  const m = /^([1-9][0-9]{0,6})(ms|s|m|h|d|w)$/.exec(text);
  return m ? Number(m[1]) * UNIT_SECONDS[m[2]] : undefined;
}

/** A duration in PromQL's own form: whole seconds. */
export const promDuration = (seconds: number) => `${Math.max(1, Math.round(seconds))}s`;
