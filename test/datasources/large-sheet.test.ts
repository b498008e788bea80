// Large sheets are read in slices that hand the event loop back
// (datasources/spreadsheet/turns.ts), so other requests keep answering while
// a 200,000-row sheet is parsed; and the sliced reading gives exactly what a
// one-call read gives, limits included.
// "While parsed" is told without timing: a turn of the event loop that runs
// while the listing is still under way and no file I/O is outstanding (no
// fs request, no open or closing FileHandle) is one the parse itself handed back. A
// parse that blocks has none: its file is read, then it runs to the end.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { Hono } from 'hono';
import type { AppEnv } from '../../auth/types.ts';
import { decodeInTurns, parseInTurns } from '../../datasources/spreadsheet/read-csv.ts';
import { buildBook } from '../../datasources/spreadsheet/workbook.ts';
import { registerOperations } from '../../http/register.ts';
import { DATASOURCE_LIST } from '../../routes/datasources.ts';
import { HEALTH } from '../../routes/health.ts';
import { endpoint, query, registryFor, tempDir } from './helpers.ts';

const ROWS = 200_000;
const LIMITS = { maxRows: ROWS + 1000 };
const HEADER = 'id,source,destination,capacity,region,source_latitude,source_longitude,destination_latitude,destination_longitude';
const REGIONS = ['us-west', 'us-east', 'europe', 'asia'];

/** Row i of the big sheet (data rows are numbered from 0). */
const row = (i: number) => {
  const a = i % 997, b = (i * 7 + 13) % 997;
  return `c${i},r${a},r${b},${[10, 100, 400][i % 3]},${REGIONS[i % 4]},${(a % 150) - 60}.5,${(a % 340) - 170}.25,${(b % 150) - 60}.5,${(b % 340) - 170}.25`;
};

/** Whether file I/O is outstanding (a request the parse is waiting for: open, stat, read, close). */
const fileIoPending = () => process.getActiveResourcesInfo().some((r) => r.startsWith('FSReq') || r === 'FileHandle' || r === 'CloseReq');

/**
 * Runs `work` while counting the turns of the event loop taken before it
 * settles: all of them, and those with no file I/O outstanding, on each of
 * which `onTurn` runs (a request answered meanwhile).
 */
async function turnsDuring<T>(work: () => Promise<T>, onTurn: () => void = () => {}) {
  let settled = false;
  let turns = 0;
  let computing = 0;
  const tick = () => {
    if (settled) return;
    turns++;
    if (!fileIoPending()) {
      computing++;
      onTurn();
    }
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { value: await work(), turns, computing };
  } finally {
    settled = true;
  }
}

let dir: string;
let cleanup: () => Promise<void>;
before(async () => {
  ({ dir, cleanup } = await tempDir());
  const lines = [HEADER];
  for (let i = 0; i < ROWS; i++) lines.push(row(i));
  await writeFile(path.join(dir, 'big.csv'), `${lines.join('\n')}\n`);
});
after(() => cleanup());

describe('a 200,000-row sheet does not hold up other requests', () => {
  it('answers /healthz again and again while the listing parses the sheet', async () => {
    const registry = registryFor(dir, LIMITS);
    const app = new Hono<AppEnv>({ strict: false });
    registerOperations(app, [HEALTH, DATASOURCE_LIST], { problems: () => [], datasources: registry });
    let listed = false;
    const answers: Promise<number>[] = [];
    const { value: res, computing } = await turnsDuring(async () => {
      const r = await app.request('/api/v1/datasources/');
      listed = true;
      return r;
    }, () => {
      answers.push(Promise.resolve(app.request('/healthz')).then((h) => (listed ? -1 : h.status)));
    });
    const statuses = await Promise.all(answers);
    // A blocking parse gives none; the sliced one one per slice (hundreds).
    assert.ok(computing >= 50, `only ${computing} turns of the event loop while the sheet was parsed`);
    assert.ok(statuses.filter((s) => s === 200).length >= 50, `/healthz answered ${statuses.filter((s) => s === 200).length} times during the parse`);
    assert.equal(res.status, 200);
    const entry = (await res.json())[endpoint('big', 'big')];
    assert.equal(entry.available, true);
    assert.equal(entry.rowCount, ROWS);
    assert.equal(entry.recordCount, ROWS);
    assert.equal(entry.problemCount, 0);
  });

  it('a dataset run parses the sheet, then builds its records, in slices too; the records are right', async () => {
    const registry = registryFor(dir, LIMITS);
    const ep = endpoint('big', 'big');
    const first = await turnsDuring(() => registry.run(query(ep, [{ field: 'region', operator: 'equal', value: ['europe'] }])));
    assert.ok(first.computing >= 50, `only ${first.computing} turns while parsing`);
    assert.equal(first.value.records.length, ROWS / 4);
    assert.deepEqual(first.value.records[1], {
      id: 'c6', name: 'r6--r55', source: 'r6', destination: 'r55', capacity: '10', region: 'europe',
      endpoints: [{ name: 'r6', latitude: -54.5, longitude: -164.25 }, { name: 'r55', latitude: -5.5, longitude: -115.25 }],
    });
    // The sheet is cached now: an endpoint filter builds every record, in slices.
    const all = await turnsDuring(() => registry.run(query(ep, [{ field: 'endpoints.name', operator: 'not_equal', value: ['nowhere'] }])));
    assert.ok(all.computing >= 20, `only ${all.computing} turns while building ${ROWS} records`);
    assert.equal(all.value.records.length, ROWS);
    assert.equal(all.value.records[ROWS - 1].id, `c${ROWS - 1}`);
    assert.strictEqual(all.value.records[6], first.value.records[1], 'records are built once and shared');
  });

  it('checks the rows of an edge tab and of a Nodes tab in slices (no file involved)', async () => {
    const nodes = [['name', 'latitude', 'longitude'], ...Array.from({ length: ROWS }, (_, i) => [`n${i}`, String((i % 180) - 90), String((i % 360) - 180)])];
    const edges = [['source', 'destination'], ...Array.from({ length: ROWS }, (_, i) => [`n${i}`, `n${(i * 7) % ROWS}`])];
    const { value: book, computing } = await turnsDuring(() => buildBook([{ name: 'Circuits', rows: edges }, { name: 'Nodes', rows: nodes }], 'x.xlsx'));
    assert.ok(computing >= 50, `only ${computing} turns while checking ${2 * ROWS} rows`);
    const sheet = book.tabs.get('Circuits')!;
    assert.equal(sheet.recordCount, ROWS);
    assert.equal(sheet.problemCount, 0);
    assert.deepEqual(sheet.record(ROWS - 1).endpoints, [
      { name: `n${ROWS - 1}`, latitude: ((ROWS - 1) % 180) - 90, longitude: ((ROWS - 1) % 360) - 180 },
      { name: `n${((ROWS - 1) * 7) % ROWS}`, latitude: (((ROWS - 1) * 7) % ROWS % 180) - 90, longitude: (((ROWS - 1) * 7) % ROWS % 360) - 180 },
    ]);
  });
});

