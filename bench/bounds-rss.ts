// The RSS figure of bench/bounds.ts (`npm run bench -- bounds-rss` runs it
// alone): the service's resident memory fresh, at the peak of a 2-minute mixed
// load and a minute after it. The service runs in a process of its own,
// started by `npm start` (the node flags and environment of package.json's
// start script, as in production) on a copy of the demo data with default
// settings; the load clients (autocannon) run in this process. RSS is the
// service process's VmRSS read from /proc (Linux), sampled every 250 ms for the
// peak. Fresh is read once the service listens and has issued a token, with
// nothing drawn. Beside the fresh and after figures: the anonymous memory, the
// V8 heap (the service's /metrics), glibc's main heap ([heap] in
// /proc/<pid>/smaps) and the thread count, so a figure off its target says
// what held the memory; and the full collections the service logged
// (pool/memory.ts) with their pauses.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { copyDemoData } from '../test/helpers/demo-data.ts';
import { hostileMap, widthsOf } from './hostile-map.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const LOAD_S = Number(process.env.BENCH_BOUNDS_LOAD_SECONDS ?? 120);
const REST_S = Number(process.env.BENCH_BOUNDS_REST_SECONDS ?? 60);
const PASSWORD = 'benchmark password 1';
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** `npm start` in its own process group, on `dir`, at a free port of 127.0.0.1: its origin and the service's pid (npm's child). */
async function startService(dir: string, settingsFile: string) {
  const proc = spawn('npm', ['start', '--silent'], {
    cwd: REPO, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MTS_DATA_DIR: dir, MTS_CONFIG: settingsFile, PORT: '0', HOST: '127.0.0.1', MTS_ADMIN_PASSWORD: PASSWORD },
  });
  let head = '';
  /** The pauses (ms) of the full collections the service logged (pool/memory.ts). */
  const collections: number[] = [];
  const port = await new Promise<string>((resolve, reject) => {
    // Every line is read (an unread pipe would stop the service's log): the first ones for the port, then the collections.
    proc.stdout!.on('data', (d: Buffer) => {
      for (const m of d.toString().matchAll(/one full garbage collection took ([\d.]+) ms/g)) collections.push(Number(m[1]));
      if (head.length > 10_000) return;
      head += d;
      const m = /bound to 127\.0\.0\.1:(\d+)\)/.exec(head);
      if (m) resolve(m[1]);
    });
    proc.stderr!.on('data', (d) => (head += d));
    proc.once('exit', (code) => reject(new Error(`npm start exited (${code}) before listening:\n${head}`)));
  });
  return { proc, origin: `http://127.0.0.1:${port}`, pid: await serviceProcess(proc.pid!), collections };
}

/** The node process `npm start` runs: npm's child (the start script execs node in place of its shell). */
async function serviceProcess(npmPid: number): Promise<number> {
  const children = (await readFile(`/proc/${npmPid}/task/${npmPid}/children`, 'utf8')).trim().split(/\s+/).map(Number);
  for (const pid of children) {
    if ((await readFile(`/proc/${pid}/cmdline`, 'utf8')).includes('server.ts')) return pid;
  }
  throw new Error(`no server.ts process under npm (${npmPid}): children ${children.join(', ')}`);
}

async function stop(proc: ChildProcess) {
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  process.kill(-proc.pid!, 'SIGTERM');
  await exited;
}

/** VmRSS, its anonymous part and the thread count of `pid`, from /proc. */
async function status(pid: number) {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { rss: field('VmRSS') * 1024, anonymous: field('RssAnon') * 1024, threads: field('Threads') };
}

/** What holds the memory of `pid`: V8's heap (the service's /metrics), glibc's main heap, threads. */
async function composition(pid: number, origin: string) {
  const metrics = await (await fetch(`${origin}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1] ?? Number.NaN);
  const smaps = await readFile(`/proc/${pid}/smaps`, 'utf8');
  const brk = /\[heap\]\n(?:.*\n)*?Rss:\s+(\d+) kB/.exec(smaps);
  const { rss, anonymous, threads } = await status(pid);
  return `${mb(rss)} (anonymous ${mb(anonymous)}: V8 heap ${mb(metric('nodejs_heap_size_total_bytes'))} (${mb(metric('nodejs_heap_size_used_bytes'))} used), external ${mb(metric('nodejs_external_memory_bytes'))}, ` +
    `glibc main heap ${mb(Number(brk?.[1] ?? 0) * 1024)}; ${threads} threads)`;
}

export async function benchBoundsRss(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-rss-'));
  const settingsFile = path.join(dir, 'settings.yml'); // defaults, whatever settings.yml the clone has
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    await copyDemoData(dir);
    await writeFile(settingsFile, '');
    service = await startService(dir, settingsFile);
    const { origin, pid } = service;
    const token = await fetch(`${origin}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: 'admin', password: PASSWORD }) });
    const headers = { authorization: `Bearer ${((await token.json()) as { access_token: string }).access_token}` };
    const fresh = await composition(pid, origin);
    const rssFresh = (await status(pid)).rss;

    const request = (p: string, init?: RequestInit) => fetch(`${origin}${p}`, init);
    const mapId = ((await (await request('/api/v1/public/maps/')).json()) as { mapId: string }[])[0].mapId;
    const hostileId = await hostileMap(request, headers, mapId);
    const widths = widthsOf();
    const mixed = [
      ...widths.flatMap((w) => [`/api/v1/public/output/map/${hostileId}/svg/?width=${w}`, `/api/v1/public/output/map/${hostileId}/png/?width=${w}`]),
      ...widths.map((w) => `/api/v1/public/output/map/${mapId}/png/?width=${w * 2}`), '/api/v1/public/maps/', '/healthz',
    ];
    let peak = rssFresh;
    const sampler = setInterval(() => void status(pid).then((s) => { peak = Math.max(peak, s.rss); }, () => undefined), 250);
    await autocannon({ url: origin, connections: 8, duration: LOAD_S, timeout: 120, workers: 1, requests: mixed.map((p) => ({ method: 'GET', path: p })) });
    clearInterval(sampler);
    await new Promise((r) => setTimeout(r, REST_S * 1000));
    const after = await composition(pid, origin);
    const rssAfter = (await status(pid)).rss;
    return [
      `RSS of the service's process: fresh ${mb(rssFresh)}, peak during ${LOAD_S} s of mixed load ${mb(peak)}, ${REST_S} s after it ${mb(rssAfter)} = ` +
        `${(rssAfter / rssFresh).toFixed(2)}x fresh (target <= 1.5x)`,
      `  fresh ${fresh}; ${REST_S} s after ${after}; full collections the service ran: ` +
        `${service.collections.length} (${service.collections.map((ms) => `${ms} ms`).join(', ') || 'none'})`,
    ];
  } finally {
    if (service) await stop(service.proc);
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await benchBoundsRss()) console.log(line);
}
