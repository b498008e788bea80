// metrics/series.ts: counters and histograms counted through series handles
// are written by prom-client's registry exactly as its own Counter and
// Histogram given the same counts: the same text format and the same JSON,
// label for label and value for value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from '../../metrics/series.ts';

const BUCKETS = [0.001, 0.01, 0.1, 1];
// Label values as requests bring them: repeated, interleaved, and some that need escaping in the text format.
const CALLS: Array<[string, string, number, number]> = [
  ['GET', '/api/v1/map/id/:mapId', 200, 0.0004],
  ['GET', '/api/v1/map/id/:mapId', 200, 0.001], // on a bound: within it
  ['PUT', '/api/v1/map/id/:mapId', 412, 0.05],
  ['GET', 'unmatched', 404, 3], // beyond the last bound: +Inf only
  ['GET', '/api/v1/map/id/:mapId', 304, 0],
  ['GET', 'a "quoted" \\ route\nwith a newline', 500, 0.1],
  ['PUT', '/api/v1/map/id/:mapId', 200, 1.25],
  ['GET', '/api/v1/map/id/:mapId', 200, 0.0123],
];

function pair() {
  const stock = new Registry();
  const ours = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const durationLabels = ['method', 'route'] as const;
  const help = 'requests';
  return {
    stock,
    ours,
    counters: [new Counter({ name: 'reqs_total', help, labelNames, registers: [stock] }), new SeriesCounter({ name: 'reqs_total', help, labelNames, registers: [ours] })] as const,
    histograms: [
      new Histogram({ name: 'req_seconds', help, labelNames: durationLabels, buckets: BUCKETS, registers: [stock] }),
      new SeriesHistogram({ name: 'req_seconds', help, labelNames: durationLabels, buckets: BUCKETS, registers: [ours] }),
    ] as const,
  };
}

describe('SeriesCounter and SeriesHistogram', () => {
  it('write the same text and JSON as prom-client\'s Counter and Histogram given the same counts', async () => {
    const p = pair();
    for (const [method, route, status, seconds] of CALLS) {
      p.counters[0].inc({ method, route, status });
      p.counters[1].series(method, route, status).inc();
      p.histograms[0].observe({ method, route }, seconds);
      p.histograms[1].series(method, route).observe(seconds);
    }
    p.counters[0].inc({ method: 'GET', route: 'unmatched', status: 404 }, 5);
    p.counters[1].series('GET', 'unmatched', 404).inc(5);
    const text = await p.ours.metrics();
    assert.equal(text, await p.stock.metrics());
    assert.match(text, /^reqs_total\{method="GET",route="\/api\/v1\/map\/id\/:mapId",status="200"\} 3$/m);
    assert.match(text, /^req_seconds_bucket\{le="0\.001",method="GET",route="\/api\/v1\/map\/id\/:mapId"\} 3$/m);
    assert.deepEqual(await p.ours.getMetricsAsJSON(), await p.stock.getMetricsAsJSON());
  });

  it('write no series before the first count, and none after a reset', async () => {
    const p = pair();
    assert.equal(await p.ours.metrics(), await p.stock.metrics());
    p.counters[1].series('GET', '/x', 200).inc();
    p.histograms[1].series('GET', '/x').observe(0.5);
    p.ours.resetMetrics();
    assert.equal(await p.ours.metrics(), await p.stock.metrics());
  });

  it('refuse what prom-client refuses: a count going down, a value that is not a number, a label missing', () => {
    const p = pair();
    assert.throws(() => p.counters[1].series('GET', '/x', 200).inc(-1));
    assert.throws(() => p.histograms[1].series('GET', '/x').observe(Number.NaN));
    assert.throws(() => p.histograms[1].series('GET'));
  });
});
