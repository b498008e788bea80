// Dataset query filters over edge records (DESIGN: Datasources). A filter is
// {field, operator, value[]}: `equal` is exact, `like` a case-insensitive
// substring; the values of one filter OR together, `not_equal`/`not_like`
// exclude a record when any value matches, and filters AND together. A field
// is a row column or `endpoints.<field>`, which matches either endpoint. An
// empty or missing cell is the empty string; an array matches when any of its
// items does. Field names ignore case, as headers do.
import { validationFailed } from '../../errors.ts';
import type { Filter } from '../../schema/dataset.ts';
import type { EdgeRecord } from '../types.ts';
import { ownField } from './fields.ts';
import type { EdgeSheet } from './records.ts';

export type Match = (record: EdgeRecord) => boolean;

export function compileFilters(filters: Filter[], sheet: EdgeSheet): Match | null {
  if (filters.length === 0) return null;
  const tests = filters.map((filter, i) => compileFilter(filter, i, sheet));
  return (record) => {
    for (const test of tests) if (!test(record)) return false;
    return true;
  };
}

/** Every name a filter may use on this sheet, for listings and error messages. */
export const filterableColumns = (sheet: EdgeSheet) =>
  [...sheet.rowColumns, ...sheet.endpointColumns.map((f) => `endpoints.${f}`)];

function compileFilter(filter: Filter, index: number, sheet: EdgeSheet): Match {
  const field = filter.field.trim().toLowerCase();
  const onEndpoints = field.startsWith('endpoints.');
  const key = onEndpoints ? field.slice('endpoints.'.length) : field;
  if (!(onEndpoints ? sheet.endpointColumns : sheet.rowColumns).includes(key)) {
    const message = `no column ${JSON.stringify(filter.field)} in sheet ${JSON.stringify(sheet.name)}; ` +
      `available: ${filterableColumns(sheet).join(', ')}`;
    throw validationFailed(`query.filters[${index}].field: ${message}`, [{ path: `query.filters.${index}.field`, message }]);
  }
  const exact = filter.operator === 'equal' || filter.operator === 'not_equal';
  const hit = exact ? equalTest(filter.value) : likeTest(filter.value);
  const test: (value: unknown) => boolean = (value) => {
    if (Array.isArray(value)) return value.some((item) => hit(text(item)));
    return hit(text(value));
  };
  const matches: Match = onEndpoints
    ? (r) => test(ownField(r.endpoints[0], key)) || test(ownField(r.endpoints[1], key))
    : (r) => test(ownField(r, key));
  return filter.operator.startsWith('not_') ? (r) => !matches(r) : matches;
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));

function equalTest(values: string[]): (text: string) => boolean {
  if (values.length === 1) {
    const only = values[0];
    return (t) => t === only;
  }
  const set = new Set(values);
  return (t) => set.has(t);
}

function likeTest(values: string[]): (text: string) => boolean {
  const needles = values.map((v) => v.toLowerCase());
  return (t) => {
    const hay = t.toLowerCase();
    for (const needle of needles) if (hay.includes(needle)) return true;
    return false;
  };
}
