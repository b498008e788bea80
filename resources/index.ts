// The versioned resources of the service, built over one Store. Routes and
// renderers use these; nothing here knows about HTTP.
import type { DatasourceRegistry } from '../datasources/types.ts';
import type { Store, UnreadableFile } from '../store/types.ts';
import type { DiffOffload } from './changes.ts';
import { createDatasets } from './datasets.ts';
import { createMaps } from './maps.ts';
import { storedShapeProblems } from './stored-shape.ts';
import { createTemplates } from './templates.ts';

export interface ResourceDeps {
  store: Store;
  now: () => Date;
  datasources: DatasourceRegistry;
  /** server.baseUrl, for the `mapjsonUrl` a map's `datasetId` layers show. */
  baseUrl?: string;
  /** Where a big dataset change's summary is worked out, for the user who makes it (the render pool); here without. */
  offload?: (by: string) => DiffOffload;
}

/** The resources over `store`. */
export function createResources({ store, now, datasources, baseUrl, offload }: ResourceDeps) {
  const maps = createMaps(store, now, baseUrl);
  const datasets = createDatasets(store, now, datasources, offload);
  const templates = createTemplates(store, now);
  const shapeProblems = storedShapeProblems(store, [maps.collection.descriptor, datasets.collection.descriptor, templates.collection.descriptor]);
  return {
    maps,
    datasets,
    templates,
    /** Everything that cannot be served (the store's unreadable files, misfiled resources); empty when healthy. */
    problems: (): UnreadableFile[] => [...store.problems(), ...shapeProblems],
  };
}

