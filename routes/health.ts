// GET /healthz: 200 once the store is loaded (the app only exists after that).
import { Hono } from 'hono';

export function healthRoutes() {
  const app = new Hono({ strict: false });
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  return app;
}
