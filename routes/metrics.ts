// GET /metrics: the registry in Prometheus' text format. With `metrics.token`
// set, only a request with `Authorization: Bearer <that token>` is answered
// (compared in constant time); the others get the API's 401.
import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { requestHeader } from '../auth/request-header.ts';
import { ServiceError } from '../errors.ts';
import type { Metrics } from '../metrics/registry.ts';

export function metricsRoutes(metrics: Metrics, token: string | undefined) {
  const app = new Hono({ strict: false });
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  app.get('/metrics', async (c) => {
    if (expected) {
      const given = Buffer.from(requestHeader(c, 'authorization') ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new ServiceError('unauthorized', 'the metrics need Authorization: Bearer <metrics.token>', {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        });
      }
    }
    return c.body(await metrics.registry.metrics(), 200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
  });
  return app;
}
