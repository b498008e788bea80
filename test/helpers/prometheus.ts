// A real Prometheus for the traffic tests: its own temp folder, listening on
// 127.0.0.1 at a free port, its TSDB backfilled from OpenMetrics text with
// promtool (exact rates at known instants), stopped and removed at the end.
// A counting proxy in front of it says how many queries a render sent and
// can fail or hang on demand. Without the `prometheus` binary, and under
// `npm run test:fast`, the tests skip with one line; in CI (.ci/run installs
// Debian's prometheus) its absence fails them.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { skipWithout } from './components.ts';

const run = promisify(execFile);
const onPath = (bin: string) => (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && existsSync(path.join(dir, bin)));

/** Why the Prometheus tests cannot run here (false when they can). */
export const noPrometheus: string | false = skipWithout('Prometheus', onPath('prometheus') && onPath('promtool'),
  'prometheus and promtool on PATH: apt-get install prometheus');
if (noPrometheus) console.log(`# ${noPrometheus}`);

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

export interface Series {
  metric: string;
  labels: Record<string, string>;
  /** [unix seconds, value] in time order. */
  samples: [number, number][];
}

/** OpenMetrics text of the series, one family at a time (TYPE unknown: the counters' names lack _total). */
export function openMetrics(series: readonly Series[]): string {
  const families = new Map<string, Series[]>();
  for (const s of series) families.set(s.metric, [...(families.get(s.metric) ?? []), s]);
  const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  const lines: string[] = [];
  for (const [metric, list] of families) {
    lines.push(`# TYPE ${metric} unknown`);
    for (const s of list) {
      const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${esc(v)}"`).join(',');
      for (const [t, v] of s.samples) lines.push(`${metric}{${labels}} ${v} ${t}`);
    }
  }
  lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

export interface Prometheus {
  url: string;
  stop(): Promise<void>;
}

/** Starts Prometheus over a TSDB backfilled with `series`, scraping `target` (host:port, job snmp) every second if given. */
export async function startPrometheus(series: readonly Series[], target?: string): Promise<Prometheus> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-prom-'));
  const data = path.join(dir, 'data');
  if (series.length > 0) {
    writeFileSync(path.join(dir, 'input.om'), openMetrics(series));
    await run('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', path.join(dir, 'input.om'), data]);
  }
  // The exporter's own instance labels win (honor_labels), as snmp_exporter's relabelled targets give router names.
  const scrape = target ? `\n  - job_name: snmp\n    scrape_interval: 1s\n    scrape_timeout: 1s\n    honor_labels: true\n    static_configs:\n      - targets: ['${target}']\n` : ' []\n';
  writeFileSync(path.join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 15s\nscrape_configs:${scrape}`);
  const port = await freePort();
  const child: ChildProcess = spawn('prometheus', [
    `--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${data}`, `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=30d', '--log.level=error',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b) => { stderr += String(b); });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`prometheus exited: ${stderr}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (i > 300) throw new Error(`prometheus did not become ready: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface CountingProxy {
  url: string;
  /** Query requests seen since the last reset. */
  queries: number;
  /** The Authorization headers seen. */
  authorizations: string[];
  mode: 'pass' | 'fail' | 'hang';
  close(): Promise<void>;
}

/** A counting proxy in front of `target` on 127.0.0.1. */
export async function startProxy(target: string): Promise<CountingProxy> {
  const held: http.ServerResponse[] = [];
  const proxy: CountingProxy = {
    url: '', queries: 0, authorizations: [], mode: 'pass',
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer(async (req, res) => {
    if (req.url?.startsWith('/api/v1/query')) proxy.queries++;
    if (req.headers.authorization) proxy.authorizations.push(req.headers.authorization);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (proxy.mode === 'hang') { held.push(res); return; }
    if (proxy.mode === 'fail') {
      res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"status":"error","errorType":"unavailable","error":"overloaded"}');
      return;
    }
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers: { 'content-type': req.headers['content-type'] ?? '' }, body: chunks.length ? Buffer.concat(chunks) : undefined });
    res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
