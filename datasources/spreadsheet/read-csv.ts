// Reads a CSV file into one raw tab with csv-parse. The file is bounded by
// maxFileBytes before it is read, and its bytes are checked before the
// parser allocates anything: binary data, records with more than maxColumns
// fields and files with more than maxRows lines are refused. Text that is not
// UTF-8 is taken as UTF-16 (with a BOM) or Windows-1252 and re-encoded. The
// delimiter is the one of , ; or tab that the header line uses most (Excel
// writes ; in many locales). Rows keep their places (empty ones too), so row
// numbers match what a spreadsheet program shows.
import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { datasourceUnavailable } from '../../errors.ts';
import { limitName, plainReason, type RawSheet, type SheetLimits } from './raw.ts';

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
  const utf8 = toUtf8(buffer);
  const delimiter = sniffDelimiter(utf8);
  checkBytes(utf8, delimiter, label, limits);
  let records: string[][];
  try {
    records = parse(utf8, { bom: true, delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: false });
  } catch (e) {
    throw datasourceUnavailable(`${label} is not a readable CSV file: ${plainReason(e, (e as { code?: string }).code ?? 'parse error')}`);
  }
  return [{ name: sheetName, rows: records }];
}

/** UTF-8 as is (BOM left for the parser); UTF-16 with a BOM, else Windows-1252 (older Excel "CSV"), re-encoded. */
function toUtf8(buffer: Buffer): Buffer {
  if (buffer[0] === 0xff && buffer[1] === 0xfe) return Buffer.from(new TextDecoder('utf-16le').decode(buffer));
  if (buffer[0] === 0xfe && buffer[1] === 0xff) return Buffer.from(new TextDecoder('utf-16be').decode(buffer));
  if (isUtf8(buffer)) return buffer;
  return Buffer.from(new TextDecoder('windows-1252').decode(buffer));
}

/**
 * The one of , ; and tab that the header line holds most. The header is the
 * first row with a cell (raw.ts headerIndex), so blank lines before it (only
 * spaces, or nothing) are passed over.
 */
function sniffDelimiter(bytes: Buffer): string {
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0; // UTF-8 BOM
  let end = start;
  for (; start < bytes.length; start = end + 1) {
    end = bytes.indexOf(10, start);
    if (end < 0) end = bytes.length;
    if (bytes.subarray(start, end).some((b) => b !== 0x20 && b !== 0x0d)) break;
  }
  let best = ',';
  let bestCount = 0;
  for (const candidate of [',', ';', '\t']) {
    let count = 0;
    const code = candidate.charCodeAt(0);
    for (let i = start; i < end; i++) if (bytes[i] === code) count++;
    if (count > bestCount) [best, bestCount] = [candidate, count];
  }
  return best;
}

/** Bytes read to tell a text file from a binary one. */
const SNIFF_BYTES = 64 * 1024;

/**
 * Checks before the parser allocates anything. Control characters near the
 * start mean a binary file, refused with a clear message rather than parsed
 * into nonsense rows. Records are counted against maxRows and fields per
 * record against maxColumns, since csv-parse has no column limit and would
 * build a record of millions of empty fields from one long line of
 * delimiters. Without any quote a record is a line, found natively, and only
 * lines long enough to hold too many fields are counted; with quotes, one
 * pass toggles on each quote as RFC 4180 has it. (UTF-8 continuation bytes
 * are all >= 0x80: never a delimiter, quote or newline.)
 */
function checkBytes(buffer: Buffer, delimiter: string, label: string, limits: SheetLimits) {
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
  const { maxColumns, maxRows } = limits;
  for (let i = 0, n = Math.min(bytes.length, SNIFF_BYTES); i < n; i++) {
    const b = bytes[i];
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12) {
      throw datasourceUnavailable(`${label} is not a text CSV file (control character 0x${b.toString(16).padStart(2, '0')} at byte ${i})`);
    }
  }
  const tooWide = (row: number) =>
    datasourceUnavailable(`${label}: row ${row} has more than ${maxColumns} columns (limit ${limitName('maxColumns')})`);
  const tooLong = () => datasourceUnavailable(`${label} has more than ${maxRows} rows (limit ${limitName('maxRows')})`);
  const delim = delimiter.charCodeAt(0);
  if (buffer.indexOf(34) < 0) {
    let row = 0;
    for (let start = 0; start < bytes.length; start++) {
      let end = buffer.indexOf(10, start);
      if (end < 0) end = bytes.length;
      if (++row > maxRows) throw tooLong();
      if (end - start >= maxColumns) {
        let fields = 1;
        for (let i = start; i < end; i++) if (bytes[i] === delim && ++fields > maxColumns) throw tooWide(row);
      }
      start = end;
    }
    return;
  }
  let inQuotes = false;
  let fields = 1;
  let row = 1;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === delim) {
      if (!inQuotes && ++fields > maxColumns) throw tooWide(row);
    } else if (b === 34) inQuotes = !inQuotes;
    else if (b === 10 && !inQuotes) {
      fields = 1;
      if (++row > maxRows && i + 1 < bytes.length) throw tooLong();
    }
  }
}
