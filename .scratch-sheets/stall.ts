import { mkdtemp } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { generate } from '../bench/datasource.ts';
import { readCsv } from '../datasources/spreadsheet/read-csv.ts';
import { readXlsx } from '../datasources/spreadsheet/read-xlsx.ts';
import { buildBook } from '../datasources/spreadsheet/workbook.ts';
import { parseSettings } from '../config/settings.ts';
const dir = '/tmp/stall-200k';
if (!existsSync(path.join(dir, 'bench.xlsx'))) { const { mkdir } = await import('node:fs/promises'); await mkdir(dir, { recursive: true }); await generate(dir); }
const limits = parseSettings({ datasources: { spreadsheet: { dir, maxRows: 300000, maxFileBytes: 100e6 } } }, {}, dir).datasources.spreadsheet;
async function measure(label: string, f: () => Promise<unknown>) {
  const h = monitorEventLoopDelay({ resolution: 1 }); h.enable();
  let ticks = 0, run = true; const tick = () => { ticks++; if (run) setImmediate(tick); }; setImmediate(tick);
  let maxGap = 0, last = performance.now(); const iv = setInterval(() => { const n = performance.now(); maxGap = Math.max(maxGap, n - last); last = n; }, 1);
  const t = performance.now(); await f(); const ms = performance.now() - t; await new Promise((r) => setTimeout(r, 5));
  run = false; clearInterval(iv); h.disable();
  console.log(label, { ms: Math.round(ms), ticks, maxDelay: Math.round(h.max / 1e6), maxGap: Math.round(maxGap) });
}
const x = path.join(dir, 'bench.xlsx'), c = path.join(dir, 'bench-csv.csv');
for (let k = 0; k < 2; k++) {
  let raw: any;
  await measure('xlsx read', async () => { raw = await readXlsx(x, 'bench.xlsx', limits); });
  await measure('xlsx book', async () => { await buildBook(raw, 'x'); });
  await measure('csv read', async () => { raw = await readCsv(c, 'c.csv', 'c', limits); });
  await measure('csv book', async () => { await buildBook(raw, 'x'); });
}
