// GET /api/v1/datasources/: the datasource endpoints a dataset query can use
// (SPEC: Datasources), public like the spec says. Thin: the registry builds
// the body; files changed since the last call are re-read there.
import { Hono } from 'hono';
import type { DatasourceRegistry } from '../datasources/types.ts';

export function datasourceRoutes(registry: DatasourceRegistry): Hono {
  const app = new Hono({ strict: false });
  // Both spellings, so the route answers whatever the parent app's strictness.
  for (const path of ['/api/v1/datasources', '/api/v1/datasources/']) {
    app.get(path, async (c) => {
      c.header('Cache-Control', 'no-store');
      return c.json(await registry.list());
    });
  }
  return app;
}
