// The dataset resource's routes (docs/api.md: Datasets), declared for
// routes/resource-routes.ts. Create saves the query without running it;
// update runs it live (no filters: every row) and answers with the new
// version, its results and the rows that could not be used (`problems`).
// Deleting a dataset a live map still uses is 409.
import * as v from 'valibot';
import { DATASET_DESCRIPTOR } from '../resources/datasets.ts';
import { DatasetRevisionSchema, type DatasetRevision } from '../schema/dataset.ts';
import { DatasetSchema } from '../schema/objects.ts';
import { resourceRoutes } from './resource-routes.ts';

export const DATASET_ROUTES = resourceRoutes<DatasetRevision>({
  segment: 'dataset',
  paths: {
    list: '/api/v1/datasets/', create: '/api/v1/dataset/', object: '/api/v1/dataset/id/{datasetId}/',
    history: '/api/v1/dataset/id/{datasetId}/history/', diff: '/api/v1/dataset/id/{datasetId}/diff/',
    restore: '/api/v1/dataset/id/{datasetId}/restore/', revert: '/api/v1/dataset/id/{datasetId}/revert/',
  },
  descriptor: DATASET_DESCRIPTOR,
  revision: { name: 'DatasetRevision', schema: DatasetRevisionSchema },
  object: DatasetSchema,
  resource: (deps) => deps.datasets,
  text: {
    get: 'Get a dataset with its stored results',
    create: 'Create a dataset (the query is saved, not run)',
    update: 'Save a new version; the query runs live and its results are stored (no filters: every row)',
    updated: 'the new version with results and problems',
  },
  updateEffects: ['datasource'],
  history: { usedBy: 'dataset' },
}, v.partial(DatasetSchema));
