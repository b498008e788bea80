// The traffic binding of a map layer (docs/traffic.md: Binding): which
// source's counters a layer's circuits are read from, the router and port of
// each end as `{field}` templates over the circuit's record, and the capacity
// as a template giving a number with a unit. Checked when a map is saved
// (422 naming the field); the fields themselves are checked against the
// dataset's records by traffic/binding.ts.
import * as v from 'valibot';
import { parseBitRate } from './rate.ts';

/** `{field}` placeholders of a template: a field name of letters, digits, `_`, `-`, `.` or spaces. */
const PLACEHOLDER = /\{([^{}]{1,100})\}/g;

/** The fields a template names. */
function templateFields(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1].trim());
}

/** Bits per second of a filled capacity: a number and a unit ("10 Gbps", not "400G" or "400"); undefined when it is not one. */
export const parseRate = (text: string): number | undefined => parseBitRate(text, { bare: 'unit' });

const Template = v.pipe(v.string('expected a template string such as "{a_router}"'), v.minLength(1, 'expected a template string such as "{a_router}"'),
  v.maxLength(300, 'must be at most 300 characters'));

/** A capacity template must end in a unit: "{capacity} Gbps", "10 Gbps". */
const CapacityTemplate = v.pipe(Template, v.check((t) => {
  const unit = /([kmgt]?)(bps|bit\/s|b\/s)\s*$/i.test(t);
  const probe = t.replace(PLACEHOLDER, '1');
  return unit && parseRate(probe) !== undefined;
}, 'expected a number with a unit, such as "{capacity} Gbps" or "10 Gbps" (units: bps, Kbps, Mbps, Gbps, Tbps)'));

const EndSchema = v.strictObject({ instance: Template, ifName: Template });

export const TrafficBindingSchema = v.pipe(v.strictObject({
  source: v.pipe(v.string('expected the name of a metrics source'), v.regex(/^[A-Za-z0-9_-]{1,40}$/, 'expected the name of a metrics source')),
  a: v.optional(v.nullable(EndSchema)),
  z: v.optional(v.nullable(EndSchema)),
  capacity: v.optional(v.nullable(CapacityTemplate)),
  capacityAtoZ: v.optional(v.nullable(CapacityTemplate)),
  capacityZtoA: v.optional(v.nullable(CapacityTemplate)),
}), v.check((b) => Boolean(b.a || b.z), 'expected at least one end bound: a, z or both'));

export type TrafficBinding = v.InferOutput<typeof TrafficBindingSchema>;

/** Every field a binding's templates name, with where it is named (for the 422 at save). */
export function bindingFields(b: TrafficBinding): { path: string; field: string }[] {
  const out: { path: string; field: string }[] = [];
  const add = (path: string, t: string | null | undefined) => { for (const field of templateFields(t ?? '')) out.push({ path, field }); };
  for (const end of ['a', 'z'] as const) {
    add(`${end}.instance`, b[end]?.instance);
    add(`${end}.ifName`, b[end]?.ifName);
  }
  add('capacity', b.capacity);
  add('capacityAtoZ', b.capacityAtoZ);
  add('capacityZtoA', b.capacityZtoA);
  return out;
}

/** A template filled from a record: one string per member (a field holding a list gives several: a LAG). */
export function fillTemplate(template: string, lookup: (field: string) => unknown): string[] {
  const values = templateFields(template).map((f) => lookup(f));
  const members = Math.max(1, ...values.map((x) => (Array.isArray(x) ? x.length : 1)));
  const out: string[] = [];
  for (let i = 0; i < members; i++) {
    let k = 0;
    out.push(template.replace(PLACEHOLDER, () => {
      const x = values[k++];
      const one = Array.isArray(x) ? x[i] : x;
      return one === undefined || one === null ? '' : String(one).trim();
    }));
  }
  return out;
}
