// Writes the demo spreadsheets into data/sheets/ (or the folder given as the
// first argument) from the readable list in make-demo-sheets.json:
//  - rne-backbone.xlsx: a research-and-education backbone, tabs `Circuits`
//    and `Nodes` (routers <site>-cr5, -cr6, … sharing their site's place);
//  - rne-exchanges.csv: exchange points and their links, coordinates inline.
// Deterministic: the same list gives the same content, and a file whose
// content is unchanged is not rewritten (no churn in git). A file is replaced
// by renaming a finished temp file over it: a running service re-reads sheets
// when they change, and must never read half a workbook.
// Run: npx tsx cli/make-demo-sheets.ts [--check] [folder]
import * as nodeFs from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ExcelJS from 'exceljs';
import yauzl from 'yauzl';
import { durableWriter } from '../store/write-thread.mjs';
import { commandLine, refuse } from './args.ts';

interface Site { code: string; city: string; country: string; region: string; latitude: number; longitude: number; routers: number }
interface Exchange { name: string; city: string; country: string; latitude: number; longitude: number }
interface DemoList {
  sites: Site[];
  circuits: [string, string, number, string][];
  exchanges: Exchange[];
  exchangeLinks: [string, string, number, string][];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXED_DATE = new Date(Date.UTC(2026, 0, 1));
type Row = (string | number)[];

export function loadDemoList(): DemoList {
  return JSON.parse(nodeFs.readFileSync(path.join(here, 'make-demo-sheets.json'), 'utf8')) as DemoList;
}

const router = (site: Site, i: number) => `${site.code.toLowerCase()}-cr${5 + i}`;

/** The two tabs of the backbone workbook as rows (header first). */
export function backboneTabs(list: DemoList): { circuits: Row[]; nodes: Row[] } {
  const sites = new Map(list.sites.map((s) => [s.code, s]));
  const nodes: Row[] = [['name', 'site', 'city', 'country', 'region', 'role', 'latitude', 'longitude']];
  for (const s of list.sites) {
    for (let i = 0; i < s.routers; i++) nodes.push([router(s, i), s.code, s.city, s.country, s.region, 'core', s.latitude, s.longitude]);
  }
  const circuits: Row[] = [['id', 'name', 'source', 'destination', 'capacity', 'region', 'type', 'tag', 'tag', 'description']];
  const turn = new Map<string, number>();
  const next = (s: Site) => {
    const n = turn.get(s.code) ?? 0;
    turn.set(s.code, n + 1);
    return router(s, n % s.routers);
  };
  const pairs = new Map<string, number>();
  const add = (a: Site, b: Site, src: string, dst: string, gbps: number, type: string, medium: string) => {
    const pair = `${a.code}-${b.code}`;
    const nth = (pairs.get(pair) ?? 0) + 1;
    pairs.set(pair, nth);
    const region = a.region === b.region ? a.region
      : a.country !== 'US' && b.country !== 'US' ? 'europe'
      : a.country === 'US' && b.country === 'US' ? 'us-interregional' : 'transatlantic';
    circuits.push([`RNE-${String(circuits.length).padStart(3, '0')}`, `${pair} ${gbps}G${nth > 1 ? ` #${nth}` : ''}`,
      src, dst, gbps, region, type, medium, gbps >= 400 ? 'protected' : '', `${a.city} - ${b.city}, ${gbps} Gbit/s ${medium}`]);
  };
  for (const [from, to, gbps, medium] of list.circuits) {
    const a = sites.get(from);
    const b = sites.get(to);
    if (!a || !b) throw new Error(`make-demo-sheets.json: circuit ${from}-${to} names an unknown site`);
    add(a, b, next(a), next(b), gbps, a.region !== b.region && medium === 'submarine' ? 'transatlantic' : 'backbone', medium);
  }
  for (const s of list.sites) {
    for (let i = 1; i < s.routers; i++) add(s, s, router(s, i - 1), router(s, i), 400, 'intra-site', 'patch');
  }
  return { circuits, nodes };
}

/** The exchange-point CSV as rows, coordinates inline (source_* / destination_*). */
export function exchangeRows(list: DemoList): Row[] {
  const byName = new Map(list.exchanges.map((x) => [x.name, x]));
  const end = (x: Exchange) => [x.city, x.country, x.latitude, x.longitude];
  const rows: Row[] = [['id', 'name', 'source', 'destination', 'capacity', 'medium',
    'source_city', 'source_country', 'source_latitude', 'source_longitude',
    'destination_city', 'destination_country', 'destination_latitude', 'destination_longitude']];
  list.exchangeLinks.forEach(([from, to, gbps, medium], i) => {
    const a = byName.get(from);
    const b = byName.get(to);
    if (!a || !b) throw new Error(`make-demo-sheets.json: exchange link ${from}-${to} names an unknown exchange`);
    rows.push([`XL-${String(i + 1).padStart(2, '0')}`, `${from} - ${to}`, from, to, gbps, medium, ...end(a), ...end(b)]);
  });
  return rows;
}

async function workbookBuffer(tabs: { circuits: Row[]; nodes: Row[] }): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'make-demo-sheets';
  wb.created = FIXED_DATE;
  wb.modified = FIXED_DATE;
  for (const [name, rows] of [['Circuits', tabs.circuits], ['Nodes', tabs.nodes]] as const) {
    const ws = wb.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
    ws.addRows(rows);
    ws.getRow(1).font = { bold: true };
    ws.columns.forEach((column, i) => { column.width = Math.min(40, Math.max(8, ...rows.map((r) => String(r[i] ?? '').length + 2))); });
  }
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const csvCell = (value: string | number) => {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** Each part of a zip, inflated, for comparing two workbooks by content. */
async function zipContent(buffer: Buffer): Promise<string> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true });
  const parts: string[] = [];
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    if (!entry.fileName.endsWith('/')) for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    parts.push(`${entry.fileName}\n${Buffer.concat(chunks).toString('base64')}`);
  }
  return parts.sort().join('\n');
}

