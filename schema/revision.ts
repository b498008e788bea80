// The top level of a create or update body (docs/api.md: Create and update bodies): clients send back
// the whole object a GET returned, so the object's own read-only fields (its
// ID, version, stamps, results, …) are accepted and ignored, for every
// resource alike; any other unknown key is 422 naming it, with the right
// place for a likely mistake (a top-level `layers` belongs in
// `configuration`). A typo must not be stored silently, nor a field dropped.
import * as v from 'valibot';

const STAMPS = ['version', 'lastUpdatedBy', 'lastUpdatedOn', 'warnings'] as const;

/**
 * A strict object of `entries`, accepting and dropping `readOnly` (plus the
 * stamps every object has); `hints` says where a misplaced key belongs.
 */
export function revisionSchema<E extends v.ObjectEntries>(entries: E, readOnly: readonly string[], hints: Readonly<Record<string, string>> = {}) {
  const ignored = [...STAMPS, ...readOnly];
  const accepted = Object.keys(entries);
  const message = (issue: v.BaseIssue<unknown>) => {
    if (issue.expected !== 'never') return 'expected a JSON object';
    let key = issue.received;
    try {
      key = JSON.parse(issue.received) as string;
    } catch { /* received as valibot wrote it */ }
    const hint = Object.hasOwn(hints, key) ? `; ${hints[key]}` : '';
    return `unknown field ${JSON.stringify(key)}${hint} (fields: ${accepted.join(', ')}; read-only fields of the record are ignored)`;
  };
  return v.pipe(
    v.strictObject({ ...entries, ...Object.fromEntries(ignored.map((k) => [k, v.optional(v.unknown())])) }, message),
    v.transform((body) => {
      const out: Record<string, unknown> = { ...body };
      for (const key of ignored) delete out[key];
      return out as v.InferOutput<v.ObjectSchema<E, undefined>>;
    }),
  );
}

/** Where keys that belong inside another object go, for the hints of revisionSchema. */
export function belongIn(place: string, keys: readonly string[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, `it belongs in ${place} (${place}.${k})`]));
}
