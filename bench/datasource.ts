// Datasource benchmarks (issue 4), each figure beside a same-run baseline:
// - dataset query (first run: parse + records + filter) on a generated
//   50,000-row xlsx and the same rows as csv, vs the parser's own bare parse
//   of the same file (exceljs's streaming WorkbookReader reading every row's
//   values, with the same options; csv-parse's sync parse of the file);
// - the same query again on the unchanged file (cache hit) vs the first run;
// - peak RSS of a fresh process that runs the xlsx query, beside one that
//   only does the bare exceljs parse.
// Rounds alternate which side goes first, garbage is collected before each
// timed call, and each time is the best of the rounds (on a shared machine,
// interference only ever adds time); the CPU-time ratio (medians) is printed
// beside it as a second view less disturbed by other processes.
// The xlsx is repacked with its shared strings before the sheet, the order
// in which exceljs's own reader needs no temp file (the kindest baseline).
// Runnable alone: `npx tsx bench/datasource.ts`. Data goes to a temp folder.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { parseSettings } from '../config/settings.ts';
import { createDatasources } from '../datasources/index.ts';
import { READER_OPTIONS } from '../datasources/spreadsheet/read-xlsx.ts';
import type { DatasetQuery } from '../schema/dataset.ts';
import { buildZip, deflatedPart, readParts } from '../test/datasources/zip.ts';

const ROWS = Number(process.env.BENCH_SHEET_ROWS ?? 50_000);
const ROUNDS = 7;
const SELF = fileURLToPath(import.meta.url);
const HEADER = ['id', 'name', 'source', 'destination', 'capacity', 'region', 'description', 'tag', 'tag',
  'source_latitude', 'source_longitude', 'destination_latitude', 'destination_longitude'];
const REGIONS = ['us-west', 'us-central', 'us-east', 'europe', 'transatlantic'];

function rows(): (string | number)[][] {
  const out: (string | number)[][] = [];
  for (let i = 0; i < ROWS; i++) {
    const a = i % 2000;
    const b = (i * 7 + 13) % 2000;
    const where = (n: number) => [Math.round((n % 150 - 60) * 1000) / 1000 + 0.5, Math.round((n % 340 - 170) * 1000) / 1000 + 0.25];
    out.push([`c${i}`, `r${a}--r${b} #${i}`, `r${a}`, `r${b}`, [10, 100, 400][i % 3], REGIONS[i % 5],
      `circuit ${i} between router ${a} and router ${b}`, i % 2 ? 'dark-fiber' : 'leased-wave', i % 3 ? '' : 'protected',
      ...where(a), ...where(b)]);
  }
  return out;
}

/** Files in `dir`: bench.xlsx (one sheet, Circuits) and bench-csv.csv, the same rows. */
export async function generate(dir: string) {
  const data = rows();
  const raw = path.join(dir, 'raw.xlsx.tmp');
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: raw, useSharedStrings: true });
  const sheet = writer.addWorksheet('Circuits');
  sheet.addRow(HEADER).commit();
  for (const row of data) sheet.addRow(row).commit();
  await sheet.commit();
  await writer.commit();
  const parts = await readParts(await readFile(raw));
  await rm(raw);
  const rank = (name: string) => (name.startsWith('xl/worksheets/') ? 1 : 0);
  const ordered = [...parts].sort((a, b) => rank(a[0]) - rank(b[0]));
  await writeFile(path.join(dir, 'bench.xlsx'), buildZip(ordered.map(([name, bytes]) => ({ ...deflatedPart(name, bytes), crc: crc32(bytes) }))));
  await writeFile(path.join(dir, 'bench-csv.csv'), `${[HEADER, ...data].map((r) => r.join(',')).join('\n')}\n`);
}

const registry = (dir: string) => createDatasources(parseSettings({ datasources: { spreadsheet: { dir } } }, {}, dir));
const query = (endpoint: string): DatasetQuery => ({
  endpoint, filters: [{ field: 'region', operator: 'equal', value: ['europe'] }],
  node_deduplication_field: null, node_group_criteria: null, node_group_layout: null,
});
const ENDPOINTS = { xlsx: 'spreadsheet?sheet_id=bench&sheet_name=Circuits', csv: 'spreadsheet?sheet_id=bench-csv&sheet_name=bench-csv' };

