// Hostile and malformed files: truncated workbooks, binary data named .csv,
// zip bombs (honest and lying about their size), files over each limit, and
// names such as __proto__. None may crash the process, pollute prototypes or
// take memory; each shows as unavailable (with the limit named) and fails a
// query with validation_failed (422: the file is there, but not a usable sheet), while good files beside it work.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { DatasourceListing } from '../../datasources/types.ts';
import { csvText, endpoint, query, registryFor, rejectsWith, tempDir, writeCsv, writeXlsx, xlsxBuffer } from './helpers.ts';
import { buildZip, deflatedPart, deflateRepeated, readParts } from './zip.ts';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeCsv(dir, 'good.csv', [['source', 'destination'], ['a', 'b']]);
});
afterEach(() => cleanup());

const SHEET = [['source', 'destination', 'capacity'], ['a', 'b', 10]];

/** Asserts the file is listed as unavailable and a query on it is a 422 (there, but wrong), both naming `reason`; and good.csv still works. */
async function assertUnavailable(limits: Parameters<typeof registryFor>[1], key: string, ep: string, reason: RegExp) {
  const registry = registryFor(dir, limits);
  const list = await registry.list();
  const entry = list[key] as DatasourceListing;
  assert.ok(entry, `no entry ${key} in ${Object.keys(list).join(', ')}`);
  assert.equal(entry.available, false);
  assert.match(entry.error as string, reason);
  // docs/api.md: context holds sheet_id and sheet_name (strings); a workbook's unknown tab is ''.
  assert.deepEqual(Object.entries(entry.context).map(([k, v]) => [k, typeof v]), [['sheet_id', 'string'], ['sheet_name', 'string']]);
  const err = await rejectsWith(registry.run(query(ep)), 'validation_failed');
  assert.equal(err.status, 422);
  assert.match(err.message, reason);
  assert.equal((await registry.run(query(endpoint('good', 'good')))).records.length, 1);
  assert.ok(!err.message.includes(dir), 'messages never show the server path');
}

/** A ~1 MB workbook whose sheet part inflates to about 1 GiB of one repeated letter. */
async function bombParts(announce: (real: number) => number) {
  const parts = await readParts(await xlsxBuffer([{ name: 'Circuits', rows: SHEET }]));
  const bomb = deflateRepeated(
    '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      '<row r="1"><c r="A1" t="inlineStr"><is><t>',
    Buffer.alloc(1 << 20, 'A'), 1000, '</t></is></c></row></sheetData></worksheet>');
  return [...parts].map(([name, data]) => (name === 'xl/worksheets/sheet1.xml'
    ? { name, stored: bomb.stored, method: 8 as const, uncompressedSize: announce(bomb.size) }
    : deflatedPart(name, data)));
}

describe('malformed files', () => {
  it('a truncated xlsx is unavailable', async () => {
    const whole = await xlsxBuffer([{ name: 'Circuits', rows: SHEET }]);
    await writeFile(path.join(dir, 'cut.xlsx'), whole.subarray(0, Math.floor(whole.length / 2)));
    await assertUnavailable({}, endpoint('cut', ''), endpoint('cut', 'Circuits'), /cut\.xlsx is not a readable xlsx workbook/);
  });

  it('a zip that is not a workbook is unavailable', async () => {
    await writeFile(path.join(dir, 'other.xlsx'), buildZip([deflatedPart('hello.txt', 'hi')]));
    await assertUnavailable({}, endpoint('other', ''), endpoint('other', 'x'), /not an xlsx workbook/);
  });

  it('binary garbage named .csv is refused, not parsed into rows', async () => {
    await writeFile(path.join(dir, 'junk.csv'), Buffer.concat([Buffer.from('source,destination\n'), randomBytes(64 * 1024)]));
    await assertUnavailable({}, endpoint('junk', 'junk'), endpoint('junk', 'junk'), /junk\.csv is not a text CSV file/);
  });

  it('text-like garbage without the required columns says what it found, without quoting it', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => 0x80 + ((i * 37) % 0x7f)));
    await writeFile(path.join(dir, 'noise.csv'), bytes);
    await assertUnavailable({}, endpoint('noise', 'noise'), endpoint('noise', 'noise'),
      /no sheet with source and destination columns \(its first row has 1 filled cell, none of them a source or destination header\)/);
  });
});

describe('zip bombs', () => {
  it('a 1 MB workbook announcing 1 GiB is refused before inflating (maxUncompressedBytes)', async () => {
    const file = buildZip(await bombParts((real) => real));
    assert.ok(file.length > 900_000 && file.length < 1_200_000, `bomb is ${file.length} bytes`);
    await writeFile(path.join(dir, 'bomb.xlsx'), file);
    const rss = process.memoryUsage().rss;
    await assertUnavailable({}, endpoint('bomb', ''), endpoint('bomb', 'Circuits'),
      /inflates to more than 209715200 bytes \(limit datasources\.spreadsheet\.maxUncompressedBytes\)/);
    assert.ok(process.memoryUsage().rss - rss < 100e6, 'memory stayed flat');
  });

  it('the same bomb under a generous size limit is refused for its ratio (maxInflateRatio)', async () => {
    await writeFile(path.join(dir, 'bomb.xlsx'), buildZip(await bombParts((real) => real)));
    await assertUnavailable({ maxUncompressedBytes: 4e9 }, endpoint('bomb', ''), endpoint('bomb', 'Circuits'),
      /part xl\/worksheets\/sheet1\.xml inflates \d+:1, more than 100:1 \(limit datasources\.spreadsheet\.maxInflateRatio\)/);
  });

  it('a bomb that lies about its size stops at the announced size', async () => {
    await writeFile(path.join(dir, 'liar.xlsx'), buildZip(await bombParts(() => 64 * 1024)));
    const rss = process.memoryUsage().rss;
    await assertUnavailable({}, endpoint('liar', ''), endpoint('liar', 'Circuits'), /liar\.xlsx is not a readable xlsx workbook: too many bytes/);
    assert.ok(process.memoryUsage().rss - rss < 100e6, 'memory stayed flat');
  });
});

