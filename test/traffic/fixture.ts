// The network of the traffic tests: circuits with known rates at a known
// instant T, as Prometheus series (backfilled by test/helpers/prometheus.ts)
// and as the inline topology of a map layer bound to them. Each circuit is
// one case of docs/traffic.md: both ends, the direction rule, one end, a
// LAG, asymmetric, from ifHighSpeed, unknown capacity, down, stale, no data,
// over 100 %, label values that are regex syntax, a counter reset.
import type { Series } from '../helpers/prometheus.ts';

/** The instant the rates are known at: a whole minute, ten minutes ago (Prometheus keeps it). */
export const T = Math.floor(Date.now() / 60_000) * 60 - 600;
/** r1 xe-1 sent 8 Gb/s until an hour before T, then 4 Gb/s. */
export const BEFORE = T - 5400;

interface Port { instance: string; ifName: string; inBps?: number; outBps?: number; speedMbps?: number; oper?: number; stopAt?: number; resetAt?: number; earlierOut?: number }

const p = (instance: string, ifName: string, more: Omit<Port, 'instance' | 'ifName'>): Port => ({ instance, ifName, speedMbps: 10_000, oper: 1, ...more });

export const PORTS: Port[] = [
  p('r1', 'xe-1', { outBps: 4e9, inBps: 1e9, earlierOut: 8e9 }), p('r2', 'xe-1', { outBps: 1e9, inBps: 3e9 }),
  p('r1', 'xe-2', { outBps: 2e9, inBps: 0.5e9 }), p('r3', 'xe-2', { outBps: 0.5e9, inBps: 5e9 }),
  p('r1', 'xe-3', { outBps: 6e9, inBps: 2e9 }),
  p('r4', 'lag-1', { outBps: 3e9, inBps: 1e9 }), p('r4', 'lag-2', { outBps: 3e9, inBps: 1e9 }),
  p('r5', 'lag-1', { outBps: 0.5e9, inBps: 2e9 }), p('r5', 'lag-2', { outBps: 0.5e9, inBps: 2e9 }),
  p('r6', 'ge-1', { outBps: 250e6, inBps: 250e6 }),
  p('r7', 'xe-1', { outBps: 7e9, inBps: 0 }), p('r8', 'xe-1', { outBps: 0, inBps: 7e9 }),
  p('r9', 'xe-1', { outBps: 3e9, inBps: 1e9, speedMbps: undefined }),
  p('r10', 'xe-1', { outBps: 0, inBps: 0, oper: 2 }), p('r11', 'xe-1', { outBps: 0, inBps: 0 }),
  p('r12', 'xe-1', { outBps: 1e9, inBps: 1e9, stopAt: T - 180 }),
  p('r13', 'xe-1', { outBps: 12e9, inBps: 1e9 }),
  p('core.r(1)', 'et-0/0/0.100|x', { outBps: 1e9, inBps: 1e9 }),
  p('r14', 'xe-1', { outBps: 2e9, inBps: 1e9, resetAt: T - 120 }),
];

const START = T - 7200, EVERY = 15;

/** Octets counted by `t` at `bps`, from START (or from a reset). */
function counter(port: Port, t: number, dir: 'in' | 'out'): number {
  const bps = (dir === 'out' ? port.outBps : port.inBps) ?? 0;
  // A reset just after the sample before it: the counter restarts from zero and the samples after it count on.
  const from = port.resetAt !== undefined && t >= port.resetAt ? port.resetAt - EVERY : START;
  if (dir === 'out' && port.earlierOut !== undefined && from === START) {
    const switchAt = T - 3600;
    return (port.earlierOut * (Math.min(t, switchAt) - START) + bps * Math.max(0, t - switchAt)) / 8;
  }
  return (bps * (t - from)) / 8 + (from === START ? 1e9 : 0);
}

export function series(): Series[] {
  const out: Series[] = [];
  for (const metric of ['ifHCInOctets', 'ifHCOutOctets', 'ifHighSpeed', 'ifOperStatus']) {
    for (const port of PORTS) {
      if (metric === 'ifHighSpeed' && port.speedMbps === undefined) continue;
      const samples: [number, number][] = [];
      for (let t = START; t <= T + 30 && t <= (port.stopAt ?? Infinity); t += EVERY) {
        const value = metric === 'ifHCInOctets' ? counter(port, t, 'in') : metric === 'ifHCOutOctets' ? counter(port, t, 'out')
          : metric === 'ifHighSpeed' ? (port.speedMbps as number) : (port.oper as number);
        samples.push([t, value]);
      }
      out.push({ metric, labels: { job: 'snmp', instance: port.instance, ifName: port.ifName }, samples });
    }
  }
  return out;
}