/** Writes `data` unless the file already holds the same content (or `check` only compares). */
async function writeIfChanged(file: string, data: Buffer, same: (old: Buffer) => Promise<boolean>, check: boolean) {
  const old = await readFile(file).catch(() => null);
  if (old && (await same(old).catch(() => false))) return 'unchanged';
  if (check) return 'out of date:';
  // The store's durable write: a hidden temp file (ending in .tmp, which the sheet listing skips) renamed over.
  const writer = durableWriter(nodeFs);
  try {
    writer.write(file, data, 0o644);
  } finally {
    writer.close(); // the folder descriptor it keeps for its fsync
  }
  return 'wrote';
}

/** `check`: compare only, write nothing (for tests and CI). */
export async function makeDemoSheets(outDir = path.join(here, '..', 'data', 'sheets'), { check = false } = {}): Promise<string[]> {
  const list = loadDemoList();
  if (!check) await mkdir(outDir, { recursive: true });
  const tabs = backboneTabs(list);
  const xlsx = await workbookBuffer(tabs);
  const xlsxFile = path.join(outDir, 'rne-backbone.xlsx');
  const newContent = await zipContent(xlsx);
  const wroteXlsx = await writeIfChanged(xlsxFile, xlsx, async (old) => (await zipContent(old)) === newContent, check);
  const csv = Buffer.from(`${exchangeRows(list).map((r) => r.map(csvCell).join(',')).join('\n')}\n`);
  const csvFile = path.join(outDir, 'rne-exchanges.csv');
  const wroteCsv = await writeIfChanged(csvFile, csv, async (old) => old.equals(csv), check);
  return [
    `${wroteXlsx} ${xlsxFile}: ${list.sites.length} sites, ${tabs.nodes.length - 1} routers, ${tabs.circuits.length - 1} circuits (${xlsx.length} bytes)`,
    `${wroteCsv} ${csvFile}: ${list.exchanges.length} exchange points, ${list.exchangeLinks.length} links`,
  ];
}

const USAGE = `usage: npx tsx cli/make-demo-sheets.ts [--check] [folder]
  writes the demo sheets into folder (default data/sheets) from make-demo-sheets.json;
  --check writes nothing and exits 1 when a sheet is out of date`;

/** The command: its exit code (2 for a usage error, 1 when --check finds a sheet out of date); a folder given is taken from `cwd`. */
export async function makeDemoSheetsCli(argv: readonly string[], io: { out: (line: string) => void; err: (line: string) => void },
  cwd = process.cwd()): Promise<number> {
  // An option we do not know is a mistake, not a folder to write into; so is a second folder.
  const line = commandLine(argv, { usage: USAGE, options: { check: { type: 'boolean' } }, words: [0, 1] });
  if (!line.run) return refuse(line, io);
  const folder = line.positionals[0];
  const lines = await makeDemoSheets(folder ? path.resolve(cwd, folder) : undefined, { check: line.values.check === true });
  for (const l of lines) io.out(l);
  return lines.some((l) => l.startsWith('out of date')) ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await makeDemoSheetsCli(process.argv.slice(2), { out: (l) => console.log(l), err: (l) => console.error(l) });
}
