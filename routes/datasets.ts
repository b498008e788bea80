// The dataset resource's routes (docs/api.md: Datasets), declared for
// routes/resource-routes.ts. Create saves the query without running it;
// update runs it live (no filters: every row) and answers with the new
// version, its results and the rows that could not be used (`problems`).
// Refresh runs the stored query again, storing a version only on change.
// Deleting a dataset a live map still uses is 409.
import * as v from 'valibot';
import { DATASET_DESCRIPTOR, updateWarnings } from '../resources/datasets.ts';
import { DatasetRevisionSchema, type DatasetRevision } from '../schema/dataset.ts';
import { DatasetSchema } from '../schema/objects.ts';
import { declarer, version } from '../http/operation.ts';
import { actingUser, ifMatch, sendWritten } from '../http/versioned.ts';
import type { RouteDeps } from './index.ts';
import { resourceRoutes } from './resource-routes.ts';

const route = declarer<RouteDeps>();

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
  // Filters that match no row store nothing: the answer is the latest version, saying why.
  warnings: updateWarnings,
  more: (paths) => [route({
    method: 'post', path: '/api/v1/dataset/id/{datasetId}/refresh/', tag: paths.tag, scope: 'write', pathParams: paths.idParam,
    summary: 'Run the stored query again; a new version only when the results changed',
    description: 'Answers the new version, or the latest one unchanged with a `warnings` entry saying why (no version is added): the results are unchanged, or the filters match none of the sheet\'s rows (the warning lists the values seen in the filtered columns).',
    effects: ['versions', 'write', 'ifMatch', 'datasource'], answers: { 200: version('the new version, or the latest one unchanged', DatasetSchema) },
    handle: ({ datasets }) => async (c, { params }) => {
      const id = paths.id(params);
      const { version: stored, warnings } = await datasets.refresh(id, actingUser(c), ifMatch(c));
      return sendWritten(c, datasets.serialized(stored), 200, warnings);
    },
  })],
  history: { usedBy: 'dataset' },
}, v.partial(DatasetSchema));
