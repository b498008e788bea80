// GET /api/v1/datasources/: the datasource endpoints a dataset query can use
// (docs/api.md: Datasources and the dataset editor), with no token. Thin: the registry builds
// the body; files changed since the last call are re-read there. Each entry
// also carries what Terranova's dataset editor reads (display_name and the
// paths of its query, field-list and distinct-value routes, which
// routes/query.ts serves with the read scope).
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
