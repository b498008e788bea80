// An entry's outline: what a log keeps of each entry beside the entry itself,
// so a log can be filtered, counted and sorted without reading its entries.
// It holds the entry's top-level fields whose values are short scalars, and
// the names of the others (objects, arrays, long text), which a reader must
// read the entry for. It is made from the entry alone, so it is the same
// whichever process makes it, whenever: with the entry, when it is stored, or
// later, from the entry read back, for entries stored before outlines were.
import type { Outline, OutlineValue } from './types.ts';

/** Longer text is left out of an outline (descriptions, comments): a reader that needs it reads the entry. */
const MAX_KEPT_CHARS = 256;

const isKept = (value: unknown): value is OutlineValue => value === null || typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.length <= MAX_KEPT_CHARS);

function freeze(fields: Record<string, OutlineValue>, omitted: string[]): Outline {
  return Object.freeze({ fields: Object.freeze(fields), omitted: Object.freeze(omitted.sort()) });
}

/**
 * The outline of an entry (as stored: fields whose value is undefined are not
 * stored, so they are not in it; a value that is not plain JSON, such as a
 * Date, is left out, as a reader of the stored entry judges it).
 */
export function outlineOf(entry: object): Outline {
  // No prototype: a field named `constructor` or `__proto__` is one of the entry's, never an inherited one.
  const fields: Record<string, OutlineValue> = Object.create(null);
  const omitted: string[] = [];
  for (const name of Object.keys(entry).sort()) {
    const value = (entry as Record<string, unknown>)[name];
    if (value === undefined || typeof value === 'function') continue;
    if (isKept(value)) fields[name] = value;
    else omitted.push(name);
  }
  return freeze(fields, omitted);
}

/** The stored form of an outline: one line of JSON (text values are escaped, so it holds no line break). */
export const outlineText = (outline: Outline): string => JSON.stringify(outline);

/** An outline read back from its stored form; undefined when the text is not one (cut short by a crash, say). */
export function parseOutline(text: string): Outline | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const { fields, omitted } = value as { fields?: unknown; omitted?: unknown };
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
  if (!Array.isArray(omitted) || !omitted.every((name) => typeof name === 'string')) return undefined;
  const kept: Record<string, OutlineValue> = Object.create(null);
  for (const [name, field] of Object.entries(fields)) {
    if (!isKept(field)) return undefined;
    kept[name] = field;
  }
  return freeze(kept, [...omitted]);
}
