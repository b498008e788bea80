// The parsers' common output: a file as a list of tabs, each a list of rows
// of cell texts. Everything after parsing (headers, records, filters) works
// on this shape, whatever the file format was. Cells are read through
// cellAt(), which trims them: CSV cells arrive as the parser gave them (a
// separate trimming pass over every cell would cost more than reading them).
import type { Settings } from '../../config/settings.ts';

export interface RawTab {
  name: string;
  /** Cell texts by 0-based column ('' for an empty cell); rows may be empty. */
  rows: string[][];
  /** Spreadsheet row number (1-based, as a spreadsheet program shows it) of each row; absent when row i is i + 1. */
  numbers?: number[];
}

export type SheetLimits = Settings['datasources']['spreadsheet'];

/**
 * A parser's error message as a reason a listing may show: its first line,
 * only when it is plain words and numbers. Messages that could quote the
 * file (quotes, paths, markup, odd characters) give `fallback` instead: the
 * datasource listing is public, and a file that cannot be used may be anything.
 */
export function plainReason(error: unknown, fallback: string): string {
  const first = String((error as Error)?.message ?? '').split('\n')[0].trim();
  return first !== '' && first.length <= 120 && /^[A-Za-z0-9 ,.:()_-]+$/.test(first) ? first : fallback;
}

/** A setting named the way the settings file spells it, for messages. */
export const limitName = (key: keyof SheetLimits) => `datasources.spreadsheet.${key}`;

export const rowNumber = (sheet: RawTab, index: number) => (sheet.numbers ? sheet.numbers[index] : index + 1);

/** The cell without surrounding white space; '' when absent. */
export function cellAt(cells: string[], index: number): string {
  const text = cells[index];
  if (text === undefined || text === '') return '';
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  // Most cells start and end with a printable ASCII character: nothing to trim.
  return first > 32 && first < 127 && last > 32 && last < 127 ? text : text.trim();
}

export function isEmptyRow(cells: string[]): boolean {
  for (let i = 0; i < cells.length; i++) if (cellAt(cells, i) !== '') return false;
  return true;
}

/** Index of the first row with any text (the header row); -1 when the tab is empty. */
export function headerIndex(sheet: RawTab): number {
  return sheet.rows.findIndex((cells) => !isEmptyRow(cells));
}
