// Entries of GET /api/v1/datasources/ for one spreadsheet file: one per edge
// sheet, keyed by its endpoint string, with the extras a dataset author needs
// (filterable columns, row counts, modification time, problem rows). A file
// that cannot be used at all gets one entry with `available: false` and the
// reason; for a workbook, whose tabs are then unknown, its context has an
// empty sheet_name (context always holds sheet_id and sheet_name, strings), so
// its key `spreadsheet?sheet_id=<id>&sheet_name=` names no sheet to query.
// Every entry has Terranova's `display_name`; an entry that names a sheet
// also has the paths of the editor's routes over it (datasources/editor.ts):
// `query_endpoint`, `filterable_columns_endpoint`, `distinct_values_endpoint`.
// The reason of an unavailable file never quotes its cells.
import { editorPaths } from '../editor.ts';
import { formatEndpoint } from '../endpoint.ts';
import type { DatasourceListing } from '../types.ts';
import type { Loaded } from './catalog.ts';
import { filterableColumns } from './filter.ts';

export const KIND = 'spreadsheet';

export function describeFile(loaded: Loaded): [string, DatasourceListing][] {
  const { file } = loaded;
  const base = { kind: KIND, file: file.fileName, lastModified: file.modified.toISOString() };
  if (loaded.error !== undefined) {
    const context = { sheet_id: file.fileId, sheet_name: file.kind === 'csv' ? file.fileId : '' };
    const name = file.kind === 'csv' ? file.fileId : `${file.fileId} (unavailable)`;
    return [[formatEndpoint(KIND, context), {
      name,
      display_name: file.kind === 'csv' ? `${name} (unavailable)` : name,
      description: `Unavailable: ${loaded.error}`,
      context, ...editorFields(context), ...base, available: false, error: loaded.error,
    }]];
  }
  const entries: [string, DatasourceListing][] = [];
  for (const sheet of loaded.book.tabs.values()) {
    const context = { sheet_id: file.fileId, sheet_name: sheet.name };
    const name = file.kind === 'csv' ? file.fileId : `${file.fileId} / ${sheet.name}`;
    const coordinates = sheet.endColumns.includes('latitude') ? 'with coordinates' : 'without coordinates';
    const entry: DatasourceListing = {
      name,
      display_name: sheet.error ? `${name} (unavailable)` : name,
      description: sheet.error
        ? `Unavailable: ${file.fileName}: ${sheet.error}`
        : `${sheet.recordCount} circuits from ${file.fileName}${file.kind === 'xlsx' ? `, sheet ${sheet.name}` : ''}, ${coordinates}`,
      context, ...editorFields(context), ...base,
      available: !sheet.error,
      ...(sheet.error ? { error: `${file.fileName}: ${sheet.error}` } : {}),
      columns: filterableColumns(sheet),
      rowCount: sheet.rowCount,
      recordCount: sheet.recordCount,
      problems: sheet.problems,
      problemCount: sheet.problemCount,
    };
    entries.push([formatEndpoint(KIND, context), entry]);
  }
  return entries;
}

/** The editor's paths for a sheet; none when the context names no sheet (a workbook whose tabs are unknown). */
const editorFields = (context: { sheet_id: string; sheet_name: string }) =>
  editorPaths(KIND, [context.sheet_id, context.sheet_name]) ?? {};
