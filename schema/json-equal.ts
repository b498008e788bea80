// Structural equality of JSON values, shared by the diffs by meaning
// (history/) and the picture of a change (render/diff-svg.ts), which must agree
// on what counts as changed.

type Obj = Record<string, unknown>;

/**
 * Deep equality of JSON-like values without serializing them: datasets
 * compare thousands of records, and stringifying each twice would dominate.
 * Key order does not matter; an undefined member equals a missing one.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // NaN is not JSON, but a record built in memory may hold one: treat it as equal to itself.
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  const ao = a as Obj, bo = b as Obj;
  let count = 0;
  for (const k of Object.keys(ao)) {
    if (ao[k] === undefined) continue;
    count++;
    if (!Object.hasOwn(bo, k) || !deepEqual(ao[k], bo[k])) return false;
  }
  for (const k of Object.keys(bo)) if (bo[k] !== undefined) count--;
  return count === 0;
}