async function bareXlsx(file: string): Promise<number> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, READER_OPTIONS);
  let cells = 0;
  for await (const ws of reader) for await (const row of ws as AsyncIterable<ExcelJS.Row>) cells += (row.values as unknown[]).length;
  return cells;
}

const bareCsv = async (file: string) => (parse(await readFile(file)) as string[][]).length;

// Garbage left by the previous measurement is collected before each one, so
// every figure pays for its own allocations only.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

/** Wall-clock and CPU milliseconds of one call (CPU: this process, GC threads included). */
async function time<T>(f: () => Promise<T>): Promise<[number, T, number]> {
  collect();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await f();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return [wall, value, (cpu.user + cpu.system) / 1000];
}

const best = (xs: number[]) => Math.min(...xs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${Math.round(x)} ms`;

/** Fresh process: runs one thing, answers its peak RSS in MB. */
function peakRss(mode: string, dir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--peak-child', mode, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`${mode} child exited ${code}`))));
  });
}

export async function benchDatasource(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-ds-'));
  try {
    await generate(dir);
    const lines: string[] = [];
    for (const kind of ['xlsx', 'csv'] as const) {
      const file = path.join(dir, kind === 'xlsx' ? 'bench.xlsx' : 'bench-csv.csv');
      const bare = kind === 'xlsx' ? () => bareXlsx(file) : () => bareCsv(file);
      const firsts: number[] = [];
      const bares: number[] = [];
      const hits: number[] = [];
      const cpu = { first: [] as number[], bare: [] as number[] };
      let matched = 0;
      await bare(); // warm both paths once
      await registry(dir).run(query(ENDPOINTS[kind]));
      for (let round = 0; round < ROUNDS; round++) {
        const reg = registry(dir);
        const runFirst = async () => {
          const [first, result, firstCpu] = await time(() => reg.run(query(ENDPOINTS[kind])));
          const [hit] = await time(() => reg.run(query(ENDPOINTS[kind])));
          matched = result.records.length;
          firsts.push(first); hits.push(hit); cpu.first.push(firstCpu);
        };
        const runBare = async () => {
          const [wall, , bareCpu] = await time(bare);
          bares.push(wall); cpu.bare.push(bareCpu);
        };
        if (round % 2) {
          await runBare();
          await runFirst();
        } else {
          await runFirst();
          await runBare();
        }
        await reg.close();
      }
      const size = ((await stat(file)).size / 1e6).toFixed(1);
      const parser = kind === 'xlsx' ? 'exceljs' : 'csv-parse';
      lines.push(`${kind} ${ROWS / 1000}k rows (${size} MB, ${matched} match the filter): run ${ms(best(firsts))} ` +
        `vs bare ${parser} parse ${ms(best(bares))} = ${(best(firsts) / best(bares)).toFixed(2)}x (target <= 1.3x; ` +
        `CPU time ${(median(cpu.first) / median(cpu.bare)).toFixed(2)}x)`);
      lines.push(`${kind} cache hit: ${best(hits).toFixed(1)} ms vs first run ${ms(best(firsts))} = ` +
        `${Math.round(best(firsts) / best(hits))}x faster (target >= 20x)`);
    }
    const [ours, bareRss] = [await peakRss('run-xlsx', dir), await peakRss('bare-xlsx', dir)];
    lines.push(`xlsx ${ROWS / 1000}k rows peak RSS (fresh process): run ${ours} MB vs bare exceljs parse ${bareRss} MB (target < 300 MB)`);
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function peakChild(mode: string, dir: string) {
  if (mode === 'run-xlsx') {
    const result = await registry(dir).run(query(ENDPOINTS.xlsx));
    if (!result.records.length) throw new Error('no records');
  } else await bareXlsx(path.join(dir, 'bench.xlsx'));
  process.stdout.write(`${Math.round(process.resourceUsage().maxRSS / 1024)}\n`);
}

if (process.argv[2] === '--peak-child') {
  await peakChild(process.argv[3], process.argv[4]);
} else if (process.argv[1] === SELF) {
  for (const line of await benchDatasource()) console.log(line);
}
