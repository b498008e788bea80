// Reads a CSV file into one raw tab with csv-parse. The file is bounded by
// maxFileBytes before it is read, and one pass over the text (before the
// parser allocates anything) refuses binary data, records with more than
// maxColumns fields and files with more than maxRows lines. The delimiter is
// the one of , ; or tab that the header line uses most (Excel writes ; in many
// locales). Empty lines are skipped but counted, so row numbers match what a
// spreadsheet program shows.
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { datasourceUnavailable } from '../../errors.ts';
import { limitName, type RawRow, type RawSheet, type SheetLimits } from './raw.ts';

export async function readCsv(file: string, label: string, sheetName: string, limits: SheetLimits): Promise<RawSheet[]> {
  let buffer: Buffer;
  try {
    buffer = await readFile(file);
  } catch (e) {
    throw datasourceUnavailable(`${label} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (buffer.length > limits.maxFileBytes) {
    throw datasourceUnavailable(`${label} is larger than ${limits.maxFileBytes} bytes (limit ${limitName('maxFileBytes')})`);
  }
  const text = decodeText(buffer);
  const delimiter = sniffDelimiter(text);
  checkText(text, delimiter, label, limits);
  let records: string[][];
  try {
    records = parse(text, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: false });
  } catch (e) {
    throw datasourceUnavailable(`${label} is not a readable CSV file: ${(e as Error).message}`);
  }
  const rows: RawRow[] = [];
  for (let i = 0; i < records.length; i++) {
    const cells = records[i];
    let last = -1;
    for (let c = 0; c < cells.length; c++) {
      const cell = cells[c];
      if (cell === '') continue;
      const trimmed = cell.trim();
      cells[c] = trimmed;
      if (trimmed !== '') last = c;
    }
    if (last < 0) continue;
    cells.length = last + 1;
    rows.push({ number: i + 1, cells });
  }
  return [{ name: sheetName, rows }];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 (BOM dropped), UTF-16 with a BOM, else Windows-1252 (older Excel "CSV"). */
function decodeText(buffer: Buffer): string {
  if (buffer[0] === 0xff && buffer[1] === 0xfe) return new TextDecoder('utf-16le').decode(buffer);
  if (buffer[0] === 0xfe && buffer[1] === 0xff) return new TextDecoder('utf-16be').decode(buffer);
  try {
    return utf8.decode(buffer);
  } catch {
    return new TextDecoder('windows-1252').decode(buffer);
  }
}

function sniffDelimiter(text: string): string {
  const end = text.indexOf('\n');
  const header = end < 0 ? text : text.slice(0, end);
  let best = ',';
  let bestCount = 0;
  for (const candidate of [',', ';', '\t']) {
    const count = header.split(candidate).length - 1;
    if (count > bestCount) [best, bestCount] = [candidate, count];
  }
  return best;
}

/**
 * Checks before the parser allocates anything: control characters mean
 * binary data; records are counted against maxRows; fields per record are
 * counted against maxColumns, since csv-parse has no column limit and would
 * build a record of millions of empty fields from one long line of
 * delimiters. Without quotes a record is a line, and a line shorter than
 * maxColumns cannot hold too many fields, so only long lines are counted;
 * with quotes, one pass toggles on each quote as RFC 4180 has it.
 */
function checkText(text: string, delimiter: string, label: string, limits: SheetLimits) {
  // eslint-disable-next-line no-control-regex
  const binary = /[\u0000-\u0008\u000e-\u001f]/.exec(text);
  if (binary) {
    throw datasourceUnavailable(`${label} is not a text CSV file (control character ` +
      `0x${binary[0].charCodeAt(0).toString(16).padStart(2, '0')} at character ${binary.index})`);
  }
  const tooWide = (row: number) => datasourceUnavailable(`${label}: row ${row} has more than ` +
    `${limits.maxColumns} columns (limit ${limitName('maxColumns')})`);
  const tooLong = () => datasourceUnavailable(`${label} has more than ${limits.maxRows} rows (limit ${limitName('maxRows')})`);
  const delim = delimiter.charCodeAt(0);
  if (!text.includes('"')) {
    let row = 0;
    for (let start = 0; start < text.length; row++) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      if (row >= limits.maxRows) throw tooLong();
      if (end - start >= limits.maxColumns) {
        let fields = 1;
        for (let i = start; i < end; i++) if (text.charCodeAt(i) === delim && ++fields > limits.maxColumns) throw tooWide(row + 1);
      }
      start = end + 1;
    }
    return;
  }
  let inQuotes = false;
  let fields = 1;
  let row = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34) inQuotes = !inQuotes;
    else if (inQuotes) continue;
    else if (ch === delim) {
      if (++fields > limits.maxColumns) throw tooWide(row);
    } else if (ch === 10) {
      fields = 1;
      if (++row > limits.maxRows && i + 1 < text.length) throw tooLong();
    }
  }
}
