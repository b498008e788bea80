import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { readXlsx } from '../datasources/spreadsheet/read-xlsx.ts';
import { readCsv } from '../datasources/spreadsheet/read-csv.ts';
import { parseSettings } from '../config/settings.ts';
const dir = '/tmp/stall-200k';
const limits = parseSettings({ datasources: { spreadsheet: { dir, maxRows: 300000, maxFileBytes: 100e6 } } }, {}, dir).datasources.spreadsheet;
const gcs: { start: number; dur: number; kind: number }[] = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) gcs.push({ start: e.startTime, dur: e.duration, kind: (e as any).detail?.kind }); }).observe({ entryTypes: ['gc'] });
const gaps: [number, number][] = [];
let last = performance.now(); const iv = setInterval(() => { const n = performance.now(); if (n - last > 20) gaps.push([last, n]); last = n; }, 1);
const which = process.argv[2] ?? 'xlsx';
if (which === 'xlsx') await readXlsx(path.join(dir, 'bench.xlsx'), 'bench.xlsx', limits); else await readCsv(path.join(dir, 'bench-csv.csv'), 'c', 'c', limits);
await new Promise((r) => setTimeout(r, 50));
clearInterval(iv);
for (const [a, b] of gaps) { const gc = gcs.filter((g) => g.start < b && g.start + g.dur > a).reduce((s, g) => s + g.dur, 0); console.log(`gap ${Math.round(b - a)} ms, gc inside ${Math.round(gc)} ms`); }
console.log('total gc', Math.round(gcs.reduce((s, g) => s + g.dur, 0)), 'max gc', Math.round(Math.max(...gcs.map((g) => g.dur))));
