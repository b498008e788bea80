// Reads an xlsx workbook into raw tabs with exceljs's streaming reader, fed
// from yauzl instead of exceljs's own unzip: yauzl reads the central
// directory (checked by zip-guard before anything is inflated), enforces each
// part's announced size while inflating, and lets us read the parts in the
// order the reader needs (no temp files). The exceljs pieces used here
// (WorkbookReader's _parseRels/_parseWorkbook/_parseSharedStrings/_parseStyles
// and WorksheetReader) are internals of the pinned exceljs 4.4.0; the tests
// exercise every one of them, so an upgrade that moves them fails loudly.
// The parts arrive through inflate streams, so reading already waits for the
// thread pool between chunks (other requests run meanwhile); the loop over a
// tab's rows also takes a turn of the event loop every ROWS_PER_TURN rows
// (turns.ts), however fast the chunks come.
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type ExcelJS from 'exceljs';
import type { Entry } from 'yauzl';
import { datasourceUnavailable, isServiceError } from '../../errors.ts';
import { cellText } from './cell-text.ts';
import { limitName, plainReason, type RawTab, type SheetLimits } from './raw.ts';
import { nextTurn, ROWS_PER_TURN } from './turns.ts';
import { openGuardedZip } from './zip-guard.ts';

type WorksheetReaderClass = new (init: {
  workbook: unknown; id: number; iterator: AsyncIterable<unknown>; options: object;
}) => AsyncIterable<ExcelJS.Row> & { name: string };

// exceljs is loaded on the first xlsx read, not at start: it is most of the
// service's start-up time (some 600 ms of module loading), and a deployment
// of CSV sheets never needs it.
const require = createRequire(import.meta.url);
let loaded: { ExcelJS: typeof ExcelJS; WorksheetReader: WorksheetReaderClass } | undefined;
function exceljs() {
  loaded ??= {
    ExcelJS: require('exceljs') as typeof ExcelJS,
    WorksheetReader: require('exceljs/lib/stream/xlsx/worksheet-reader.js') as WorksheetReaderClass,
  };
  return loaded;
}

/** The same options for our reader and for the benchmark's bare exceljs parse. */
export const READER_OPTIONS = {
  worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', entries: 'ignore',
} as const;

interface ReaderInternals {
  workbookRels?: { Id: string; Target: string }[];
  model?: { sheets?: { id: number; name: string; rId: string }[] };
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncIterable<unknown>;
  _parseStyles(entry: Readable): Promise<void>;
}

export async function readXlsx(file: string, label: string, limits: SheetLimits): Promise<RawTab[]> {
  const { zip, parts } = await openGuardedZip(file, label, limits);
  const opened: Readable[] = [];
  const open = async (entry: Entry) => {
    const stream = await zip.openReadStreamPromise(entry);
    opened.push(stream);
    // Strings decoded across chunk boundaries: exceljs decodes each chunk on
    // its own otherwise, which splits multi-byte characters.
    stream.setEncoding('utf8');
    return stream;
  };
  try {
    const { ExcelJS, WorksheetReader } = exceljs();
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, READER_OPTIONS) as unknown as ReaderInternals;
    const rels = parts.get('xl/_rels/workbook.xml.rels');
    if (rels) await reader._parseRels(await open(rels));
    await reader._parseWorkbook(await open(parts.get('xl/workbook.xml')!));
    const strings = parts.get('xl/sharedStrings.xml');
    if (strings) for await (const _ of reader._parseSharedStrings(await open(strings))) { /* cached by the reader */ }
    const styles = parts.get('xl/styles.xml');
    if (styles) await reader._parseStyles(await open(styles));

    const sheets: RawTab[] = [];
    const budget = { rows: 0 };
    for (const tab of reader.model?.sheets ?? []) {
      const rel = reader.workbookRels?.find((r) => r.Id === tab.rId);
      const entry = rel && parts.get(partPath(rel.Target));
      if (!entry) continue; // a chart sheet or a dangling tab: no cells to read
      const name = String(tab.name ?? '');
      const iterator = await open(entry);
      const ws = new WorksheetReader({ workbook: reader, id: tab.id, iterator, options: READER_OPTIONS });
      sheets.push({ name, ...(await readRows(ws, label, name, limits, budget)) });
    }
    return sheets;
  } catch (e) {
    if (isServiceError(e)) throw e;
    throw datasourceUnavailable(`${label} is not a readable xlsx workbook: ${plainReason(e, 'damaged or not an xlsx file')}`);
  } finally {
    for (const stream of opened) stream.destroy();
    zip.close();
  }
}

async function readRows(ws: AsyncIterable<ExcelJS.Row>, label: string, sheet: string, limits: SheetLimits,
  budget: { rows: number }): Promise<Pick<RawTab, 'rows' | 'numbers'>> {
  const rows: string[][] = [];
  const numbers: number[] = [];
  let seen = 0;
  for await (const row of ws) {
    if (++seen % ROWS_PER_TURN === 0) await nextTurn();
    const values = row.values as unknown[];
    const cells: string[] = [];
    let last = -1;
    for (let col = 1; col < values.length; col++) {
      const text = cellText(values[col]);
      cells.push(text);
      if (text !== '') last = col - 1;
    }
    if (last < 0) continue; // an empty (perhaps only formatted) row
    if (last >= limits.maxColumns) {
      throw datasourceUnavailable(`${label}: sheet ${JSON.stringify(sheet)} row ${row.number} has more than ` +
        `${limits.maxColumns} columns (limit ${limitName('maxColumns')})`);
    }
    if (++budget.rows > limits.maxRows) {
      throw datasourceUnavailable(`${label} has more than ${limits.maxRows} rows (limit ${limitName('maxRows')})`);
    }
    cells.length = last + 1;
    rows.push(cells);
    numbers.push(row.number);
  }
  return { rows, numbers };
}

/** A relationship target ("worksheets/sheet1.xml" or "/xl/worksheets/sheet1.xml") as a zip path. */
function partPath(target: string): string {
  return target.startsWith('/') ? target.slice(1) : `xl/${target}`;
}
