// The one serialization of stored documents: pretty-printed, keys sorted at
// every level, newline at the end. Stable bytes make `git diff` of the data
// folder show only what changed, and make a document read back after a
// restart identical to the one served before it. This is the definition:
// the store writes the same bytes through DocumentBuilder, which reuses
// earlier writes, and tests hold it to this plain version.

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + '\n';
}

/** The value with object keys sorted at every level and undefined properties dropped. */
function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return sortKeys((value as { toJSON: () => unknown }).toJSON()); // as JSON.stringify would (Date -> ISO string)
  }
  if (Array.isArray(value)) return value.map(sortKeys);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    // defineProperty for "__proto__" keeps it a plain own key instead of setting the prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: sortKeys(v), enumerable: true, writable: true, configurable: true });
    else out[key] = sortKeys(v);
  }
  return out;
}
