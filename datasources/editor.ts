// What Terranova's dataset editor needs of a datasource beyond running a
// query (docs/api.md: Datasources and the dataset editor): the paths it calls for an entry of
// GET /api/v1/datasources/, its field list, distinct values of a field, and
// filters written as query parameters.
//
// The editor builds those parameters by hand, one `<field>[_<operator>]=<value>&`
// per value of each filter (`region=europe&region=asia&name_like=chic&`), with
// nothing encoded: the browser then percent-encodes what a URL cannot hold
// (a space becomes %20) and leaves a `+` as it is. So `+` is read both ways:
// as itself (what the editor meant) and as a space (what a form-encoding
// client such as URLSearchParams meant); a filter value with a `+` matches
// either. A raw `%` that starts no escape stays a `%`.
import type { FILTER_OPERATORS, Filter } from '../schema/dataset.ts';
import { isColumnParam } from './editor-columns.ts';
import type { EdgeRecord } from './types.ts';

type Operator = (typeof FILTER_OPERATORS)[number];

/** The editor's three paths of one datasource entry, relative to /api/v1 (the editor prefixes its API_URL). */
export interface EditorPaths {
  query_endpoint: string;
  filterable_columns_endpoint: string;
  distinct_values_endpoint: string;
}

/**
 * Paths of the editor routes for an endpoint of `kind` whose path parameters
 * have `values`; undefined when a value cannot be a path segment (empty, or
 * `.`/`..`, which URL parsers remove from paths).
 */
export function editorPaths(kind: string, values: readonly string[]): EditorPaths | undefined {
  if (values.some((value) => value === '' || value === '.' || value === '..')) return undefined;
  const base = `/datasources/${encodeURIComponent(kind)}/${values.map(encodeURIComponent).join('/')}`;
  return {
    query_endpoint: `${base}/query`,
    filterable_columns_endpoint: `${base}/filterable_columns`,
    distinct_values_endpoint: `${base}/distinct`,
  };
}

/** One entry of the editor's field list: `{label, field, placeholder}` (Terranova's shape). */
export interface FieldChoice {
  label: string;
  field: string;
  placeholder: string;
}

/** `capacity_gbps` -> "Capacity Gbps", `endpoints.site` -> "Endpoint Site". */
function fieldLabel(field: string): string {
  const onEnds = field.startsWith('endpoints.');
  const words = (onEnds ? field.slice('endpoints.'.length) : field).split(/[_\s]+/).filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return `${onEnds ? 'Endpoint ' : ''}${words.join(' ') || field}`;
}

export function fieldList(columns: readonly string[]): FieldChoice[] {
  return columns.map((field) => {
    const label = fieldLabel(field);
    return { label, field, placeholder: `Filter by ${label}…` };
  });
}

/** Operator suffixes of a parameter name, longest first (`_not_like` before `_like`). */
const SUFFIXES: [string, Operator][] = [['_not_like', 'not_like'], ['_not_equal', 'not_equal'], ['_like', 'like'], ['_equal', 'equal']];

/** `%XX` escapes decoded as UTF-8; anything else (a lone `%`, bytes that are not UTF-8) left as it is. */
export function decodeLoosely(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    // Decode each run of valid escapes on its own, keep the rest.
    return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

export interface ParsedFilters {
  filters: Filter[];
  /** Parameter names that named no field of the datasource (ignored, as unknown parameters are). */
  ignored: string[];
}

/**
 * Filters from a raw query string (after `?`), as the editor writes them.
 * A parameter is a filter when its name is a field (equal), or a field plus
 * an operator suffix; names in `reserved` (limit, offset…) and names that are
 * no field are left out. Values of one field and operator OR together, in
 * one filter; different fields or operators make separate filters, in order
 * of first appearance. Fields match without regard to case, as headers do.
 */
export function filtersFromQuery(raw: string, columns: readonly string[], reserved: readonly string[] = []): ParsedFilters {
  const known = new Set(columns.map((c) => c.toLowerCase()));
  const byKey = new Map<string, Filter>();
  const ignored: string[] = [];
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    const target = fieldOf(rawName, known, reserved);
    if (target === null) continue;
    if (target === undefined) {
      ignored.push(decodeLoosely(rawName));
      continue;
    }
    const key = `${target.operator}\u0000${target.field}`;
    let filter = byKey.get(key);
    if (!filter) byKey.set(key, (filter = { field: target.field, operator: target.operator, value: [] }));
    for (const value of readings(rawValue)) if (!filter.value.includes(value)) filter.value.push(value);
  }
  return { filters: [...byKey.values()], ignored };
}

/** The field and operator a parameter name means; null for a reserved name, undefined for no field. */
function fieldOf(rawName: string, known: Set<string>, reserved: readonly string[]): { field: string; operator: Operator } | null | undefined {
  for (const name of readings(rawName)) {
    const lower = name.trim().toLowerCase();
    // `columns.<field>` names a column for the query (editor-columns.ts), never a filter.
    if (reserved.includes(lower) || isColumnParam(lower)) return null;
    if (known.has(lower)) return { field: lower, operator: 'equal' };
    for (const [suffix, operator] of SUFFIXES) {
      if (lower.endsWith(suffix) && known.has(lower.slice(0, -suffix.length))) return { field: lower.slice(0, -suffix.length), operator };
    }
  }
  return undefined;
}

/** What a raw (not form-encoded) piece of a query string may mean: `+` as itself first, then as a space. */
function readings(raw: string): string[] {
  const literal = decodeLoosely(raw);
  if (!raw.includes('+')) return [literal];
  const spaced = decodeLoosely(raw.replaceAll('+', ' '));
  return spaced === literal ? [literal] : [literal, spaced];
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * The distinct non-empty values of `field` among the records, sorted
 * naturally ("2" before "10", case-insensitive, then by code point). A
 * repeated header's list counts each item; `endpoints.<field>` reads both
 * ends. Values are compared as text, as filters compare them.
 */
export function distinctValues(records: readonly EdgeRecord[], field: string): string[] {
  const onEnds = field.startsWith('endpoints.');
  const key = onEnds ? field.slice('endpoints.'.length) : field;
  const seen = new Set<string>();
  const add = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const item of value) add(item);
      return;
    }
    if (value === undefined || value === null || typeof value === 'object') return;
    const text = String(value);
    if (text !== '') seen.add(text);
  };
  const own = (obj: object) => (Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined);
  for (const record of records) {
    if (onEnds) for (const end of record.endpoints) add(own(end));
    else add(own(record));
  }
  return [...seen].sort((a, b) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0));
}
