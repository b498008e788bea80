// The `spreadsheet` datasource kind: .xlsx workbooks and .csv files in the
// configured folder (docs/spreadsheets.md). Endpoint
// parameters: sheet_id (file name without extension) and sheet_name (tab
// name; a CSV's own sheet_id). Files are looked up by scanning the folder, so
// a sheet_id never becomes part of a path.
import { datasourceUnavailable, isServiceError, validationFailed } from '../../errors.ts';
import type { DatasetQuery } from '../../schema/dataset.ts';
import { endpointProblem, requireParams } from '../endpoint.ts';
import type { DatasourceKind } from '../kind.ts';
import type { DatasourceListing, QueryResult } from '../types.ts';
import { createCatalog } from './catalog.ts';
import { sheetFingerprint } from './fingerprint.ts';
import { describeFile, KIND } from './describe.ts';
import { filterableColumns } from './filter.ts';
import { mappedTab } from './mapped-columns.ts';
import { checkQueryFields, runQuery } from './query.ts';
import type { SheetLimits } from './raw.ts';
import type { EdgeTab } from './records.ts';

const PARAMS = ['sheet_id', 'sheet_name'] as const;

function sheetParams(params: URLSearchParams) {
  const p = requireParams(params, PARAMS);
  if (/[/\\]/.test(p.sheet_id) || p.sheet_id.startsWith('.') || p.sheet_id.length > 255) {
    throw endpointProblem('sheet_id must be a file name without extension (no path, no leading dot, at most 255 characters)');
  }
  if (p.sheet_name.length > 255) throw endpointProblem('sheet_name must be at most 255 characters');
  return p;
}

export function createSpreadsheetKind(limits: SheetLimits): DatasourceKind {
  const catalog = createCatalog(limits);
  const fingerprint = sheetFingerprint(catalog);

  /** The parsed edge sheet the parameters name; 503 when the file is not there or cannot be read, 422 when it is there but wrong. */
  async function tabAt(params: URLSearchParams, query?: Pick<DatasetQuery, 'columns'>): Promise<EdgeTab> {
    const { sheet_id: id, sheet_name: name } = sheetParams(params);
    const file = (await catalog.scan()).get(id);
    const loaded = file && (await catalog.load(file));
    if (!loaded) {
      throw datasourceUnavailable(`spreadsheet ${JSON.stringify(id)} does not exist (no ${id}.xlsx or ${id}.csv in the spreadsheet folder)`);
    }
    // A query that names its own circuit-end columns reads the tab with them (mapped-columns.ts).
    if (query?.columns && Object.keys(query.columns).length > 0 && loaded.raw) return mappedTab(loaded, name, query.columns);
    // A file that is there but is not a usable sheet is 422, naming what is wrong; one that cannot be read is 503.
    if (loaded.error !== undefined) throw loaded.content ? validationFailed(loaded.error) : datasourceUnavailable(loaded.error);
    const sheet = loaded.book.tabs.get(name);
    if (!sheet) {
      throw validationFailed(`${loaded.file.fileName} has no edge sheet ${JSON.stringify(name)}; its edge sheets: ` +
        [...loaded.book.tabs.keys()].map((n) => JSON.stringify(n)).join(', '));
    }
    if (sheet.error) throw validationFailed(`${loaded.file.fileName}: ${sheet.error}`);
    return sheet;
  }

  return {
    name: KIND,
    pathParams: PARAMS,
    async list() {
      const entries: [string, DatasourceListing][] = [];
      for (const file of (await catalog.scan()).values()) {
        const loaded = await catalog.load(file);
        if (loaded) entries.push(...describeFile(loaded));
      }
      return entries;
    },
    check(params) {
      sheetParams(params);
    },
    async problems(params, query) {
      try {
        const sheet = await tabAt(params, query);
        if (query) checkQueryFields(sheet, query);
        return [];
      } catch (e) {
        if (isServiceError(e) && (e.code === 'datasource_unavailable' || e.code === 'validation_failed')) return [e.message];
        throw e;
      }
    },
    async columns(params, columns) {
      return filterableColumns(await tabAt(params, { columns }));
    },
    fingerprint: (params) => fingerprint(sheetParams(params).sheet_id),
    async run(params: URLSearchParams, query: DatasetQuery): Promise<QueryResult> {
      return runQuery(await tabAt(params, query), query);
    },
    async close() {
      catalog.clear();
    },
  };
}
