// Fixtures for datasource tests, generated into a fresh temp folder per test:
// xlsx workbooks written with exceljs, CSV text, and settings pointing the
// spreadsheet datasource at the folder.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { parseSettings } from '../../config/settings.ts';
import { createDatasources } from '../../datasources/index.ts';
import type { DatasetQuery, Filter } from '../../schema/dataset.ts';

export type Cell = string | number | boolean | Date | null;
export interface Tab {
  name: string;
  rows: Cell[][];
}

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-ds-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

type Limits = Partial<Record<'maxFileBytes' | 'maxUncompressedBytes' | 'maxInflateRatio' | 'maxRows' | 'maxColumns', number>>;

/** A registry over `dir` with optional lower limits. */
export function registryFor(dir: string, limits: Limits = {}) {
  const settings = parseSettings({ datasources: { spreadsheet: { dir, ...limits } } }, {}, dir);
  return createDatasources(settings);
}

export async function xlsxBuffer(tabs: Tab[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const tab of tabs) workbook.addWorksheet(tab.name).addRows(tab.rows);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export async function writeXlsx(dir: string, file: string, tabs: Tab[]): Promise<string> {
  const full = path.join(dir, file);
  await writeFile(full, await xlsxBuffer(tabs));
  return full;
}

/** CSV text with RFC 4180 quoting where needed. */
export function csvText(rows: Cell[][], delimiter = ','): string {
  const quote = (cell: Cell) => {
    const text = cell === null ? '' : String(cell);
    return /[",;\t\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return `${rows.map((row) => row.map(quote).join(delimiter)).join('\r\n')}\r\n`;
}

export async function writeCsv(dir: string, file: string, rows: Cell[][], delimiter = ','): Promise<string> {
  const full = path.join(dir, file);
  await writeFile(full, csvText(rows, delimiter));
  return full;
}

export const endpoint = (fileId: string, sheetName: string) =>
  `spreadsheet?${new URLSearchParams({ sheet_id: fileId, sheet_name: sheetName })}`;

export function query(endpointString: string, filters: Partial<Filter>[] = [], extra: Partial<DatasetQuery> = {}): DatasetQuery {
  return {
    endpoint: endpointString,
    filters: filters.map((f) => ({ operator: 'equal', value: [], field: '', ...f }) as Filter),
    node_deduplication_field: null,
    node_group_criteria: null,
    node_group_layout: null,
    ...extra,
  };
}

/** Awaits a promise expected to reject with a ServiceError of `code`; returns it. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<Error & { code: string; status: number; errors?: { path: string; message: string }[] }> {
  try {
    await promise;
  } catch (e) {
    const err = e as Error & { code: string; status: number };
    if (err.code !== code) throw new Error(`expected a ${code} error, got ${err.code ?? ''}: ${err.message}`);
    return err;
  }
  throw new Error(`expected a ${code} error, but the call succeeded`);
}
