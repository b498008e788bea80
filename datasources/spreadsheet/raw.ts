// The parsers' common output: a file as a list of tabs, each a list of
// non-empty rows of trimmed cell texts. Everything after parsing (headers,
// records, filters) works on this shape, whatever the file format was.
import type { Settings } from '../../config/settings.ts';

export interface RawRow {
  /** Row number as a spreadsheet program shows it (1-based, header included). */
  number: number;
  /** Cell texts by 0-based column; '' for an empty cell. */
  cells: string[];
}

export interface RawSheet {
  name: string;
  rows: RawRow[];
}

export type SheetLimits = Settings['datasources']['spreadsheet'];

/** A setting named the way the settings file spells it, for messages. */
export const limitName = (key: keyof SheetLimits) => `datasources.spreadsheet.${key}`;
