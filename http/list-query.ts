// The list routes' query (docs/api.md: Lists): what one list route accepts
// (its spec, from which http/operation.ts `listParams` declares the
// parameters) and the list query the resources read, made from the
// parameters the registrar parsed with those declarations (http/parameters.ts).
import type { ListQuery, ResourceDescriptor } from '../resources/types.ts';
import { VERSION_PAGE } from '../schema/list.ts';
import type { listParams, QueryOf } from './operation.ts';

type FilterType = 'string' | 'boolean';

/** What one list route accepts. The OpenAPI document is built from the same spec. */
export interface ListSpec {
  resource: ResourceDescriptor;
  /** Filter parameters: field name -> value type. */
  filters: Readonly<Record<string, FilterType>>;
}

/** A list route's parsed query parameters (its filters by their names). */
type ListInput = QueryOf<ReturnType<typeof listParams>>;

// The list query of each parsed query: the registrar hands a request seen before
// the same parsed query, so it gets the same list query (which the collection's list cache keys on).
const made = new WeakMap<ListInput, ListQuery>();

/** The list query of a list route's parsed parameters: fields and sort keys once each, older versions paged by default. */
export function listQuery(spec: ListSpec, input: ListInput): ListQuery {
  const kept = made.get(input);
  if (kept) return kept;
  const fields = [...new Set(input.fields)];
  const sort: Array<readonly [string, 1 | -1]> = [];
  for (const key of input.sort) if (!sort.some(([field]) => field === key[0])) sort.push(key);
  const filters = Object.keys(spec.filters).flatMap((name) => {
    const values = input[name];
    return Array.isArray(values) && values.length > 0 ? [[name, values] as const] : [];
  });
  const query: ListQuery = {
    sort,
    version: input.version ?? 'latest',
    fields: fields.length ? fields : spec.resource.defaultFields,
    filters,
    // Lists of older versions are paged by default: no request reads a whole history at once.
    limit: input.limit ?? (input.version === undefined || input.version === 'latest' ? undefined : VERSION_PAGE),
    offset: input.offset ?? 0,
  };
  made.set(input, query);
  return query;
}
