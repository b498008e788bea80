// The query plan (docs/traffic.md: Cost): every interface a picture needs is
// read with one grouped instant query per chunk, each query asking the five
// things at once (in and out rates, speed, operational status, the newest
// counter sample's time) over regex-escaped label sets, so a render costs at
// most MAX_REQUESTS requests whatever the number of circuits. A series is
// told apart in the answer by the `mts_q` label each part adds.
import type { InterfaceRef, ReadRequest, Reading } from './types.ts';
import { interfaceKey } from './types.ts';
import { promDuration } from './duration.ts';

export interface MetricNames {
  inOctets: string;
  outOctets: string;
  speedMbps: string;
  operStatus: string;
  instanceLabel: string;
  ifNameLabel: string;
}

/** snmp_exporter's if_mib module. */
export const SNMP_NAMES: MetricNames = {
  inOctets: 'ifHCInOctets', outOctets: 'ifHCOutOctets', speedMbps: 'ifHighSpeed', operStatus: 'ifOperStatus',
  instanceLabel: 'instance', ifNameLabel: 'ifName',
};

/** Interfaces one request asks for before the plan splits into more requests. */
export const CHUNK_INTERFACES = 2000;
/** The most requests one render sends a source; beyond MAX_REQUESTS x CHUNK_INTERFACES interfaces the chunks grow. */
export const MAX_REQUESTS = 5;

/** A label value as an RE2 literal (Prometheus anchors label regexes, so a value matches only itself). */
const regexLiteral = (s: string) => s.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
/** A PromQL double-quoted string. */
const promString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

export interface PlanOptions {
  names: MetricNames;
  job?: string;
  windowSeconds: number;
  stepSeconds: number;
}

/** The interfaces split into at most MAX_REQUESTS chunks, a router's ports kept together where the sizes allow. */
export function chunks(interfaces: readonly InterfaceRef[]): InterfaceRef[][] {
  const seen = new Map<string, InterfaceRef>();
  for (const i of interfaces) seen.set(interfaceKey(i), i);
  const sorted = [...seen.values()].sort((x, y) => (x.instance < y.instance ? -1 : x.instance > y.instance ? 1 : x.ifName < y.ifName ? -1 : 1));
  if (sorted.length === 0) return [];
  const n = Math.min(MAX_REQUESTS, Math.ceil(sorted.length / CHUNK_INTERFACES));
  const size = Math.ceil(sorted.length / n);
  const out: InterfaceRef[][] = [];
  for (let i = 0; i < sorted.length; i += size) out.push(sorted.slice(i, i + size));
  return out;
}

const alternatives = (values: Iterable<string>) => [...new Set(values)].sort().map(regexLiteral).join('|');

/** The PromQL of one chunk. */
export function chunkQuery(chunk: readonly InterfaceRef[], o: PlanOptions, request: ReadRequest): string {
  const { names } = o;
  const matchers = [
    ...(o.job !== undefined ? [`job=${promString(o.job)}`] : []),
    `${names.instanceLabel}=~${promString(alternatives(chunk.map((c) => c.instance)))}`,
    `${names.ifNameLabel}=~${promString(alternatives(chunk.map((c) => c.ifName)))}`,
  ];
  const sel = `{${matchers.join(',')}}`;
  const w = promDuration(o.windowSeconds);
  const busiest = (expr: string) => {
    if (!request.range) return expr;
    const sub = `(${expr})[${promDuration(request.range.seconds)}:${promDuration(o.stepSeconds)}]`;
    return request.range.stat === 'max' ? `max_over_time(${sub})` : `quantile_over_time(0.95, ${sub})`;
  };
  const part = (expr: string, q: string) => `label_replace(${expr}, "mts_q", "${q}", "", "")`;
  return [
    part(busiest(`rate(${names.inOctets}${sel}[${w}]) * 8`), 'in'),
    part(busiest(`rate(${names.outOctets}${sel}[${w}]) * 8`), 'out'),
    part(`${names.speedMbps}${sel} * 1000000`, 'speed'),
    part(`${names.operStatus}${sel}`, 'oper'),
    part(`timestamp(${names.inOctets}${sel})`, 'seen'),
  ].join(' or ');
}

interface VectorItem { metric: Record<string, string>; value: [number, string] }

const FIELD: Readonly<Record<string, keyof Reading>> = { in: 'inBps', out: 'outBps', speed: 'speedBps', oper: 'oper', seen: 'seenAt' };

/** Adds an instant vector's series to the readings, by their router and port; of two series for one, the larger value. */
export function collect(result: readonly VectorItem[], names: MetricNames, into: Map<string, Reading>): void {
  for (const item of result) {
    const instance = item.metric[names.instanceLabel], ifName = item.metric[names.ifNameLabel];
    const q = item.metric.mts_q;
    const value = Number(item.value?.[1]);
    if (instance === undefined || ifName === undefined || !Number.isFinite(value)) continue;
    const field = Object.hasOwn(FIELD, q) ? FIELD[q] : undefined;
    if (!field) continue;
    const key = interfaceKey({ instance, ifName });
    const reading = into.get(key) ?? {};
    const before = reading[field];
    reading[field] = before === undefined ? value : Math.max(before, value);
    into.set(key, reading);
  }
}
