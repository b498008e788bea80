// Runs a dataset query against one parsed edge sheet: validates the field
// names the query uses (filters, deduplication, grouping) against the sheet,
// then filters. The records are the cache's own objects (built on first use;
// copying them would cost more than the query): callers read them and never
// change them. The result array is new each time. Records are gathered
// (and built, on a first query) ROWS_PER_TURN at a time with a turn of the
// event loop between (turns.ts).
import { validationFailed } from '../../errors.ts';
import type { DatasetQuery } from '../../schema/dataset.ts';
import type { EdgeRecord, QueryResult } from '../types.ts';
import { checkFilterField, compileFilters } from './filter.ts';
import type { EdgeTab } from './records.ts';
import { inTurns, ROWS_PER_TURN } from './turns.ts';

/** 422 naming the first field of `query` (filters, deduplication, grouping) the sheet has no column for; reads no rows. */
export function checkQueryFields(sheet: EdgeTab, query: DatasetQuery): void {
  checkNodeFields(sheet, query);
  for (const [index, filter] of query.filters.entries()) checkFilterField(filter, index, sheet);
}

export async function runQuery(sheet: EdgeTab, query: DatasetQuery): Promise<QueryResult> {
  checkNodeFields(sheet, query);
  const match = await compileFilters(query.filters, sheet);
  const records: EdgeRecord[] = [];
  await inTurns(0, sheet.recordCount, ROWS_PER_TURN, (from, to) => {
    for (let i = from; i < to; i++) if (!match || match(i)) records.push(sheet.record(i));
  });
  const result: QueryResult = { records, problems: sheet.problems.slice() };
  if (sheet.problemCount > sheet.problems.length) result.problemCount = sheet.problemCount;
  return result;
}

/**
 * node_deduplication_field, node_group_criteria and role_field must name circuit-end fields
 * of this sheet exactly as stored (lower case, no `endpoints.` prefix), since
 * the renderer reads them from the endpoints as given; a near miss is named.
 */
function checkNodeFields(sheet: EdgeTab, query: DatasetQuery) {
  const named: [string, string][] = [];
  if (query.node_deduplication_field) named.push(['query.node_deduplication_field', query.node_deduplication_field]);
  for (const [i, name] of (query.node_group_criteria ?? []).entries()) named.push([`query.node_group_criteria.${i}`, name]);
  if (query.role_field) named.push(['query.role_field', query.role_field]);
  const errors = named
    .filter(([, name]) => !sheet.endColumns.includes(name))
    .map(([path, name]) => {
      const near = name.trim().toLowerCase().replace(/^endpoints\./, '');
      const hint = sheet.endColumns.includes(near) ? ` (did you mean ${JSON.stringify(near)}?)` : '';
      return {
        path,
        message: `no endpoint field ${JSON.stringify(name)} in sheet ${JSON.stringify(sheet.name)}${hint}; ` +
          `available: ${sheet.endColumns.join(', ')}`,
      };
    });
  if (errors.length) throw validationFailed(`${errors[0].path}: ${errors[0].message}`, errors);
}
