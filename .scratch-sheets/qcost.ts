import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { parseSettings } from '../config/settings.ts';
import { readCsv } from '../datasources/spreadsheet/read-csv.ts';
import { buildBook } from '../datasources/spreadsheet/workbook.ts';
import { inTurns } from '../datasources/spreadsheet/turns.ts';
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
const dir = '/tmp/stall-200k';
const limits = parseSettings({ datasources: { spreadsheet: { dir, maxRows: 300000, maxFileBytes: 100e6 } } }, {}, dir).datasources.spreadsheet;
const fresh = async () => (await buildBook(await readCsv(path.join(dir, 'bench-csv.csv'), 'c', 'bench-csv', limits), 'c')).sheets.get('bench-csv')!;
const size = Number(process.argv[2] ?? 4096);
for (let r = 0; r < 4; r++) {
  for (const mode of r % 2 ? ['sync', 'turns'] : ['turns', 'sync']) {
    const s = await fresh(); collect();
    const t = performance.now(); const out: unknown[] = [];
    if (mode === 'sync') for (let i = 0; i < s.recordCount; i++) out.push(s.record(i));
    else await inTurns(0, s.recordCount, size, (f, to) => { for (let i = f; i < to; i++) out.push(s.record(i)); });
    console.log(mode, Math.round(performance.now() - t));
  }
}
