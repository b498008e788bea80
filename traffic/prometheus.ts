// A metrics source of kind `prometheus`: any server of the Prometheus HTTP
// API (Prometheus, Thanos, Mimir, VictoriaMetrics). Each chunk of the query
// plan (promql.ts) is one POST to /api/v1/query (a form body: a plan over
// thousands of ports does not fit in a URL), all within the source's timeout.
// Credentials are read from their files once, at start, and go only into
// the Authorization header: never into a message, an answer or a log.
import { chunkQuery, chunks, collect, type MetricNames } from './promql.ts';
import type { InterfaceRef, ReadRequest, ReadResult, Reading, TrafficSource } from './types.ts';

export interface PrometheusOptions {
  name: string;
  url: string;
  /** The Authorization header value, built from the credential files. */
  authorization?: string;
  job?: string;
  names: MetricNames;
  windowSeconds: number;
  stepSeconds: number;
  timeoutMs: number;
}

/**
 * Why a source could not be read: a short sentence naming the source, safe to show and log,
 * and a one-word reason for the metrics (timeout, network, http, answer).
 */
class SourceFailure extends Error {
  constructor(message: string, readonly reason: 'timeout' | 'network' | 'http' | 'answer') {
    super(message);
    this.name = 'SourceFailure';
  }
}

/** The URL as shown: no user or password a URL may carry, no query. */
function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

export function prometheusSource(o: PrometheusOptions): TrafficSource {
  const base = o.url.replace(/\/+$/, '');
  const where = shownUrl(o.url);
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
  if (o.authorization) headers.Authorization = o.authorization;

  /** One instant query; rejects with a SourceFailure. */
  const query = async (expr: string, at: number, signal: AbortSignal) => {
    const body = new URLSearchParams({ query: expr, time: String(at), timeout: `${Math.max(1, Math.floor(o.timeoutMs / 1000))}s` });
    let res: Response;
    try {
      res = await fetch(`${base}/api/v1/query`, { method: 'POST', headers, body, signal });
    } catch (e) {
      const timedOut = signal.aborted;
      throw timedOut ? new SourceFailure(`source ${o.name} did not answer within ${o.timeoutMs / 1000} s (${where})`, 'timeout')
        : new SourceFailure(`source ${o.name} cannot be reached at ${where}: ${(e as Error & { cause?: { code?: string } }).cause?.code ?? (e as Error).message}`, 'network');
    }
    const text = await res.text().catch(() => '');
    let parsed: { status?: string; error?: string; data?: { resultType?: string; result?: unknown } } = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      // answered below by its status
    }
    if (!res.ok || parsed.status !== 'success') {
      const why = typeof parsed.error === 'string' ? parsed.error.slice(0, 200) : `HTTP ${res.status}`;
      throw new SourceFailure(`source ${o.name} (${where}) answered ${res.status}: ${why}`, 'http');
    }
    if (parsed.data?.resultType !== 'vector' || !Array.isArray(parsed.data.result)) throw new SourceFailure(`source ${o.name} (${where}) answered something other than an instant vector`, 'answer');
    return parsed.data.result as { metric: Record<string, string>; value: [number, string] }[];
  };

  return {
    name: o.name,
    kind: 'prometheus',
    stepSeconds: o.stepSeconds,
    windowSeconds: o.windowSeconds,
    timeoutMs: o.timeoutMs,
    async read(interfaces: readonly InterfaceRef[], request: ReadRequest): Promise<ReadResult> {
      const readings = new Map<string, Reading>();
      const plan = chunks(interfaces).map((chunk) => chunkQuery(chunk, o, request));
      // One timeout for the whole plan: a picture never waits longer than the source's timeout.
      const signal = AbortSignal.timeout(o.timeoutMs);
      const answers = await Promise.all(plan.map((expr) => query(expr, request.at, signal)));
      for (const result of answers) collect(result, o.names, readings);
      return { readings, requests: plan.length };
    },
    describe: () => ({ url: where, job: o.job ?? null, window: `${o.windowSeconds}s`, step: `${o.stepSeconds}s`, timeout: `${o.timeoutMs / 1000}s`, authenticated: o.authorization !== undefined }),
    async health() {
      try {
        await query('vector(1)', Math.floor(Date.now() / 1000), AbortSignal.timeout(o.timeoutMs));
        return { status: 'ok' };
      } catch (e) {
        return { status: 'failing', detail: (e as Error).message };
      }
    },
  };
}
