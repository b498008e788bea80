// The one serialization of stored documents: pretty-printed, keys sorted at
// every level, newline at the end. Stable bytes make `git diff` of the data
// folder show only what changed, and make a document read back after a
// restart identical to the one served before it.

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + '\n';
}

/**
 * The value with object keys sorted and undefined properties dropped. A part
 * that is already canonical (every document the store hands out, so every
 * old version inside a growing document) is returned as is, without copying:
 * a write then costs a walk, not a rebuild, of what did not change.
 */
function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return sortKeys((value as { toJSON: () => unknown }).toJSON()); // as JSON.stringify would (Date -> ISO string)
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = sortKeys(value[i]);
      if (item !== value[i] && !copy) copy = value.slice(0, i);
      copy?.push(item);
    }
    return copy ?? value;
  }
  const keys = Object.keys(value);
  let canonical = true;
  const sorted: unknown[] = [];
  for (let i = 0; i < keys.length; i++) {
    const v = (value as Record<string, unknown>)[keys[i]];
    const s = v === undefined ? undefined : sortKeys(v);
    sorted.push(s);
    if (s !== v || v === undefined || (i > 0 && keys[i - 1] > keys[i])) canonical = false;
  }
  if (canonical) return value;
  const order = keys.map((key, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  const out: Record<string, unknown> = {};
  for (const i of order) {
    if (sorted[i] === undefined) continue;
    // defineProperty for "__proto__" keeps it a plain own key instead of setting the prototype.
    if (keys[i] === '__proto__') {
      Object.defineProperty(out, keys[i], { value: sorted[i], enumerable: true, writable: true, configurable: true });
    } else out[keys[i]] = sorted[i];
  }
  return out;
}

/** The in-memory copy of a stored document: exactly what a restart would read back. */
export function canonicalCopy<T>(value: T): T {
  return JSON.parse(canonicalJson(value)) as T;
}

/**
 * Builds stored documents: a frozen copy of a value in canonical form, equal
 * to what JSON.parse(canonicalJson(value)) gives (and so to what a restart
 * reads back), but reusing every part this builder made before. A new version
 * appended to a document with 300 old ones then costs the new version, not a
 * copy of the whole document. Parts are frozen so that a caller mutating a
 * stored document fails loudly instead of corrupting memory and caches.
 */
export class DocumentBuilder {
  private built = new WeakSet<object>();

  build<T>(value: T): T {
    return this.copy(value, false) as T;
  }

  // Pretty text of built parts, per nesting depth. Built parts never change,
  // so a write of a document with 300 old versions serializes only the new
  // one and joins the old texts, instead of stringifying the whole history.
  private texts = new WeakMap<object, string[]>();

  // The text of a built array without its closing bracket, by its last
  // element: a document's versions array usually grows by one element, so its
  // new text is the old text with one more item, found without walking the
  // old items' texts again. Keeping the text open (instead of slicing the
  // closing bracket off) also spares copying the whole history to do so.
  private lastOf = new WeakMap<object, { array: readonly unknown[]; depth: number; head: string }>();

  private grownHead(array: readonly unknown[], depth: number, inner: string): string | undefined {
    if (array.length < 2) return undefined;
    const before = array[array.length - 2];
    const prior = before !== null && typeof before === 'object' ? this.lastOf.get(before) : undefined;
    if (!prior || prior.depth !== depth || prior.array.length !== array.length - 1) return undefined;
    for (let i = 0; i < prior.array.length; i++) if (prior.array[i] !== array[i]) return undefined;
    return `${prior.head},${inner}${this.pretty(array[array.length - 1] ?? null, depth + 1)}`;
  }

  /** JSON.stringify(doc, null, 2) of a document this builder built, reusing the text of unchanged parts. */
  text(doc: unknown): string {
    return this.pretty(doc, 0);
  }

  private pretty(value: unknown, depth: number): string {
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    const memo = this.built.has(value) ? this.texts.get(value) : undefined;
    const cached = memo?.[depth];
    if (cached !== undefined) return cached;
    const inner = '\n' + '  '.repeat(depth + 1);
    const outer = '\n' + '  '.repeat(depth);
    let out: string;
    if (Array.isArray(value)) {
      if (value.length === 0) out = '[]';
      else {
        const head = this.grownHead(value, depth, inner)
          ?? `[${inner}${value.map((item) => this.pretty(item ?? null, depth + 1)).join(`,${inner}`)}`;
        out = `${head}${outer}]`;
        const last = value[value.length - 1];
        if (this.built.has(value) && last !== null && typeof last === 'object') this.lastOf.set(last, { array: value, depth, head });
      }
    } else {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).filter((key) => record[key] !== undefined);
      out = keys.length === 0
        ? '{}'
        : `{${inner}${keys.map((key) => `${JSON.stringify(key)}: ${this.pretty(record[key], depth + 1)}`).join(`,${inner}`)}${outer}}`;
    }
    if (this.built.has(value)) {
      let byDepth = this.texts.get(value);
      if (!byDepth) this.texts.set(value, (byDepth = []));
      byDepth[depth] = out;
    }
    return out;
  }

  private copy(value: unknown, inArray: boolean): unknown {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        return Number.isFinite(value) ? (Object.is(value, -0) ? 0 : value) : null;
      case 'bigint':
        throw new TypeError('a BigInt has no JSON form');
      case 'object':
        break;
      default: // undefined, function, symbol: dropped from objects, null in arrays (as JSON.stringify does)
        return inArray ? null : undefined;
    }
    if (value === null) return null;
    if (this.built.has(value)) return value;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      return this.copy((value as { toJSON: () => unknown }).toJSON(), inArray);
    }
    let out: unknown;
    if (Array.isArray(value)) {
      out = value.map((item) => this.copy(item, true));
    } else {
      const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const obj: Record<string, unknown> = {};
      for (const key of keys) {
        const v = this.copy((value as Record<string, unknown>)[key], false);
        if (v === undefined) continue;
        // defineProperty for "__proto__" keeps it a plain own key instead of setting the prototype.
        if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[key] = v;
      }
      out = obj;
    }
    Object.freeze(out);
    this.built.add(out as object);
    return out;
  }
}
