// The `synthetic` source kind (docs/traffic.md: The demo source): made-up,
// deterministic traffic so that a demo shows live colours with no
// Prometheus. Each interface gets a daily wave of its own (phase and level
// from a hash of its router and port); one interface in 61 is down and one
// in 17 runs over its speed.
// Pictures say the traffic is synthetic (the footer names the source kind).
import type { InterfaceRef, ReadRequest, ReadResult, Reading, TrafficSource } from './types.ts';
import { interfaceKey } from './types.ts';

/** FNV-1a, for a stable number per string. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const DAY = 86_400;
/** The speed every synthetic interface reports: a circuit without a capacity of its own is drawn against it. */
const SPEED_BPS = 100e9;

/** Sent bits/s of an interface at `t`: a daily wave between a fifth and the whole of its level. */
function sent(id: string, t: number): number {
  const h = hash(id);
  const phase = (h % 1000) / 1000;
  const level = h % 17 === 0 ? 1.08 : 0.15 + ((h >>> 10) % 600) / 1000;
  const wave = 0.5 + 0.5 * Math.sin(2 * Math.PI * (t / DAY + phase));
  return SPEED_BPS * level * (0.2 + 0.8 * wave);
}

export function syntheticSource(name: string, stepSeconds: number): TrafficSource {
  const readAt = (i: InterfaceRef, t: number): Reading => {
    const id = `${i.instance}/${i.ifName}`;
    if (hash(id) % 61 === 0) return { inBps: 0, outBps: 0, speedBps: SPEED_BPS, oper: 2, seenAt: t };
    return { outBps: sent(`${id}>`, t), inBps: sent(`${id}<`, t), speedBps: SPEED_BPS, oper: 1, seenAt: t };
  };
  return {
    name,
    kind: 'synthetic',
    stepSeconds,
    windowSeconds: stepSeconds,
    timeoutMs: 0,
    async read(interfaces: readonly InterfaceRef[], request: ReadRequest): Promise<ReadResult> {
      const readings = new Map<string, Reading>();
      for (const i of interfaces) {
        if (!request.range) {
          readings.set(interfaceKey(i), readAt(i, request.at));
          continue;
        }
        // The busiest value of the window, sampled at the step.
        const samples: Reading[] = [];
        for (let t = request.at - request.range.seconds; t <= request.at; t += stepSeconds) samples.push(readAt(i, t));
        const pick = (f: 'inBps' | 'outBps') => {
          const xs = samples.map((s) => s[f] ?? 0).sort((x, y) => x - y);
          return request.range?.stat === 'max' ? xs[xs.length - 1] : xs[Math.min(xs.length - 1, Math.ceil(0.95 * xs.length) - 1)];
        };
        readings.set(interfaceKey(i), { ...readAt(i, request.at), inBps: pick('inBps'), outBps: pick('outBps') });
      }
      return { readings, requests: 0 };
    },
    describe: () => ({ synthetic: true, step: `${stepSeconds}s` }),
    health: async () => ({ status: 'ok' }),
  };
}
