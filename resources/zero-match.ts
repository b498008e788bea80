// A dataset query whose filters match no row of a sheet that has rows: most
// often a value in the wrong case or spelling. Such an update stores nothing
// and answers the latest version with a warning that lists, for each
// filtered column, the values the sheet has there (a few of them), so the
// fix is in sight.
import { distinctValues } from '../datasources/editor.ts';
import type { DatasourceRegistry } from '../datasources/types.ts';
import type { DatasetRevision } from '../schema/dataset.ts';

/** Values shown per column. */
const SHOWN_VALUES = 20;

/** Thrown by a dataset update's preparation: nothing to store, and why. */
export class NothingMatched extends Error {
  constructor(readonly warnings: string[]) {
    super(warnings.join('; '));
  }
}

/** The warning for filters that matched nothing, or undefined when the sheet itself has no rows (nothing to match). */
export async function zeroMatchWarning(datasources: DatasourceRegistry, query: DatasetRevision['query']): Promise<string | undefined> {
  const all = (await datasources.run({ ...query, filters: [] })).records;
  if (all.length === 0) return undefined;
  const columns = [...new Set(query.filters.map((f) => f.field))].map((field) => {
    const values = distinctValues(all, field.trim().toLowerCase());
    const shown = values.slice(0, SHOWN_VALUES).map((x) => JSON.stringify(x)).join(', ');
    return `${field}: ${shown}${values.length > SHOWN_VALUES ? ` and ${values.length - SHOWN_VALUES} more` : ''}`;
  });
  return `the filters match none of the sheet's ${all.length} rows, so no version was stored (values compare exactly, ` +
    `case included, except with like); values in the filtered columns: ${columns.join('; ')}`;
}
