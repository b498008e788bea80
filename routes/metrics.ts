// GET /metrics: the registry in Prometheus' text format. With `metrics.token`
// set, only a request with `Authorization: Bearer <that token>` is answered
// (compared in constant time); the others get the API's 401. With
// `metrics.enabled: false` it is a 404, as a path with no route.
import { timingSafeEqual } from 'node:crypto';
import { requestHeader } from '../auth/request-header.ts';
import type { Settings } from '../config/settings.ts';
import { ServiceError } from '../errors.ts';
import { declarer, type Operation } from '../http/operation.ts';
import { notFoundHandler } from '../http/on-error.ts';
import type { Metrics } from '../metrics/registry.ts';

type Deps = { settings: Settings; metrics: Metrics };
const route = declarer<Deps>();

export const METRICS: Operation<Deps> = route({
  method: 'get', path: '/metrics', tag: 'service', summary: 'Metrics in Prometheus\' text format', scope: null,
  description: 'With `metrics.token` set, only `Authorization: Bearer <that token>` is answered (401 `unauthorized` otherwise); a 404 with `metrics.enabled: false`.',
  effects: ['metricsToken'],
  answers: { 200: { description: 'Prometheus text exposition format', mediaType: 'text/plain' } },
  handle: ({ settings, metrics }) => {
    const { enabled, token } = settings.metrics;
    const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
    return async (c) => {
      if (!enabled) return notFoundHandler(c);
      if (expected) {
        const given = Buffer.from(requestHeader(c, 'authorization') ?? '');
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          throw new ServiceError('unauthorized', 'the metrics need Authorization: Bearer <metrics.token>', {
            headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
          });
        }
      }
      return c.body(await metrics.registry.metrics(), 200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
    };
  },
});