describe('sliced reading gives what a one-call read gives', () => {
  const OPTIONS = { bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: false } as const;
  const texts = [
    '',
    '\ufeffsource,destination\r\na,b\r\n',
    'a,"b ""quoted"", with comma",c\n"multi\nline\r\ncell",x\n',
    'x"y,"z"w,"""\n\n\n"tail',
    'café,naïve,日本語,😀 emoji\r\n"é""😀",ü\r',
    'a;b;c\r\n"1;2";3\r\n\r\n;;\r\n',
    '"unterminated,\nstill open',
    'lone\rcarriage\rreturns\r',
  ];
  for (const [n, text] of texts.entries()) {
    it(`CSV text ${n}: the same records (or the same error) in slices of 1 to 9 bytes`, async () => {
      const bytes = Buffer.from(text);
      const delimiter = n === 5 ? ';' : ',';
      let whole: unknown;
      try {
        whole = parse(bytes, { ...OPTIONS, delimiter });
      } catch (e) {
        whole = { error: (e as Error).message };
      }
      for (let size = 1; size <= 9; size++) {
        let sliced: unknown;
        try {
          sliced = await parseInTurns(bytes, { ...OPTIONS, delimiter }, size);
        } catch (e) {
          sliced = { error: (e as Error).message };
        }
        assert.deepEqual(sliced, whole, `slices of ${size} bytes`);
      }
    });
  }

  it('re-encodes UTF-16 and Windows-1252 as UTF-8 in slices of 1 to 5 bytes', async () => {
    const text = 'source,destination\r\nZürich,😀 Tōkyō\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le);
    be.swap16();
    // Windows-1252 as Excel writes it: 0x80..0x9f are €, curly quotes, œ and so on. (Node 20's one-call
    // decode of windows-1252 takes them for Latin-1 control characters, nodejs/node#60888; the streaming
    // decoder used for slices maps them right.)
    const cp1252 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2c, 0x80, 0x93, 0x9c, 0x94, 0x0a]);
    for (const [encoding, bytes, expected] of [
      ['utf-16le', le, text], ['utf-16be', be, text], ['windows-1252', cp1252, 'café,€“œ”\n'],
    ] as const) {
      for (let size = 1; size <= 5; size++) {
        assert.equal((await decodeInTurns(bytes, encoding, size)).toString(), expected, `${encoding}, slices of ${size}`);
      }
      assert.equal((await decodeInTurns(bytes, encoding)).toString(), expected, `${encoding}, one slice`);
    }
  });

  it('still refuses a row over maxColumns or a file over maxRows far past the first slices, and reads long lines', async () => {
    const { dir, cleanup } = await tempDir();
    after(cleanup);
    const lines = [HEADER];
    for (let i = 0; i < 20_000; i++) lines.push(row(i));
    const wide = `${Array.from({ length: 30 }, (_, i) => `x${i}`).join(',')}`;
    await writeFile(path.join(dir, 'wide-late.csv'), `${[...lines, wide].join('\n')}\n`);
    await writeFile(path.join(dir, 'wide-late-quoted.csv'), `${[...lines, `"q",${wide}`].join('\n')}\n`);
    // Lines of several slices each: one fine, one with its extra fields at its far end.
    await writeFile(path.join(dir, 'long-line.csv'), `source,destination,note\na,b,${'x'.repeat(300_000)}\n`);
    await writeFile(path.join(dir, 'long-wide.csv'), `source,destination\n${'x'.repeat(300_000)}${','.repeat(30)}\n`);
    const registry = registryFor(dir, { ...LIMITS, maxColumns: 20 });
    const list = await registry.list();
    for (const id of ['wide-late', 'wide-late-quoted']) {
      assert.match(list[endpoint(id, id)].error as string, new RegExp(`${id}\\.csv: row 20002 has more than 20 columns`));
    }
    assert.match(list[endpoint('long-wide', 'long-wide')].error as string, /long-wide\.csv: row 2 has more than 20 columns/);
    const [record] = (await registry.run(query(endpoint('long-line', 'long-line')))).records;
    assert.equal(record.note, 'x'.repeat(300_000));
    const short = await registryFor(dir, { maxRows: 15_000 }).list();
    assert.match(short[endpoint('wide-late', 'wide-late')].error as string, /more than 15000 rows \(limit datasources\.spreadsheet\.maxRows\)/);
  });
});
