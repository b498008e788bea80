// The versioned resources of the service, built over one Store. Routes and
// renderers use these; nothing here knows about HTTP.
import type { DatasourceRegistry } from '../datasources/types.ts';
import type { Store } from '../store/types.ts';
import { createDatasets } from './datasets.ts';
import { createMaps } from './maps.ts';
import { checkStoredShapes } from './stored-shape.ts';
import { createTemplates } from './templates.ts';

export interface ResourceDeps {
  store: Store;
  now: () => Date;
  datasources: DatasourceRegistry;
}

/** The resources over `store`; throws, naming the file, when the data folder breaks their rules (stored-shape.ts). */
export function createResources({ store, now, datasources }: ResourceDeps) {
  const resources = {
    maps: createMaps(store, now),
    datasets: createDatasets(store, now, datasources),
    templates: createTemplates(store, now),
  };
  checkStoredShapes(store, [resources.maps.collection.kind, resources.datasets.collection.kind, resources.templates.collection.kind]);
  return resources;
}

export type Resources = ReturnType<typeof createResources>;
