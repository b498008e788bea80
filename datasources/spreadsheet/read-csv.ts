// Reads a CSV file into one raw tab with csv-parse. The file is bounded by
// maxFileBytes before it is read, and its bytes are checked before the
// parser allocates anything: binary data, records with more than maxColumns
// fields and files with more than maxRows lines are refused. Text that is not
// UTF-8 is taken as UTF-16 (with a BOM) or Windows-1252 and re-encoded. The
// delimiter is the one of , ; or tab that the header line uses most (Excel
// writes ; in many locales). Rows keep their places (empty ones too), so row
// numbers match what a spreadsheet program shows.
// Decoding, checking and parsing go in slices of BYTES_PER_TURN with a turn
// of the event loop between them (turns.ts), so a large file never holds up
// other requests for long. The parse feeds one csv-parse parser the slices in
// order, the way its stream does, so the rows are the ones a parse of the
// whole buffer gives.
import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { Parser, type Options } from 'csv-parse';
import { datasourceUnavailable } from '../../errors.ts';
import { limitName, plainReason, type RawTab, type SheetLimits } from './raw.ts';
import { BYTES_PER_TURN, inTurns, nextTurn } from './turns.ts';

/** The options every CSV is parsed with (the delimiter is sniffed per file). */
const PARSE_OPTIONS = { bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: false } as const;

export async function readCsv(file: string, label: string, tabName: string, limits: SheetLimits): Promise<RawTab[]> {
  let buffer: Buffer;
  try {
    buffer = await readFile(file);
  } catch (e) {
    throw datasourceUnavailable(`${label} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, e);
  }
  if (buffer.length > limits.maxFileBytes) {
    throw datasourceUnavailable(`${label} is larger than ${limits.maxFileBytes} bytes (limit ${limitName('maxFileBytes')})`);
  }
  const utf8 = await toUtf8(buffer);
  const delimiter = sniffDelimiter(utf8);
  await checkBytes(utf8, delimiter, label, limits);
  let records: string[][];
  try {
    records = await parseInTurns(utf8, { ...PARSE_OPTIONS, delimiter });
  } catch (e) {
    throw datasourceUnavailable(`${label} is not a readable CSV file: ${plainReason(e, (e as { code?: string }).code ?? 'parse error')}`);
  }
  return [{ name: tabName, rows: records }];
}

/**
 * What csv-parse's stream feeds its parser with (`Parser#api`, not in its
 * typings): one slice of bytes at a time, then the end. The parser keeps its
 * state across slices (an open quote, a character cut in two), which is how
 * the stream parses a file read in chunks.
 */
interface ParserApi {
  parse(bytes: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
}

/**
 * The records csv-parse's parse(bytes, options) gives, parsed `sliceBytes` at
 * a time with a turn of the event loop between slices. Throws the parser's
 * error as the one-call parse does.
 */
export async function parseInTurns(bytes: Buffer, options: Options, sliceBytes = BYTES_PER_TURN): Promise<string[][]> {
  const api = (new Parser(options) as unknown as { api?: ParserApi }).api;
  // The pinned csv-parse 6.2.1 has it; an upgrade that drops it fails here (and in every CSV test), not quietly.
  if (typeof api?.parse !== 'function') throw new Error('csv-parse Parser has no api.parse');
  const records: string[][] = [];
  const push = (record: string[]) => {
    records.push(record);
  };
  const close = () => {};
  await inTurns(0, bytes.length, sliceBytes, (from, to) => {
    const error = api.parse(bytes.subarray(from, to), false, push, close);
    if (error !== undefined) throw error;
  });
  const error = api.parse(undefined, true, push, close);
  if (error !== undefined) throw error;
  return records;
}

/** UTF-8 as is (BOM left for the parser); UTF-16 with a BOM, else Windows-1252 (older Excel "CSV"), re-encoded (decodeInTurns). */
async function toUtf8(buffer: Buffer): Promise<Buffer> {
  if (buffer[0] === 0xff && buffer[1] === 0xfe) return decodeInTurns(buffer, 'utf-16le');
  if (buffer[0] === 0xfe && buffer[1] === 0xff) return decodeInTurns(buffer, 'utf-16be');
  if (isUtf8(buffer)) return buffer;
  return decodeInTurns(buffer, 'windows-1252');
}

/**
 * `buffer` decoded from `encoding` (a BOM dropped) and encoded as UTF-8, a
 * slice at a time: the streaming decoder keeps a character cut between
 * slices. It also maps Windows-1252 as the Encoding Standard has it (0x80 is
 * €, 0x93 “), where Node 20's one-call decode takes those bytes for Latin-1
 * control characters (nodejs/node#60888).
 */
export async function decodeInTurns(buffer: Buffer, encoding: string, sliceBytes = BYTES_PER_TURN): Promise<Buffer> {
  const decoder = new TextDecoder(encoding);
  const parts: Buffer[] = [];
  await inTurns(0, buffer.length, sliceBytes, (from, to) => {
    parts.push(Buffer.from(decoder.decode(buffer.subarray(from, to), { stream: true })));
  });
  parts.push(Buffer.from(decoder.decode()));
  return Buffer.concat(parts);
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
 * are all >= 0x80: never a delimiter, quote or newline.) Both passes hand the
 * event loop back every BYTES_PER_TURN bytes.
 */
async function checkBytes(buffer: Buffer, delimiter: string, label: string, limits: SheetLimits) {
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
    let turn = BYTES_PER_TURN;
    for (let start = 0; start < bytes.length; start++) {
      if (start >= turn) {
        await nextTurn();
        turn = start + BYTES_PER_TURN;
      }
      let end = buffer.indexOf(10, start);
      if (end < 0) end = bytes.length;
      if (++row > maxRows) throw tooLong();
      if (end - start >= maxColumns) {
        let fields = 1;
        for (let i = start; i < end; i++) {
          if (i >= turn) { // a line may be megabytes long
            await nextTurn();
            turn = i + BYTES_PER_TURN;
          }
          if (bytes[i] === delim && ++fields > maxColumns) throw tooWide(row);
        }
      }
      start = end;
    }
    return;
  }
  let inQuotes = false;
  let fields = 1;
  let row = 1;
  await inTurns(0, bytes.length, BYTES_PER_TURN, (from, to) => {
    for (let i = from; i < to; i++) {
      const b = bytes[i];
      if (b === delim) {
        if (!inQuotes && ++fields > maxColumns) throw tooWide(row);
      } else if (b === 34) inQuotes = !inQuotes;
      else if (b === 10 && !inQuotes) {
        fields = 1;
        if (++row > maxRows && i + 1 < bytes.length) throw tooLong();
      }
    }
  });
}
