// From a layer's binding and its circuits to their traffic (docs/traffic.md):
// each circuit's ends as interfaces (`{field}` templates over its record,
// header case ignored; a field holding a list gives the members of a LAG),
// its capacities, and the direction rule over the readings: A→Z is the
// larger of A's out and Z's in, Z→A of Z's out and A's in; one end bound,
// that end alone.
import { bindingFields, fillTemplate, parseRate, type TrafficBinding } from '../schema/traffic.ts';
import type { TopologyEdge } from '../render/types.ts';
import { interfaceKey, type CircuitTraffic, type InterfaceRef, type Reading } from './types.ts';

export interface BoundCircuit {
  edge: string;
  /** The circuit's A and Z names, as its endpoint_identifiers give them. */
  src: string;
  dst: string;
  a: InterfaceRef[] | null;
  z: InterfaceRef[] | null;
  /** From the binding's capacity templates; undefined: from the ends' speeds. */
  capacityAtoZ?: number;
  capacityZtoA?: number;
}

/** A circuit's fields by lower-case name: its record's metadata, name, id and ends. */
function fieldsOf(edge: TopologyEdge): Map<string, unknown> {
  const ids = edge.meta.endpoint_identifiers ?? {};
  const fields = new Map<string, unknown>();
  for (const [k, value] of Object.entries(edge.meta)) fields.set(k.toLowerCase(), value);
  const first = (x: unknown) => (Array.isArray(x) ? x[0] : undefined);
  fields.set('name', first(ids.edge_name) ?? edge.name);
  if (first(ids.edge_id) != null) fields.set('id', first(ids.edge_id));
  const names = Array.isArray(ids.names) ? ids.names : [];
  fields.set('source', names[0]);
  fields.set('destination', names[1]);
  return fields;
}

function endOf(end: TrafficBinding['a'], get: (f: string) => unknown): InterfaceRef[] | null {
  if (!end) return null;
  const instances = fillTemplate(end.instance, get), ports = fillTemplate(end.ifName, get);
  const n = Math.max(instances.length, ports.length);
  const refs: InterfaceRef[] = [];
  for (let i = 0; i < n; i++) {
    const instance = instances[Math.min(i, instances.length - 1)], ifName = ports[Math.min(i, ports.length - 1)];
    // An empty cell leaves that member (or the whole end) unbound: a far end not monitored.
    if (instance && ifName) refs.push({ instance, ifName });
  }
  return refs.length > 0 ? refs : null;
}

/** The sum of a capacity template's members (a LAG's capacities); undefined when a member has none. */
function capacityOf(template: string | null | undefined, get: (f: string) => unknown): number | undefined {
  if (!template) return undefined;
  const rates = fillTemplate(template, get).map(parseRate);
  return rates.every((r): r is number => r !== undefined && r > 0) ? rates.reduce((a, b) => a + b, 0) : undefined;
}

/** The circuits of a layer its binding reaches (a circuit with no end bound is drawn as without traffic). */
export function bindCircuits(binding: TrafficBinding, edges: readonly TopologyEdge[]): BoundCircuit[] {
  const out: BoundCircuit[] = [];
  for (const edge of edges) {
    const fields = fieldsOf(edge);
    const get = (f: string) => fields.get(f.toLowerCase());
    const a = endOf(binding.a, get), z = endOf(binding.z, get);
    if (!a && !z) continue;
    const both = capacityOf(binding.capacity, get);
    const names = (edge.meta.endpoint_identifiers?.names ?? []).map(String);
    out.push({
      edge: edge.name, src: names[0] ?? '', dst: names[1] ?? '', a, z,
      capacityAtoZ: capacityOf(binding.capacityAtoZ, get) ?? both,
      capacityZtoA: capacityOf(binding.capacityZtoA, get) ?? both,
    });
  }
  return out;
}

/** The fields a binding names that none of the records has (the map save's 422), with where each is named. */
export function missingFields(binding: TrafficBinding, records: readonly Record<string, unknown>[]): { path: string; field: string }[] {
  const known = new Set<string>(['name', 'id', 'source', 'destination']);
  for (const r of records) for (const k of Object.keys(r)) known.add(k.toLowerCase());
  return bindingFields(binding).filter(({ field }) => !known.has(field.toLowerCase()));
}

interface EndState { inBps?: number; outBps?: number; speedBps?: number; down: boolean; seenAt?: number; read: boolean }

/** An end's members summed; down when every member reporting a status reports down. */
function endState(refs: InterfaceRef[], readings: ReadonlyMap<string, Reading>): EndState {
  const rs = refs.map((r) => readings.get(interfaceKey(r))).filter((r): r is Reading => r !== undefined);
  const sum = (f: 'inBps' | 'outBps' | 'speedBps') => {
    const xs = rs.map((r) => r[f]).filter((x): x is number => x !== undefined);
    return xs.length === rs.length && xs.length > 0 ? xs.reduce((a, b) => a + b, 0) : undefined;
  };
  const statuses = rs.map((r) => r.oper).filter((x): x is number => x !== undefined);
  const seen = rs.map((r) => r.seenAt).filter((x): x is number => x !== undefined);
  return {
    inBps: sum('inBps'), outBps: sum('outBps'), speedBps: sum('speedBps'),
    down: statuses.length > 0 && statuses.every((s) => s === 2),
    seenAt: seen.length > 0 ? Math.min(...seen) : undefined,
    read: rs.length > 0,
  };
}

const larger = (x?: number, y?: number) => (x === undefined ? y : y === undefined ? x : Math.max(x, y));
const smaller = (x?: number, y?: number) => (x === undefined ? y : y === undefined ? x : Math.min(x, y));

/** A circuit's traffic at `at` (unix seconds): stale when its newest sample is older than two steps. */
export function circuitTraffic(c: BoundCircuit, readings: ReadonlyMap<string, Reading>, at: number, stepSeconds: number): CircuitTraffic {
  const a = c.a ? endState(c.a, readings) : undefined, z = c.z ? endState(c.z, readings) : undefined;
  // Whole bits per second: a rate is an estimate, and its last digits only float.
  const round = (x?: number) => (x === undefined ? undefined : Math.round(x));
  const aToZ = round(larger(a?.outBps, z?.inBps)), zToA = round(larger(z?.outBps, a?.inBps));
  // Capacity unknown from the data: the smaller speed of the ends (ifHighSpeed); 0 means the device does not know.
  const speed = smaller(a?.speedBps || undefined, z?.speedBps || undefined);
  const base = { edge: c.edge, ends: { a: c.a !== null, z: c.z !== null }, aToZ, zToA, capacityAtoZ: c.capacityAtoZ ?? speed, capacityZtoA: c.capacityZtoA ?? speed };
  if (a?.down || z?.down) return { ...base, status: 'down' };
  if (aToZ === undefined && zToA === undefined) return { ...base, status: 'nodata' };
  const seen = Math.max(a?.seenAt ?? -Infinity, z?.seenAt ?? -Infinity);
  if (Number.isFinite(seen) && at - seen > 2 * stepSeconds) return { ...base, status: 'stale' };
  return { ...base, status: 'ok' };
}

/** Every interface the circuits need read. */
export const interfacesOf = (circuits: readonly BoundCircuit[]) => circuits.flatMap((c) => [...(c.a ?? []), ...(c.z ?? [])]);
