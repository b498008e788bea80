// The datasource registry: one module per kind (today `spreadsheet`), behind
// the DatasourceRegistry contract of types.ts. It reads the kind from the
// endpoint string and hands the rest to that kind.
import type { Settings } from '../config/settings.ts';
import type { DatasetQuery } from '../schema/dataset.ts';
import { endpointProblem, parseEndpoint } from './endpoint.ts';
import type { DatasourceKind } from './kind.ts';
import { createSpreadsheetKind } from './spreadsheet/index.ts';
import type { DatasourceEntry, DatasourceRegistry, QueryResult } from './types.ts';

export function createDatasources(settings: Settings): DatasourceRegistry {
  const kinds = new Map<string, DatasourceKind>();
  for (const kind of [createSpreadsheetKind(settings.datasources.spreadsheet)]) kinds.set(kind.name, kind);

  const resolve = (endpoint: string) => {
    const { kind, params } = parseEndpoint(endpoint);
    const source = kinds.get(kind);
    if (!source) {
      throw endpointProblem(`unknown datasource kind ${JSON.stringify(kind)}; expected ${[...kinds.keys()].join(', ')} ` +
        `(for example spreadsheet?sheet_id=…&sheet_name=…)`);
    }
    return { source, params };
  };

  return {
    async list() {
      const body: Record<string, DatasourceEntry> = {};
      for (const kind of kinds.values()) {
        for (const [endpoint, entry] of await kind.list()) body[endpoint] = entry;
      }
      return body;
    },
    checkEndpoint(endpoint: string) {
      const { source, params } = resolve(endpoint);
      source.check(params);
    },
    async run(query: DatasetQuery): Promise<QueryResult> {
      const { source, params } = resolve(query.endpoint);
      source.check(params);
      return source.run(params, query);
    },
    async close() {
      for (const kind of kinds.values()) await kind.close();
    },
  };
}

export type { DatasourceRegistry } from './types.ts';
