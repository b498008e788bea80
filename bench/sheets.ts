// Large-sheet benchmarks (a 199,000-row CSV blocked every request for
// 600 ms): the spreadsheet datasource reads a sheet in slices that hand the
// event loop back (datasources/spreadsheet/turns.ts). Each figure beside a
// same-run baseline:
//  1. reading a generated 200,000-row CSV through the registry (listing a
//     fresh one: read, check, parse, check every row), its wall time and
//     the longest event-loop stall meanwhile (perf_hooks
//     monitorEventLoopDelay), vs a blocking csv-parse/sync parse of the same
//     bytes, the bulk of the old read (which also checked the bytes and the
//     rows in the same block: its stall was longer still);
//  2. the first query over the parsed sheet that returns every record
//     (building them), time and longest stall, vs building the same records
//     in one synchronous loop, as the old query did.
// Wall times are the best of the rounds (interference only ever adds time),
// with the CPU-time ratio (medians) beside as a view less disturbed by other
// processes; a stall is the median of the rounds' longest ones. Rounds alternate which
// side goes first; garbage is collected before each measurement.
// Runnable alone: `node --import tsx bench/sheets.ts`. Data goes to a temp folder.
import { readFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { parse } from 'csv-parse/sync';
import { parseSettings } from '../config/settings.ts';
import { createDatasources } from '../datasources/index.ts';
import { readCsv } from '../datasources/spreadsheet/read-csv.ts';
import { runQuery } from '../datasources/spreadsheet/query.ts';
import { buildBook } from '../datasources/spreadsheet/workbook.ts';
import type { DatasetQuery } from '../schema/dataset.ts';

const SELF = fileURLToPath(import.meta.url);
const ROWS = Number(process.env.BENCH_SHEET_ROWS ?? 200_000);
const ROUNDS = 3;
const HEADER = 'id,name,source,destination,capacity,region,source_latitude,source_longitude,destination_latitude,destination_longitude';
const REGIONS = ['us-west', 'us-central', 'us-east', 'europe', 'transatlantic'];

async function generate(dir: string): Promise<string> {
  const lines = [HEADER];
  for (let i = 0; i < ROWS; i++) {
    const a = i % 2000, b = (i * 7 + 13) % 2000;
    const at = (n: number) => `${(n % 150) - 60}.5,${(n % 340) - 170}.25`;
    lines.push(`c${i},r${a}--r${b} #${i},r${a},r${b},${[10, 100, 400][i % 3]},${REGIONS[i % 5]},${at(a)},${at(b)}`);
  }
  const file = path.join(dir, 'big.csv');
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Wall and CPU milliseconds of `work` and the longest event-loop stall (ms) while it ran. */
async function measure<T>(work: () => Promise<T>): Promise<{ ms: number; cpu: number; stall: number; value: T }> {
  collect();
  await turn();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  // Its first firing only sets its baseline: a stall that starts before it would go unrecorded.
  await sleep(5);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await work();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await sleep(20); // the monitor's timer records the last stall on its next firing
  delay.disable();
  return { ms, cpu: (cpu.user + cpu.system) / 1000, stall: delay.max / 1e6, value };
}

const best = (xs: number[]) => Math.min(...xs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x: number) => `${Math.round(x)} ms`;

export async function benchSheets(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-sheets-'));
  try {
    const file = await generate(dir);
    const settings = parseSettings({ datasources: { spreadsheet: { dir, maxRows: ROWS + 1 } } }, {}, dir);
    const limits = settings.datasources.spreadsheet;
    const endpoint = 'spreadsheet?sheet_id=big&sheet_name=big';
    const all: DatasetQuery = { endpoint, filters: [], node_deduplication_field: null, node_group_criteria: null, node_group_layout: null };
    type Figures = { ms: number[]; cpu: number[]; stall: number[] };
    const figures = (): Figures => ({ ms: [], cpu: [], stall: [] });
    const [ours, blocking, query, loop] = [figures(), figures(), figures(), figures()];
    const add = (to: Figures, m: { ms: number; cpu: number; stall: number }) => {
      to.ms.push(m.ms);
      to.cpu.push(m.cpu);
      to.stall.push(m.stall);
    };
    const cpuRatio = (a: Figures, b: Figures) => `CPU time ${(median(a.cpu) / median(b.cpu)).toFixed(2)}x`;
    const read = async () => {
      const entry = (await createDatasources(settings).list())[endpoint];
      if (entry?.recordCount !== ROWS) throw new Error(`listed ${String(entry?.recordCount)} records, not ${ROWS}: ${String(entry?.error)}`);
    };
    const bare = async () => {
      const rows = parse(await readFile(file), { bom: true, delimiter: ',', relax_column_count: true, relax_quotes: true, skip_empty_lines: false });
      if (rows.length !== ROWS + 1) throw new Error(`csv-parse gave ${rows.length} rows`);
    };
    await read(); // warm both paths once
    await bare();
    for (let round = 0; round < ROUNDS; round++) {
      const sides = [async () => add(ours, await measure(read)), async () => add(blocking, await measure(bare))];
      for (const side of round % 2 ? sides.reverse() : sides) await side();
      // A fresh parse for each side of the query figure: records are built once per sheet.
      const fresh = async () => (await buildBook(await readCsv(file, 'big.csv', 'big', limits), 'big.csv')).tabs.get('big')!;
      const [a, b] = [await fresh(), await fresh()];
      const querySides = [
        async () => add(query, await measure(async () => {
          if ((await runQuery(a, all)).records.length !== ROWS) throw new Error('query lost records');
        })),
        async () => add(loop, await measure(async () => {
          const records = [];
          for (let i = 0; i < b.recordCount; i++) records.push(b.record(i));
          if (records.length !== ROWS) throw new Error('loop lost records');
        })),
      ];
      for (const side of round % 2 ? querySides.reverse() : querySides) await side();
    }
    const size = ((await stat(file)).size / 1e6).toFixed(1);
    return [
      `csv ${ROWS / 1000}k rows (${size} MB) read in slices: ${fmt(best(ours.ms))}, longest event-loop stall ${fmt(median(ours.stall))} ` +
        `vs blocking csv-parse/sync parse ${fmt(best(blocking.ms))}, stall ${fmt(median(blocking.stall))}: ` +
        `time ${(best(ours.ms) / best(blocking.ms)).toFixed(2)}x (${cpuRatio(ours, blocking)}), ` +
        `stall ${(median(ours.stall) / median(blocking.stall)).toFixed(3)}x (target: a small fraction of the parse)`,
      `csv ${ROWS / 1000}k rows first query of every record (builds them) in slices: ${fmt(best(query.ms))}, longest stall ${fmt(median(query.stall))} ` +
        `vs one synchronous loop ${fmt(best(loop.ms))}, stall ${fmt(median(loop.stall))}: ` +
        `time ${(best(query.ms) / best(loop.ms)).toFixed(2)}x (${cpuRatio(query, loop)}), stall ${(median(query.stall) / median(loop.stall)).toFixed(3)}x`,
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === SELF) {
  for (const line of await benchSheets()) console.log(line);
}
