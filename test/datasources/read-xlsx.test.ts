// datasources/spreadsheet/read-xlsx.ts: exceljs's public streaming reader
// over a stored zip of only the parts the zip guard let through
// (stored-zip.ts), tabs named and ordered by the workbook's index
// (xlsx-tabs.ts). Workbooks as other tools write them read alike; a part the
// central directory does not list is never read, whatever exceljs's own
// unzip would have done; characters cut across chunks arrive whole.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parseSettings } from '../../config/settings.ts';
import { readXlsx } from '../../datasources/spreadsheet/read-xlsx.ts';
import { unfinishedTail } from '../../datasources/spreadsheet/stored-zip.ts';
import { tempDir, xlsxBuffer } from './helpers.ts';
import { buildZip, deflatedPart, deflateRepeated, readParts } from './zip.ts';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const limits = () => parseSettings({ datasources: { spreadsheet: { dir } } }, {}, dir).datasources.spreadsheet;
const read = async (file: string, parts: Map<string, Buffer>, extra: Parameters<typeof buildZip>[0] = []) => {
  await writeFile(path.join(dir, file), buildZip([...extra, ...[...parts].map(([name, data]) => deflatedPart(name, data))]));
  return readXlsx(path.join(dir, file), file, limits());
};

describe('unfinishedTail', () => {
  const cases: Array<[string, number[], number]> = [
    ['ASCII', [0x61, 0x62], 0],
    ['a whole é', [0x61, 0xc3, 0xa9], 0],
    ['the lead of é', [0x61, 0xc3], 1],
    ['two of three bytes of 語', [0xe8, 0xaa], 2],
    ['three of four bytes of 😀', [0xf0, 0x9f, 0x98], 3],
    ['a whole 😀', [0xf0, 0x9f, 0x98, 0x80], 0],
    ['stray continuation bytes', [0x80, 0x80, 0x80], 0],
    ['nothing', [], 0],
  ];
  for (const [what, bytes, tail] of cases) {
    it(`${what}: ${tail}`, () => assert.equal(unfinishedTail(Uint8Array.from(bytes)), tail));
  }
});

describe('readXlsx', () => {
  it('reads characters of every UTF-8 length whole, wherever the chunks are cut', async () => {
    const text = (i: number) => `é語😀${'x'.repeat(i % 7)}${i}`;
    const rows = [['source', 'destination'], ...Array.from({ length: 3000 }, (_, i) => [text(i), `${text(i + 1)}ü`])];
    // exceljs's own writer cuts such characters in its shared strings: the workbook is written with ASCII
    // stand-ins, whose shared strings are then replaced by the real text.
    const real = rows.flat();
    const parts = await readParts(await xlsxBuffer([{ name: 'Circuits', rows: rows.map((r, i) => r.map((_, j) => `p${i * 2 + j}`)) }]));
    const strings = parts.get('xl/sharedStrings.xml')!.toString();
    assert.match(strings, /<t>p0<\/t>/);
    parts.set('xl/sharedStrings.xml', Buffer.from(strings.replace(/<t>p(\d+)<\/t>/g, (_, k: string) => `<t>${real[Number(k)]}</t>`)));
    const tabs = await read('utf8.xlsx', parts);
    assert.deepEqual(tabs.map((t) => t.name), ['Circuits']);
    assert.deepEqual(tabs[0].rows, rows);
  });

  it('names tabs and orders them as the workbook does, with absolute relationship targets as openpyxl writes them', async () => {
    const parts = await readParts(await xlsxBuffer([{ name: 'Nodes', rows: [['name'], ['a']] }, { name: 'Circuits', rows: [['source'], ['b']] }]));
    const book = parts.get('xl/workbook.xml')!.toString();
    // The workbook lists Circuits first; its part stays sheet2.xml.
    const sheets = /<sheets>.*<\/sheets>/.exec(book)![0];
    const [nodes, circuits] = sheets.match(/<sheet [^>]*\/>/g)!;
    parts.set('xl/workbook.xml', Buffer.from(book.replace(sheets, `<sheets>${circuits}${nodes}</sheets>`)));
    const rels = parts.get('xl/_rels/workbook.xml.rels')!.toString();
    parts.set('xl/_rels/workbook.xml.rels', Buffer.from(rels.replace(/Target="worksheets\//g, 'Target="/xl/worksheets/')));
    const tabs = await read('openpyxl.xlsx', parts);
    assert.deepEqual(tabs.map((t) => [t.name, t.rows]), [['Circuits', [['source'], ['b']]], ['Nodes', [['name'], ['a']]]]);
  });

  it('never reads a part the central directory does not list: a bomb hidden before the workbook, found first by a reader walking the file', async () => {
    const parts = await readParts(await xlsxBuffer([{ name: 'Circuits', rows: [['source', 'destination'], ['a', 'b']] }]));
    const bomb = deflateRepeated('<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>',
      Buffer.alloc(1 << 20, 'A'), 1000, '</t></si></sst>');
    const hidden = { name: 'xl/sharedStrings.xml', stored: bomb.stored, method: 8 as const, uncompressedSize: bomb.size, hidden: true };
    const rss = process.memoryUsage().rss;
    const tabs = await read('hidden.xlsx', parts, [hidden]);
    assert.deepEqual(tabs[0].rows, [['source', 'destination'], ['a', 'b']]);
    assert.ok(process.memoryUsage().rss - rss < 100e6, 'memory stayed flat: the hidden gigabyte was never inflated');
  });

  it('refuses a zip bomb at the guard, before exceljs reads a byte, naming the limit', async () => {
    const parts = await readParts(await xlsxBuffer([{ name: 'Circuits', rows: [['source'], ['a']] }]));
    const bomb = deflateRepeated('<worksheet><sheetData><row><c t="inlineStr"><is><t>', Buffer.alloc(1 << 20, "A"), 150, '</t></is></c></row></sheetData></worksheet>');
    parts.delete('xl/worksheets/sheet1.xml');
    const started = process.cpuUsage();
    await assert.rejects(read('bomb.xlsx', parts, [{ name: 'xl/worksheets/sheet1.xml', stored: bomb.stored, method: 8, uncompressedSize: bomb.size }]),
      (e: Error & { code?: string }) => e.code === 'datasource_unavailable' &&
        /bomb\.xlsx: part xl\/worksheets\/sheet1\.xml inflates \d+:1, more than 100:1 \(limit datasources\.spreadsheet\.maxInflateRatio\)/.test(e.message));
    // Inflating 150 MiB takes far more than this; refusing from the directory takes next to nothing.
    const { user, system } = process.cpuUsage(started);
    assert.ok(user + system < 500_000, `refused from the directory, not by inflating (${(user + system) / 1000} ms of CPU)`);
  });
});
