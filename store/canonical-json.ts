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
