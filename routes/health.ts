// GET /healthz: 200 once the store is loaded (the app only exists after that).
// `status` is "ok", or "degraded" with the files that cannot be served: the
// service still answers for everything else, so a load balancer should keep
// sending traffic while someone repairs the files named.
import { Hono } from 'hono';
import type { UnreadableFile } from '../store/types.ts';

export function healthRoutes(problems: () => readonly UnreadableFile[] = () => []) {
  const app = new Hono({ strict: false });
  app.get('/healthz', (c) => {
    const found = problems();
    if (found.length === 0) return c.json({ status: 'ok' });
    return c.json({ status: 'degraded', problems: found.map((p) => ({ resource: `${p.collection}/${p.key}`, file: p.where, problem: p.message })) });
  });
  return app;
}
