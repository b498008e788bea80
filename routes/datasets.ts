// Dataset routes (docs/api.md: Datasets). Create saves the query without running
// it; update runs it live (no filters: every row) and answers with the new
// version, its results and the rows that could not be used (`problems`).
import { Hono } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import { DATASET_DESCRIPTOR, type Datasets } from '../resources/datasets.ts';
import { DatasetRevisionSchema } from '../schema/dataset.ts';
import { readBody } from './body.ts';
import { parseListQuery, parseVersionQuery, type ListSpec } from './list-query.ts';
import { actingUser, ifMatch, pathId, sendList, sendVersion, sendSerialized } from './versioned.ts';

export const DATASET_LIST: ListSpec = {
  resource: DATASET_DESCRIPTOR,
  filters: { datasetId: 'string', name: 'string', lastUpdatedBy: 'string' },
};

export function datasetRoutes(o: { auth: Auth; datasets: Datasets; baseUrl: string }) {
  const { auth, datasets } = o;
  const app = new Hono<AppEnv>({ strict: false });
  const id = (c: Parameters<typeof pathId>[0]) => pathId(c, 'datasetId', 'dataset');

  app.get('/api/v1/datasets', auth.guard('read', (c) => sendList(c, datasets.list(parseListQuery(c, DATASET_LIST)))));

  app.get('/api/v1/dataset/id/:datasetId', auth.guard('read', (c) => sendVersion(c, datasets.collection, id(c), parseVersionQuery(c))));

  app.post('/api/v1/dataset', auth.requireScope('write'), async (c) => {
    const created = await datasets.create(actingUser(c), await readBody(c, DatasetRevisionSchema));
    return sendSerialized(c, datasets.serialized(created), 201, {
      Location: `${o.baseUrl}/api/v1/dataset/id/${created.datasetId as string}/`,
    });
  });

  app.put('/api/v1/dataset/id/:datasetId', auth.requireScope('write'), async (c) => {
    const datasetId = id(c);
    datasets.get(datasetId);
    const revision = await readBody(c, DatasetRevisionSchema);
    return sendSerialized(c, datasets.serialized(await datasets.update(datasetId, actingUser(c), revision, ifMatch(c))));
  });

  return app;
}