describe('limits', () => {
  const wide = [Array.from({ length: 12 }, (_, i) => (i === 0 ? 'source' : i === 1 ? 'destination' : `c${i}`)), Array(12).fill('x')];
  const long = [['source', 'destination'], ...Array.from({ length: 30 }, (_, i) => [`n${i}`, `m${i}`])];
  const cases: [string, 'xlsx' | 'csv', string[][], Parameters<typeof registryFor>[1], RegExp][] = [
    ['file size (xlsx)', 'xlsx', long, { maxFileBytes: 1000 }, /larger than 1000 bytes \(limit datasources\.spreadsheet\.maxFileBytes\)/],
    ['file size (csv)', 'csv', long, { maxFileBytes: 100 }, /larger than 100 bytes \(limit datasources\.spreadsheet\.maxFileBytes\)/],
    ['rows (xlsx)', 'xlsx', long, { maxRows: 20 }, /more than 20 rows \(limit datasources\.spreadsheet\.maxRows\)/],
    ['rows (csv)', 'csv', long, { maxRows: 20 }, /more than 20 rows \(limit datasources\.spreadsheet\.maxRows\)/],
    ['columns (xlsx)', 'xlsx', wide, { maxColumns: 10 }, /more than 10 columns \(limit datasources\.spreadsheet\.maxColumns\)/],
    ['columns (csv)', 'csv', wide, { maxColumns: 10 }, /more than 10 columns \(limit datasources\.spreadsheet\.maxColumns\)/],
  ];
  for (const [label, kind, rows, limits, reason] of cases) {
    it(`a file over the ${label} limit is unavailable, naming the limit`, async () => {
      if (kind === 'xlsx') await writeXlsx(dir, 'big.xlsx', [{ name: 'Circuits', rows }]);
      else await writeCsv(dir, 'big.csv', rows);
      const key = kind === 'xlsx' ? endpoint('big', '') : endpoint('big', 'big');
      await assertUnavailable(limits, key, kind === 'xlsx' ? endpoint('big', 'Circuits') : key, reason);
      // The same file within the limits is fine.
      const ok = await registryFor(dir).run(query(kind === 'xlsx' ? endpoint('big', 'Circuits') : key));
      assert.equal(ok.records.length, rows.length - 1);
    });
  }

  it('a csv of millions of empty fields on one line is refused before parsing', async () => {
    await writeFile(path.join(dir, 'commas.csv'), `source,destination\n${','.repeat(5_000_000)}\n`);
    await assertUnavailable({}, endpoint('commas', 'commas'), endpoint('commas', 'commas'), /row 2 has more than 200 columns/);
  });
});

describe('names that could pollute prototypes', () => {
  it('__proto__, constructor and friends as tab, header, node and file names stay plain data', async () => {
    const header = ['source', 'destination', '__proto__', 'constructor', 'toString', 'polluted', 'source___proto__'];
    const row = ['__proto__', 'constructor', '{"polluted":1}', 'ctor', 'str', 'yes', 'p'];
    await writeXlsx(dir, 'evil.xlsx', [
      { name: '__proto__', rows: [header, row] },
      { name: 'constructor', rows: [header, row] },
      { name: 'Nodes', rows: [['name', '__proto__', 'latitude', 'longitude'], ['__proto__', 'x', 1, 2], ['constructor', 'y', 3, 4]] },
    ]);
    await writeFile(path.join(dir, '__proto__.csv'), csvText([header, row]));
    const registry = registryFor(dir);
    const list = await registry.list();
    for (const ep of [endpoint('evil', '__proto__'), endpoint('evil', 'constructor'), endpoint('__proto__', '__proto__')]) {
      assert.equal(list[ep]?.available, true, ep);
      const { records } = await registry.run(query(ep, [{ field: '__proto__', value: ['{"polluted":1}'] }]));
      assert.equal(records.length, 1);
      const record = records[0];
      assert.equal(Object.getPrototypeOf(record), Object.prototype);
      assert.ok(Object.hasOwn(record, '__proto__'));
      assert.equal(Object.getOwnPropertyDescriptor(record, '__proto__')?.value, '{"polluted":1}');
      assert.equal(record.constructor, 'ctor');
      assert.equal(record.tostring, 'str'); // headers are used in lower case
      assert.equal(typeof record.toString, 'function');
      assert.equal(Object.getPrototypeOf(record.endpoints[0]), Object.prototype);
      assert.equal(Object.getOwnPropertyDescriptor(record.endpoints[0], '__proto__')?.value, 'p');
      assert.match(JSON.stringify(record), /"__proto__":"\{\\"polluted\\":1\}"/);
    }
    const fromNodes = (await registry.run(query(endpoint('evil', '__proto__')))).records[0];
    assert.deepEqual([fromNodes.endpoints[0].latitude, fromNodes.endpoints[1].latitude], [1, 3]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.toString.call([]), '[object Array]');
    assert.equal(typeof ({} as { constructor: unknown }).constructor, 'function');
  });
});
