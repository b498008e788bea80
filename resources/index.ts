// The versioned resources of the service, built over one Store. Routes and
// renderers use these; nothing here knows about HTTP.
import type { DatasourceRegistry } from '../datasources/types.ts';
import type { Store } from '../store/types.ts';
import { createDatasets } from './datasets.ts';
import { createMaps } from './maps.ts';
import { createTemplates } from './templates.ts';

export interface ResourceDeps {
  store: Store;
  now: () => Date;
  datasources: DatasourceRegistry;
}

export function createResources({ store, now, datasources }: ResourceDeps) {
  return {
    maps: createMaps(store, now),
    datasets: createDatasets(store, now, datasources),
    templates: createTemplates(store, now),
  };
}

export type Resources = ReturnType<typeof createResources>;
