// The one serialization of stored documents: pretty-printed, keys sorted at
// every level, newline at the end. Stable bytes make `git diff` of the data
// folder show only what changed, and make a document read back after a
// restart identical to the one served before it.

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + '\n';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    // defineProperty, not assignment: a key named "__proto__" stays plain data.
    Object.defineProperty(out, key, { value: sortKeys(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The in-memory copy of a stored document: exactly what a restart would read back. */
export function canonicalCopy<T>(value: T): T {
  return JSON.parse(canonicalJson(value)) as T;
}
