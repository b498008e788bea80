// The service's Prometheus metrics (prom-client), one registry per app so
// tests and replicas in one process never share counts. Names follow
// Prometheus' conventions: the HTTP pair by route template (counted through
// series handles, series.ts: every request moves them), and the service's
// own under `mts_`. Served by routes/metrics.ts.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from './series.ts';

/** Request and render durations: from a cached answer (well under a millisecond) to a large picture. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Store writes: a durable file write (fsync) or a database round trip. */
const WRITE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createMetrics(options: { process?: boolean } = {}) {
  const registry = new Registry();
  const registers = [registry];
  // The process's own (CPU, memory, event loop lag, open files): for the service, not for every app a test builds.
  if (options.process) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new SeriesCounter({ name: 'http_requests_total', help: 'HTTP requests answered, by method, route template and status', labelNames: ['method', 'route', 'status'] as const, registers }),
    httpDuration: new SeriesHistogram({ name: 'http_request_duration_seconds', help: 'Time from a request to its answer (headers; a streamed body may go on), by method and route template', labelNames: ['method', 'route'] as const, buckets: DURATION_BUCKETS, registers }),
    renders: new Histogram({ name: 'mts_render_duration_seconds', help: 'Outputs rendered (a request the output cache could not answer), by kind: json, svg or png (a PNG includes its SVG when that was not cached)', labelNames: ['kind'] as const, buckets: DURATION_BUCKETS, registers }),
    cacheAnswers: new Counter({ name: 'mts_output_cache_requests_total', help: 'Outputs asked of the output cache, by kind and result: hit (answered from memory) or miss (rendered)', labelNames: ['kind', 'result'] as const, registers }),
    cacheBytes: new Counter({ name: 'mts_output_cache_bytes_total', help: 'Bytes of outputs, by kind and result: hit (answered from the cache) or miss (rendered into it)', labelNames: ['kind', 'result'] as const, registers }),
    storeWrites: new Histogram({ name: 'mts_store_write_duration_seconds', help: 'Time a store write takes until durable, by operation', labelNames: ['operation'] as const, buckets: WRITE_BUCKETS, registers }),
    renderQueue: new Gauge({ name: 'mts_render_queue_length', help: 'Jobs (pictures, PNGs, big diffs) waiting for a render thread', registers }),
    renderRejections: new Counter({ name: 'mts_render_rejections_total', help: 'Render jobs refused, by reason: busy (503, the queue full or the wait too long) or budget (422, over the time or memory a render may use)', labelNames: ['reason'] as const, registers }),
    trafficQueries: new Counter({ name: 'mts_traffic_source_queries_total', help: 'Reads of a live-traffic source (one per map version and step, shared by its renders), by source', labelNames: ['source'] as const, registers }),
    trafficErrors: new Counter({ name: 'mts_traffic_source_errors_total', help: 'Reads of a live-traffic source that failed, by source and reason: timeout, network, http, answer (not an instant vector) or other', labelNames: ['source', 'reason'] as const, registers }),
    failedLogins: new Counter({ name: 'mts_failed_logins_total', help: 'Logins refused: a wrong username or password, or throttled', labelNames: ['reason'] as const, registers }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
