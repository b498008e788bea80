// Reads an xlsx workbook into raw tabs with exceljs's public streaming
// reader (WorkbookReader over a stream, its worksheets and their rows), after
// the zip guard: yauzl reads the central directory (zip-guard.ts refuses the
// workbook there, before anything is inflated, when it announces more than
// the limits allow) and inflates only the parts the reader needs, holding
// each to its announced size. exceljs never sees the file: it reads a stored
// zip of those parts (stored-zip.ts), relationships first, then the
// workbook, shared strings and styles, then the worksheets in the workbook's
// order, each under the name exceljs's reader expects, so that it needs no
// temp file and cannot meet a part the guard did not let through. The tabs'
// names and parts come from the workbook's index (xlsx-tabs.ts).
// The parts arrive through inflate streams, so reading already waits for the
// thread pool between chunks (other requests run meanwhile); the loop over a
// tab's rows also takes a turn of the event loop every ROWS_PER_TURN rows
// (turns.ts), however fast the chunks come.
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import type ExcelJS from 'exceljs';
import type { Entry } from 'yauzl';
import { datasourceUnavailable, isServiceError } from '../../errors.ts';
import { cellText } from './cell-text.ts';
import { limitName, plainReason, type RawTab, type SheetLimits } from './raw.ts';
import { type StoredPart, storedZip } from './stored-zip.ts';
import { nextTurn, ROWS_PER_TURN } from './turns.ts';
import { workbookTabs } from './xlsx-tabs.ts';
import { openGuardedZip } from './zip-guard.ts';

// exceljs is loaded on the first xlsx read, not at start: it is most of the
// service's start-up time (some 600 ms of module loading), and a deployment
// of CSV sheets never needs it.
const require = createRequire(import.meta.url);
let loaded: typeof ExcelJS | undefined;
const exceljs = () => (loaded ??= require('exceljs') as typeof ExcelJS);

/** The same options for our reader and for the benchmark's bare exceljs parse. */
export const READER_OPTIONS = {
  worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', entries: 'ignore',
} as const;

/** Stand-ins for parts a workbook may lack: with both read first, exceljs's reader streams every worksheet. */
const NO_RELATIONSHIPS = '<?xml version="1.0" encoding="UTF-8"?>' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>';
const NO_STRINGS = '<?xml version="1.0" encoding="UTF-8"?>' +
  '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="0" uniqueCount="0"/>';

const fixedPart = (name: string, text: string): StoredPart => {
  const bytes = Buffer.from(text);
  return { name, size: bytes.length, crc32: crc32(bytes), open: async () => [bytes] };
};

export async function readXlsx(file: string, label: string, limits: SheetLimits): Promise<RawTab[]> {
  const { zip, parts } = await openGuardedZip(file, label, limits);
  const opened: Readable[] = [];
  const fromZip = (name: string, entry: Entry): StoredPart => ({
    name, size: entry.uncompressedSize, crc32: entry.crc32,
    open: async () => {
      const stream = await zip.openReadStreamPromise(entry);
      opened.push(stream);
      return stream;
    },
  });
  let source: Readable | undefined;
  try {
    const tabs = await workbookTabs(zip, parts, label);
    const strings = parts.get('xl/sharedStrings.xml');
    const styles = parts.get('xl/styles.xml');
    source = storedZip([
      // exceljs names tabs by the relationships; ours come from xlsx-tabs.ts, so it is given none.
      fixedPart('xl/_rels/workbook.xml.rels', NO_RELATIONSHIPS),
      fromZip('xl/workbook.xml', parts.get('xl/workbook.xml')!),
      strings ? fromZip('xl/sharedStrings.xml', strings) : fixedPart('xl/sharedStrings.xml', NO_STRINGS),
      ...(styles ? [fromZip('xl/styles.xml', styles)] : []),
      ...tabs.map((tab, i) => fromZip(`xl/worksheets/sheet${i + 1}.xml`, tab.part)),
    ]);
    // A part that fails (damaged, longer than announced) ends the read at once: exceljs would wait for the rest.
    const failed = new Promise<never>((_, reject) => source!.once('error', reject));
    failed.catch(() => undefined);
    const reader = new (exceljs().stream.xlsx.WorkbookReader)(source, READER_OPTIONS);
    const worksheets = reader[Symbol.asyncIterator]();
    const sheets: RawTab[] = [];
    const budget = { rows: 0 };
    for (const tab of tabs) {
      const next = await Promise.race([worksheets.next(), failed]);
      if (next.done) throw new Error(`the workbook ended before tab ${JSON.stringify(tab.name)}`);
      // Raced whole, not row by row: a read left waiting on a failed part is dropped, and collected with it.
      sheets.push({ name: tab.name, ...(await Promise.race([readRows(next.value, label, tab.name, limits, budget), failed])) });
    }
    return sheets;
  } catch (e) {
    if (isServiceError(e)) throw e;
    throw datasourceUnavailable(`${label} is not a readable xlsx workbook: ${plainReason(e, 'damaged or not an xlsx file')}`);
  } finally {
    source?.destroy();
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
