// Big dataset diffs and the main thread: two versions of a 199,000-record
// dataset (~70 MB of stored results each, the size of the finding), diffed
// through GET /api/v1/dataset/id/<id>/diff/ of a service over a data folder
// (the render pool parses the stored bytes and diffs there), beside what the
// previous path did on the main thread in the same run (parse both results
// blobs, clone their records to the thread, parse the diff's JSON and
// serialize the answer again). Likewise the summary an update stores of such
// a change: through the pool vs worked out on the main thread. Last, a whole
// update and refresh of a dataset over a 199,000-row sheet, beside the sheet
// read and query alone (what remains on the main thread).
// Main-thread CPU from Linux's schedstat of the main thread alone (the render
// threads' CPU is not in it), and the event loop's longest stall meanwhile.
// Runnable alone: `node --import tsx bench/diff-big.ts`.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseSettings } from '../config/settings.ts';
import { createDatasources } from '../datasources/index.ts';
import type { EdgeRecord } from '../datasources/types.ts';
import { diffDataset } from '../history/diff-dataset.ts';
import { RenderPool } from '../pool/pool.ts';
import { threadCpuMs } from '../pool/priority.ts';
import { describeChange } from '../resources/changes.ts';
import type { Entry } from '../store/types.ts';
import { startService } from './service.ts';

const SELF = fileURLToPath(import.meta.url);
const RECORDS = 199_000;
const NODES = 40_000;

/** Version 1 or 2 of the records: 1% of circuits with a new capacity, 100 only in each version. */
function records(v: 1 | 2): EdgeRecord[] {
  const end = (i: number) => ({ name: `router-${i}`, latitude: 25 + (i % 350) / 10, longitude: -125 + (i % 1500) / 10, site: `site-${i >> 1}`, vendor: i % 3 ? 'x' : 'y' });
  const out: EdgeRecord[] = [];
  for (let k = 0; k < RECORDS; k++) {
    if ((v === 1 && k % 1990 === 1) || (v === 2 && k % 1990 === 2)) continue;
    const [a, b] = [k % NODES, (k * 7 + 1) % NODES];
    out.push({ id: String(k), name: `circuit-${k}`, source: `router-${a}`, destination: `router-${b}`,
      capacity: v === 2 && k % 100 === 0 ? 400 : 100, operator: k % 4 ? 'ours' : 'leased', endpoints: [end(a), end(b)] });
  }
  return out;
}

const HEADER = 'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude';
/** A sheet of RECORDS circuits; `capacity` of circuit i. */
const sheet = (capacity: (i: number) => number) => `${[HEADER, ...Array.from({ length: RECORDS }, (_, i) =>
  `c${i},S${i}-D${i},S${i % NODES},D${(i * 7 + 1) % NODES},${capacity(i)},${(i % 80) - 40},${(i % 300) - 150},${(i % 70) - 35},${(i % 200) - 100}`)].join('\n')}\n`;

/** Main-thread CPU (ms) and the event loop's longest stall (ms) while `work` runs. */
async function measured<T>(work: () => Promise<T>): Promise<{ cpu: number; stall: number; value: T }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const before = threadCpuMs(process.pid) as number;
  const value = await work();
  const cpu = (threadCpuMs(process.pid) as number) - before;
  delay.disable();
  return { cpu, stall: delay.max / 1e6, value };
}

