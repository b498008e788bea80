// Path and query parameters, parsed by the registrar (http/register.ts) with
// the schemas an operation declares (the ones its OpenAPI document shows)
// before its handler runs, which receives their output as `input.params` and
// `input.query`. A path value its schema refuses names nothing: 404 with the
// schema's message. A query value its schema refuses, a single-valued
// parameter given twice or a required one missing is 400 naming it; a
// parameter the route does not declare is ignored (docs/api.md, Lists:
// clients add cache-busters such as `?t=…`).
import * as v from 'valibot';
import { badRequest, notFound } from '../errors.ts';
import type { QueryParam } from './operation.ts';

type Values = Readonly<Record<string, unknown>>;
const NONE: Values = Object.freeze({});

const show = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

/** The output of `schema` for the query value `raw`, or 400 naming the parameter. */
function parseParam<S extends v.GenericSchema>(schema: S, name: string, raw: string): v.InferOutput<S> {
  const result = v.safeParse(schema, raw);
  if (result.success) return result.output;
  const message = result.issues[0].message;
  throw badRequest(`invalid query parameter ${name}=${show(raw)}: ${message}`, [{ path: name, message }]);
}

// Parsed path values by their raw text, per operation: the same map asked for
// again (a picture on a wall screen) is not checked again. Bounded, short ones only.
const MAX_PARSED = 128;
const MAX_KEPT_LENGTH = 512;

/** A cache of parsed values by the text they were parsed from, dropped whole when full. */
function kept<T>() {
  let parsed = new Map<string, T>();
  return {
    get: (key: string) => parsed.get(key),
    set(key: string, value: T) {
      if (key.length > MAX_KEPT_LENGTH) return value;
      if (parsed.size >= MAX_PARSED) parsed = new Map();
      parsed.set(key, value);
      return value;
    },
  };
}

/** Where path values are read: the router's (Hono's `c.req`, percent-decoded), or a renaming of it. */
export interface PathValues {
  param(name: string): string | undefined;
}

/** Parses the path parameters `schemas` declares, read from `raw`. */
export function pathParser(schemas: Readonly<Record<string, v.GenericSchema>> | undefined): (raw: PathValues) => Values {
  const declared = Object.entries(schemas ?? {});
  if (declared.length === 0) return () => NONE;
  const cache = kept<Values>();
  const parse = (values: string[]) => {
    const out: Record<string, unknown> = {};
    declared.forEach(([name, schema], i) => {
      const result = v.safeParse(schema, values[i]);
      if (!result.success) throw notFound(result.issues[0].message);
      out[name] = result.output;
    });
    return Object.freeze(out);
  };
  if (declared.length === 1) {
    // One parameter (an ID, most routes): its value is the cache key, no array made per request.
    const [[name]] = declared;
    return (raw) => {
      const value = raw.param(name) ?? '';
      return cache.get(value) ?? cache.set(value, parse([value]));
    };
  }
  return (raw) => {
    const values = declared.map(([name]) => raw.param(name) ?? '');
    const key = JSON.stringify(values);
    return cache.get(key) ?? cache.set(key, parse(values));
  };
}

/** The query string of a request URL (after "?", without a fragment), without building a URL object. */
export function rawQuery(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return '';
  const hash = url.indexOf('#', mark);
  return url.slice(mark + 1, hash < 0 ? undefined : hash);
}

function parseValue(q: QueryParam, raw: string): unknown {
  if (!q.names) return parseParam(q.schema, q.name, raw);
  const result = v.safeParse(q.schema, raw);
  if (result.success) return result.output;
  throw notFound(result.issues[0].message);
}

function parseQuery(declared: readonly QueryParam[], search: URLSearchParams): Values {
  const out: Record<string, unknown> = {};
  for (const q of declared) {
    let given = search.getAll(q.name);
    if (q.list) {
      if (q.commas) given = given.flatMap((raw) => raw.split(',').map((piece) => piece.trim()).filter((piece) => piece !== ''));
      out[q.name] = Object.freeze(given.map((raw) => parseValue(q, raw)));
      continue;
    }
    if (given.length > 1) throw badRequest(`query parameter ${q.name} may be given once`, [{ path: q.name, message: 'given more than once' }]);
    const raw = given[0];
    if (raw === undefined || (raw === '' && q.blankIsAbsent)) {
      if (q.required) throw badRequest(`query parameter ${q.name} is required${q.description ? `: ${q.description}` : ''}`, [{ path: q.name, message: 'required' }]);
      out[q.name] = undefined;
    } else out[q.name] = parseValue(q, raw);
  }
  return Object.freeze(out);
}

// Parsed queries by query string, per operation, as path values are: a
// request seen before is not parsed again (and its query keeps its identity,
// which the list caches key on).
/** Parses the query parameters `declared`; a request without a query string gets one shared answer (nothing made per request). */
export function queryParser(declared: readonly QueryParam[] | undefined): (url: string) => Values {
  const params = declared ?? [];
  if (params.length === 0) return () => NONE;
  const none = params.some((q) => q.required) ? undefined : parseQuery(params, new URLSearchParams());
  const cache = kept<Values>();
  return (url) => {
    const raw = rawQuery(url);
    if (raw === '' && none) return none;
    return cache.get(raw) ?? cache.set(raw, parseQuery(params, new URLSearchParams(raw)));
  };
}
