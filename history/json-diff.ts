// Structural diff of two JSON values, the building block of every semantic
// diff (docs/api.md: Diffs): a list of `{path, op, from?, to?}` with dotted paths
// such as `configuration.layers.0.color`, the same form validation errors use.
// Output order is deterministic (object keys sorted, array items by index),
// so two diffs of the same versions are byte-identical and cacheable.
// Keys are joined with dots unescaped, as elsewhere in the service; a key that
// itself holds a dot (a node name like "r1.example.net") stays readable, and
// `from`/`to` carry the values, so nobody has to parse the path back.
import { deepEqual } from '../schema/json-equal.ts';

type JsonChangeOp = 'add' | 'remove' | 'replace';

export interface JsonChange {
  path: string;
  op: JsonChangeOp;
  /** The old value: on `remove` and `replace` only. */
  from?: unknown;
  /** The new value: on `add` and `replace` only. */
  to?: unknown;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (base: string, key: string | number) => (base === '' ? String(key) : `${base}.${key}`);

/** Keys whose value is not undefined: JSON has no undefined, so a key holding it counts as absent. */
function present(o: Obj): string[] {
  const keys: string[] = [];
  for (const k of Object.keys(o)) if (o[k] !== undefined) keys.push(k);
  return keys;
}

/** A field of a version, own properties only: a field named "toString" must not read Object.prototype. */
export const ownField = (o: Record<string, unknown> | null | undefined, k: string): unknown =>
  (o && Object.hasOwn(o, k) ? o[k] : undefined);

/** String order by UTF-16 code units: locale-independent, so output never depends on the server's locale. */
export const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * What changed from `before` to `after`, with paths under `base`. Objects
 * recurse by key, arrays by index (items past the shorter array are added or
 * removed at their index); anything else that differs, including a change of
 * type, is one `replace`.
 */
export function diffJson(before: unknown, after: unknown, base = ''): JsonChange[] {
  const out: JsonChange[] = [];
  walk(before, after, base, out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: JsonChange[]): void {
  if (a === b) return;
  if (a === undefined) {
    out.push({ path, op: 'add', to: b });
    return;
  }
  if (b === undefined) {
    out.push({ path, op: 'remove', from: a });
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) walk(a[i], b[i], join(path, i), out);
    for (let i = common; i < a.length; i++) out.push({ path: join(path, i), op: 'remove', from: a[i] });
    for (let i = common; i < b.length; i++) out.push({ path: join(path, i), op: 'add', to: b[i] });
    return;
  }
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...present(a), ...present(b)])].sort(byCodeUnits);
    for (const k of keys) walk(Object.hasOwn(a, k) ? a[k] : undefined, Object.hasOwn(b, k) ? b[k] : undefined, join(path, k), out);
    return;
  }
  if (!deepEqual(a, b)) out.push({ path, op: 'replace', from: a, to: b });
}
