import { mkdtemp, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isUtf8 } from 'node:buffer';
import { parse } from 'csv-parse/sync';
import { parse as parseStream } from 'csv-parse';
import { readCsv } from '../datasources/spreadsheet/read-csv.ts';
import { buildBook } from '../datasources/spreadsheet/workbook.ts';
import { parseSettings } from '../config/settings.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
const N = 200_000;
const dir = await mkdtemp(path.join(tmpdir(), 'prof-'));
const HEADER = ['id','name','source','destination','capacity','region','tag','tag','source_latitude','source_longitude','destination_latitude','destination_longitude'];
const lines = [HEADER.join(',')];
for (let i = 0; i < N; i++) { const a = i % 2000, b = (i*7+13)%2000; lines.push([`c${i}`, `r${a}--r${b} #${i}`, `r${a}`, `r${b}`, [10,100,400][i%3], 'europe', i%2?'dark':'leased', i%3?'':'protected', (a%150-60)+0.5, (a%340-170)+0.25, (b%150-60)+0.5, (b%340-170)+0.25].join(',')); }
const file = path.join(dir, 'big.csv');
await writeFile(file, lines.join('\n') + '\n');
const limits = parseSettings({ datasources: { spreadsheet: { dir, maxRows: 300000, maxFileBytes: 100e6 } } }, {}, dir).datasources.spreadsheet;
console.log('limits', limits);
for (let k = 0; k < 3; k++) {
  let t = performance.now();
  const buf = await readFile(file); const tRead = performance.now() - t; t = performance.now();
  isUtf8(buf); const tUtf = performance.now() - t; t = performance.now();
  const recs = parse(buf, { bom: true, delimiter: ',', relax_column_count: true, relax_quotes: true, skip_empty_lines: false }); const tParse = performance.now() - t; t = performance.now();
  const raw = await readCsv(file, 'big.csv', 'big', limits); const tAll = performance.now() - t; t = performance.now();
  const book = buildBook(raw, 'big.csv'); const tBook = performance.now() - t;
  console.log({ tRead, tUtf, tParse, tReadCsv: tAll, tBook, recs: recs.length, size: buf.length });
}
