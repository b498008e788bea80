// A dataset query's own column names (`query.columns`) on the editor routes
// (routes/query.ts): `columns.<field>=<header>` parameters, one per field, so
// the field list, the distinct values and the rows those routes answer are
// read as the query reads the sheet: `?columns.source=Site%20A&
// columns.destination=Site%20B` lists `source` and `destination` where the
// sheet says "Site A" and "Site B", and a sheet whose circuit-end headers are
// none of the accepted ones has a field list at all. Unlike filter values,
// these are form-decoded (`+` is a space): headers hold spaces far more often
// than plus signs, and no editor writes them by hand. Such parameters are
// never filters.
import * as v from 'valibot';
import { badRequest } from '../errors.ts';
import { QuerySchema, type DatasetQuery } from '../schema/dataset.ts';

const PREFIX = 'columns.';

/** Whether a parameter name (lower case) carries a column name rather than a filter. */
export const isColumnParam = (name: string) => name.startsWith(PREFIX);

/** `query.columns` from a raw query string (after `?`); undefined when it has no `columns.` parameter. 400 for a malformed one. */
export function columnsFromQuery(raw: string): DatasetQuery['columns'] {
  const mapping = new Map<string, string>();
  for (const [name, header] of new URLSearchParams(raw)) {
    if (!isColumnParam(name.toLowerCase())) continue;
    const field = name.slice(PREFIX.length);
    if (mapping.has(field)) throw badRequest(`query parameter ${name} is given twice: name one header per field`, [{ path: name, message: 'given twice' }]);
    mapping.set(field, header);
  }
  if (mapping.size === 0) return undefined;
  const checked = v.safeParse(QuerySchema.entries.columns, Object.fromEntries(mapping));
  if (checked.success) return checked.output;
  const issue = checked.issues[0];
  const at = issue.path?.map((p) => String(p.key)).join('.');
  const path = at ? `${PREFIX}${at}` : 'columns';
  throw badRequest(`invalid query parameter ${path}: ${issue.message}`, [{ path, message: issue.message }]);
}