interface Circuit { name: string; a: [string, string | string[]] | null; z: [string, string | string[]] | null; cap?: string | string[]; up?: string; down?: string }

export const CIRCUITS: Circuit[] = [
  { name: 'both', a: ['r1', 'xe-1'], z: ['r2', 'xe-1'], cap: '10' },
  { name: 'direction', a: ['r1', 'xe-2'], z: ['r3', 'xe-2'], cap: '10' },
  { name: 'one-sided', a: ['r1', 'xe-3'], z: null, cap: '10' },
  { name: 'lag', a: ['r4', ['lag-1', 'lag-2']], z: ['r5', ['lag-1', 'lag-2']], cap: ['10', '10'] },
  { name: 'asymmetric', a: ['r6', 'ge-1'], z: null, cap: '1', up: '500', down: '1000' },
  { name: 'from-speed', a: ['r7', 'xe-1'], z: ['r8', 'xe-1'] },
  { name: 'unknown', a: ['r9', 'xe-1'], z: null },
  { name: 'down', a: ['r10', 'xe-1'], z: ['r11', 'xe-1'], cap: '10' },
  { name: 'stale', a: ['r12', 'xe-1'], z: null, cap: '10' },
  { name: 'nodata', a: ['nowhere', 'xe-1'], z: null, cap: '10' },
  { name: 'over', a: ['r13', 'xe-1'], z: null, cap: '10' },
  { name: 'escaped', a: ['core.r(1)', 'et-0/0/0.100|x'], z: null, cap: '10' },
  { name: 'reset', a: ['r14', 'xe-1'], z: null, cap: '10' },
];

/** A layer's inline topology of `circuits`: each between two nodes of its own, west to east. */
export function topology(circuits: readonly Circuit[]) {
  const nodes: object[] = [];
  const edges: object[] = [];
  circuits.forEach((c, i) => {
    const lat = 40 + (i % 20) * 0.5, lng = -100 + Math.floor(i / 20) * 0.2;
    const [a, z] = [`${c.name} A`, `${c.name} Z`];
    nodes.push({ name: a, coordinate: [lat, lng], meta: {} }, { name: z, coordinate: [lat, lng + 8], meta: {} });
    edges.push({
      name: c.name, coordinates: [[lat, lng], [lat, lng + 8]],
      meta: {
        endpoint_identifiers: { names: [a, z] }, a_router: c.a?.[0] ?? '', a_port: c.a?.[1] ?? '', z_router: c.z?.[0] ?? '', z_port: c.z?.[1] ?? '',
        ...(c.cap !== undefined ? { cap: c.cap } : {}), ...(c.up ? { up: c.up, down: c.down } : {}),
      },
    });
  });
  return { name: 'net', layer: 'tail', pathLayout: { type: 'curveLinear' }, nodes, edges };
}

export const BINDING = {
  source: 'main', a: { instance: '{a_router}', ifName: '{a_port}' }, z: { instance: '{z_router}', ifName: '{z_port}' },
  capacity: '{cap} Gbps', capacityAtoZ: '{up} Mbps', capacityZtoA: '{down} Mbps',
};

/** A map body of one geographic layer over `circuits`, bound to `source`. */
export const mapBody = (name: string, circuits: readonly Circuit[], source = 'main', more: object = {}) => ({
  name, configuration: { ...more, layers: [{ name: 'Backbone', mapjson: JSON.stringify(topology(circuits)), layout: 'geographic', traffic: { ...BINDING, source } }] },
});

/** n generated circuits on distinct ports (the cost tests). */
export const manyCircuits = (n: number): Circuit[] => Array.from({ length: n }, (_, i) =>
  ({ name: `c${i}`, a: [`gen-r${i % 250}`, `xe-${i}`], z: [`gen-r${(i + 1) % 250}`, `xe-${i}`], cap: '10' }));

/** Each half-edge of an SVG by its title's start ("<edge>: A→Z"): its stroke, dash and title. */
export function halves(svg: string): Map<string, { stroke: string; dash?: string; title: string; d: string }> {
  const out = new Map<string, { stroke: string; dash?: string; title: string; d: string }>();
  for (const m of svg.matchAll(/<g class="traffic (aToZ|zToA)"><path ([^>]*)><title>([^<]*)<\/title>/g)) {
    const attrs = Object.fromEntries([...m[2].matchAll(/([\w-]+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    const title = m[3];
    out.set(`${title.slice(0, title.indexOf(':'))} ${m[1]}`, { stroke: attrs.stroke, dash: attrs['stroke-dasharray'], title, d: attrs.d });
  }
  return out;
}