export async function benchDiffBig(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-diff-'));
  const { app, store, headers } = await startService(dir, { output: { renderTimeoutSeconds: 300, renderMemoryMB: 4096 } });
  const pool = new RenderPool({ threads: 1, timeoutSeconds: 300, memoryMb: 4096, maxQueued: 4 });
  try {
    const query = { endpoint: 'spreadsheet?sheet_id=none&sheet_name=none', node_deduplication_field: null, node_group_criteria: null, node_group_layout: null, filters: [] };
    const created = await app.request('/api/v1/dataset/', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'big', query }) });
    const id = ((await created.json()) as { datasetId: string }).datasetId;
    const keys = [await store.put({ records: records(1), problems: [] }), await store.put({ records: records(2), problems: [] })];
    for (const resultsKey of keys) await store.append('datasets', id, (head) => ({ ...(head as Entry), version: (head as Entry).version + 1, resultsKey, change: 'bench' }));
    const [v2, v3] = [await store.read('datasets', id, 2) as Entry, await store.read('datasets', id, 3) as Entry];
    const mb = (await readFile(path.join(dir, 'results', `${keys[0]}.json`))).length / 1e6;

    const route = () => measured(async () => (await app.request(`/api/v1/dataset/id/${id}/diff/?from=2&to=3`, { headers })).text());
    await route(); // a first diff starts the render thread
    const now = await route();
    const old = await measured(async () => {
      const [a, b] = await Promise.all(keys.map(async (k) => JSON.parse(await readFile(path.join(dir, 'results', `${k}.json`), 'utf8')) as { records: EdgeRecord[] }));
      structuredClone({ before: { name: 'big', query, records: a.records }, after: { name: 'big', query, records: b.records } });
      return JSON.stringify({ datasetId: id, from: 2, to: 3, ...JSON.parse(now.value) });
    });
    const lines: string[] = [];
    lines.push(`dataset diff of ${RECORDS} records a version (~${mb.toFixed(0)} MB of stored results each), main-thread CPU: ` +
      `${now.cpu.toFixed(0)} ms on the pool path vs ${old.cpu.toFixed(0)} ms the previous path's main-thread work = ${(now.cpu / old.cpu).toFixed(3)}x ` +
      `(target under 200 ms); longest event-loop stall ${now.stall.toFixed(0)} ms vs ${old.stall.toFixed(0)} ms`);

    const offload = (job: Parameters<RenderPool['run']>[0]) => pool.run(job, { key: 'user:bench', signedIn: true });
    const summaryPool = await measured(() => describeChange('datasets', store, v2, v3, offload));
    const summaryHere = await measured(() => describeChange('datasets', store, v2, v3));
    if (summaryPool.value !== summaryHere.value) throw new Error(`summaries differ: ${summaryPool.value} / ${summaryHere.value}`);
    lines.push(`summary of that change for its version ("${summaryPool.value}"), main-thread CPU: ${summaryPool.cpu.toFixed(0)} ms through the pool ` +
      `vs ${summaryHere.cpu.toFixed(0)} ms on the main thread = ${(summaryPool.cpu / summaryHere.cpu).toFixed(3)}x; longest stall ${summaryPool.stall.toFixed(0)} ms vs ${summaryHere.stall.toFixed(0)} ms`);
    // Checked against the diff of the records as stored (canonical JSON: their fields sorted).
    const stored = await Promise.all(keys.map(async (k) => ((await store.fetch(k)) as unknown as { records: EdgeRecord[] }).records));
    const check = diffDataset({ name: 'big', query, records: stored[0] }, { name: 'big', query, records: stored[1] });
    if (now.value !== JSON.stringify({ datasetId: id, from: 2, to: 3, ...check })) throw new Error('the pool path answered another diff');
    lines.push(...await updateLines(dir, app, headers));
    return lines;
  } finally {
    await pool.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * An update (PUT, the query run again) of a dataset over a 199,000-row sheet whose results changed, and a refresh:
 * the main thread's CPU, beside the sheet read and query alone (a registry of its own, so nothing cached).
 */
async function updateLines(dir: string, app: Awaited<ReturnType<typeof startService>>['app'], headers: Record<string, string>): Promise<string[]> {
  const sheets = path.join(dir, 'sheets');
  await mkdir(sheets, { recursive: true });
  const file = path.join(sheets, 'big.csv');
  await writeFile(file, sheet(() => 10));
  const query = { endpoint: 'spreadsheet?sheet_id=big&sheet_name=big', node_deduplication_field: null, node_group_criteria: null, node_group_layout: null, filters: [] };
  const json = { ...headers, 'content-type': 'application/json' };
  const revision = JSON.stringify({ name: 'sheet', query });
  const id = ((await (await app.request('/api/v1/dataset/', { method: 'POST', headers: json, body: revision })).json()) as { datasetId: string }).datasetId;
  const put = () => measured(async () => (await app.request(`/api/v1/dataset/id/${id}/`, { method: 'PUT', headers: json, body: revision })).status);
  await put();
  await writeFile(file, sheet((i) => (i % 100 === 0 ? 400 : 10)));
  const update = await put();
  await writeFile(file, sheet((i) => (i % 50 === 0 ? 400 : 10)));
  const refresh = await measured(async () => (await app.request(`/api/v1/dataset/id/${id}/refresh/`, { method: 'POST', headers })).status);
  if (update.value !== 200 || refresh.value !== 200) throw new Error(`update ${update.value}, refresh ${refresh.value}`);
  const read = await measured(() => createDatasources(parseSettings({ data: { dir } }, {}, dir)).run(query as never));
  const get = await measured(async () => (await app.request(`/api/v1/dataset/id/${id}/`, { headers })).text());
  return [`update of a dataset over a ${RECORDS}-row sheet, results changed, main-thread CPU: ${update.cpu.toFixed(0)} ms ` +
    `(longest stall ${update.stall.toFixed(0)} ms); refresh ${refresh.cpu.toFixed(0)} ms (stall ${refresh.stall.toFixed(0)} ms); ` +
    `vs the sheet read and query alone ${read.cpu.toFixed(0)} ms = ${(update.cpu / read.cpu).toFixed(2)}x and ${(refresh.cpu / read.cpu).toFixed(2)}x; ` +
    `both answer the version with its results inline, as a GET does: ${get.cpu.toFixed(0)} ms (stall ${get.stall.toFixed(0)} ms)`];
}

if (process.argv[1] === SELF) {
  for (const line of await benchDiffBig()) console.log(line);
}
