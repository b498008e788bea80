// Dataset query filters over edge records (docs/api.md: Filters). A filter is
// {field, operator, value[]}: `equal` is exact, `like` a case-insensitive
// substring; the values of one filter OR together, `not_equal`/`not_like`
// exclude a record when any value matches, and filters AND together. A field
// is a row column or `endpoints.<field>`, which matches either endpoint. An
// empty or missing cell is the empty string; an array matches when any of its
// items does. Field names ignore case, as headers do.
// A filter reads a column of the sheet as an array, taken once (from the
// cells, or from the records for circuit-end fields) and kept with the cached
// sheet, so repeated queries scan plain arrays. Building a circuit-end column
// (which builds the records) takes a turn of the event loop every
// ROWS_PER_TURN records (turns.ts).
import { validationFailed } from '../../errors.ts';
import type { Filter } from '../../schema/dataset.ts';
import { ownField } from './fields.ts';
import type { EdgeTab } from './records.ts';
import { inTurns, ROWS_PER_TURN } from './turns.ts';

/** Tells whether record `index` of the sheet passes. */
export type Match = (index: number) => boolean;

export async function compileFilters(filters: Filter[], sheet: EdgeTab): Promise<Match | null> {
  if (filters.length === 0) return null;
  const tests: Match[] = [];
  for (const [i, filter] of filters.entries()) tests.push(await compileFilter(filter, i, sheet));
  if (tests.length === 1) return tests[0];
  return (index) => {
    for (const test of tests) if (!test(index)) return false;
    return true;
  };
}

/** Every name a filter may use on this sheet, for listings and error messages. */
export const filterableColumns = (sheet: EdgeTab) =>
  [...sheet.rowColumns, ...sheet.endColumns.map((f) => `endpoints.${f}`)];

/** The column a filter reads (lower case, and whether on the circuit ends); 422 naming the columns there when the sheet has none of that name. */
export function checkFilterField(filter: Filter, index: number, sheet: EdgeTab): { key: string; onEnds: boolean } {
  const field = filter.field.trim().toLowerCase();
  const onEnds = field.startsWith('endpoints.');
  const key = onEnds ? field.slice('endpoints.'.length) : field;
  if (!(onEnds ? sheet.endColumns : sheet.rowColumns).includes(key)) {
    const message = `no column ${JSON.stringify(filter.field)} in sheet ${JSON.stringify(sheet.name)}; ` +
      `available: ${filterableColumns(sheet).join(', ')}`;
    throw validationFailed(`query.filters[${index}].field: ${message}`, [{ path: `query.filters.${index}.field`, message }]);
  }
  return { key, onEnds };
}

async function compileFilter(filter: Filter, index: number, sheet: EdgeTab): Promise<Match> {
  const { key, onEnds } = checkFilterField(filter, index, sheet);
  const like = filter.operator === 'like' || filter.operator === 'not_like';
  const hit = like ? likeTest(filter.value) : equalTest(filter.value);
  const test = (value: string | string[]) => (typeof value === 'string' ? hit(value) : value.some(hit));
  let matches: Match;
  if (onEnds) {
    const a = await column(sheet, key, 0, like);
    const b = await column(sheet, key, 1, like);
    matches = (i) => test(a[i]) || test(b[i]);
  } else {
    const values = await column(sheet, key, -1, like);
    matches = (i) => test(values[i]);
  }
  return filter.operator.startsWith('not_') ? (i) => !matches(i) : matches;
}

const cache = new WeakMap<EdgeTab, Map<string, (string | string[])[]>>();

/**
 * One column as text (lower case for like), by record index: a row column
 * (side -1, read from the cells) or a circuit-end field of the source (0) or
 * destination (1) (read from the records, which this builds).
 */
async function column(sheet: EdgeTab, key: string, side: -1 | 0 | 1, lower: boolean): Promise<(string | string[])[]> {
  const columns = cache.get(sheet) ?? new Map<string, (string | string[])[]>();
  cache.set(sheet, columns);
  const id = `${side}\u0000${lower ? 'lower' : ''}\u0000${key}`;
  let values = columns.get(id);
  if (!values) {
    const asText = (v: unknown) => {
      const text = v === undefined || v === null ? '' : String(v);
      return lower ? text.toLowerCase() : text;
    };
    if (side < 0) {
      values = sheet.rowColumn(key);
      if (lower) values = values.map((v) => (Array.isArray(v) ? v.map(asText) : asText(v)));
    } else {
      const built = new Array<string | string[]>(sheet.recordCount);
      await inTurns(0, sheet.recordCount, ROWS_PER_TURN, (from, to) => {
        for (let i = from; i < to; i++) {
          const v = ownField(sheet.record(i).endpoints[side as 0 | 1], key);
          built[i] = Array.isArray(v) ? v.map(asText) : asText(v);
        }
      });
      values = built;
    }
    columns.set(id, values);
  }
  return values;
}

function equalTest(values: string[]): (text: string) => boolean {
  if (values.length === 1) {
    const only = values[0];
    return (t) => t === only;
  }
  const set = new Set(values);
  return (t) => set.has(t);
}

/** Matches text already in lower case. */
function likeTest(values: string[]): (text: string) => boolean {
  const needles = values.map((v) => v.toLowerCase());
  return (t) => {
    for (const needle of needles) if (t.includes(needle)) return true;
    return false;
  };
}
