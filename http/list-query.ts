// Query parameters of the list and get-by-ID routes, parsed with the
// schemas of schema/list.ts. Anything malformed or unknown is 400 naming the
// parameter (a typo such as ?feilds= must not silently return everything).
import type { Context } from 'hono';
import * as v from 'valibot';
import { badRequest } from '../errors.ts';
import type { ListQuery, ResourceDescriptor } from '../resources/types.ts';
import {
  BooleanParamSchema, fieldsParamSchema, LimitParamSchema, OffsetParamSchema, OneVersionParamSchema,
  StringFilterSchema, VersionParamSchema,
} from '../schema/list.ts';
import { HeightParamSchema, WidthParamSchema } from '../schema/picture.ts';

type FilterType = 'string' | 'boolean';

/** What one list route accepts. The OpenAPI document is built from the same spec. */
export interface ListSpec {
  resource: ResourceDescriptor;
  /** Filter parameters: field name -> value type. */
  filters: Readonly<Record<string, FilterType>>;
}

const show = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

export function parseParam<S extends v.GenericSchema<string, unknown>>(schema: S, name: string, raw: string): v.InferOutput<S> {
  const result = v.safeParse(schema, raw);
  if (result.success) return result.output;
  const message = result.issues[0].message;
  throw badRequest(`invalid query parameter ${name}=${show(raw)}: ${message}`, [{ path: name, message }]);
}

/**
 * The query's parameters; `once` reads one given at most once. Parameters a
 * route does not know are ignored (docs/api.md, Lists: clients add cache-busters such as
 * `?t=…` and parameters of their own); a known one with a malformed value is
 * still 400. `_accepted` documents what the route reads.
 */
export function params(c: Context, _accepted: readonly string[]) {
  const search = new URL(c.req.url).searchParams;
  const once = (name: string) => {
    const all = search.getAll(name);
    if (all.length > 1) throw badRequest(`query parameter ${name} may be given once`, [{ path: name, message: 'given more than once' }]);
    return all[0];
  };
  return { search, once };
}

const LIST_PAGING = ['version', 'fields', 'limit', 'offset', 'sort'] as const;

/** The raw query string (after "?"), without building a URL object. */
function rawQuery(c: Context): string {
  const url = c.req.url;
  const start = url.indexOf('?');
  return start < 0 ? '' : url.slice(start + 1);
}

// Parsed queries by raw query string, per list spec: a list request seen
// before is not parsed again (and keeps its identity, which the collection's
// list cache keys on). Bounded like the list cache.
const MAX_PARSED = 256;
const parsedBySpec = new WeakMap<ListSpec, Map<string, ListQuery>>();
const fieldSchemas = new WeakMap<ListSpec, ReturnType<typeof fieldsParamSchema>>();

export function parseListQuery(c: Context, spec: ListSpec): ListQuery {
  const raw = rawQuery(c);
  let parsed = parsedBySpec.get(spec);
  if (!parsed) parsedBySpec.set(spec, (parsed = new Map()));
  let query = parsed.get(raw);
  if (!query) {
    query = parseListParams(c, spec);
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(raw, query);
  }
  return query;
}

function parseListParams(c: Context, spec: ListSpec): ListQuery {
  const filterNames = Object.keys(spec.filters);
  const { search, once } = params(c, [...LIST_PAGING, ...filterNames]);

  const version = once('version');
  const limit = once('limit');
  const offset = once('offset');

  let fieldSchema = fieldSchemas.get(spec);
  if (!fieldSchema) fieldSchemas.set(spec, (fieldSchema = fieldsParamSchema(spec.resource.fields)));
  const fields: string[] = [];
  for (const raw of search.getAll('fields')) {
    for (const piece of raw.split(',')) {
      const name = piece.trim();
      if (name && !fields.includes(name)) fields.push(parseParam(fieldSchema, 'fields', name));
    }
  }

  const filters = filterNames
    .filter((name) => search.has(name))
    .map((name) => {
      const schema = spec.filters[name] === 'boolean' ? BooleanParamSchema : StringFilterSchema;
      return [name, search.getAll(name).map((raw) => parseParam(schema, name, raw))] as const;
    });

  const sort: Array<[string, 1 | -1]> = [];
  for (const raw of search.getAll('sort')) {
    for (const piece of raw.split(',')) {
      const spec = piece.trim();
      if (!spec) continue;
      const descending = spec.startsWith('-');
      const name = parseParam(fieldSchema, 'sort', descending || spec.startsWith('+') ? spec.slice(1) : spec);
      if (!sort.some(([field]) => field === name)) sort.push([name, descending ? -1 : 1]);
    }
  }

  return {
    sort,
    version: version === undefined ? 'latest' : parseParam(VersionParamSchema, 'version', version),
    fields: fields.length ? fields : spec.resource.defaultFields,
    filters,
    limit: limit === undefined ? undefined : parseParam(LimitParamSchema, 'limit', limit),
    offset: offset === undefined ? 0 : parseParam(OffsetParamSchema, 'offset', offset),
  };
}

/** Get-by-ID: only `version` (latest or a number). */
export function parseVersionQuery(c: Context): 'latest' | number {
  if (rawQuery(c) === '') return 'latest';
  const { once } = params(c, ['version']);
  const version = once('version');
  return version === undefined ? 'latest' : parseParam(OneVersionParamSchema, 'version', version);
}

/** An output request without a query string: one answer for all of them (no objects made per request). */
const NO_OUTPUT_QUERY = Object.freeze({ version: 'latest' as const, get: (_: string): string | undefined => undefined });

/** Output endpoints: `version` and, where named, other single-valued parameters (e.g. `template`). */
export function parseOutputQuery(c: Context, extra: readonly string[] = []) {
  if (rawQuery(c) === '') return NO_OUTPUT_QUERY;
  const { once } = params(c, ['version', ...extra]);
  const version = once('version');
  return {
    // Empty is absent, as in a layer's mapjsonUrl (output/layers.ts), which points at these URLs.
    version: version === undefined || version === '' ? ('latest' as const) : parseParam(OneVersionParamSchema, 'version', version),
    get: (name: string) => once(name),
  };
}

const NO_SIZE: { width?: number; height?: number } = Object.freeze({});

/**
 * Picture routes: `width` and `height` in px (docs/api.md: Picture size),
 * read with `get` (each at most once); empty counts as absent, as `version`.
 */
export function parsePictureSize(get: (name: string) => string | undefined): { width?: number; height?: number } {
  const width = get('width'), height = get('height');
  if (!width && !height) return NO_SIZE;
  return {
    ...(width ? { width: parseParam(WidthParamSchema, 'width', width) } : {}),
    ...(height ? { height: parseParam(HeightParamSchema, 'height', height) } : {}),
  };
}
