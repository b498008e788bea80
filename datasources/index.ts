// The datasource registry: one module per kind (today `spreadsheet`), behind
// the DatasourceRegistry contract of types.ts. It reads the kind from the
// endpoint string and hands the rest to that kind.
import type { Settings } from '../config/settings.ts';
import type { DatasetQuery } from '../schema/dataset.ts';
import { endpointProblem, parseEndpoint } from './endpoint.ts';
import type { DatasourceKind } from './kind.ts';
import { createSpreadsheetKind } from './spreadsheet/index.ts';
import type { DatasourceListing, DatasourceRegistry, QueryResult } from './types.ts';

/** What a kind's name looks like: `esdb` and `services` (Terranova's editor's placeholders) are names; `ftp://x` is not. */
const KIND_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const EXAMPLE = 'for example spreadsheet?sheet_id=…&sheet_name=…';

export function createDatasources(settings: Settings): DatasourceRegistry {
  const kinds = new Map<string, DatasourceKind>();
  for (const kind of [createSpreadsheetKind(settings.datasources.spreadsheet)]) kinds.set(kind.name, kind);
  const known = () => [...kinds.keys()].join(', ');

  const unknownKind = (kind: string) => {
    const shown = kind.length > 60 ? `${kind.slice(0, 60)}…` : kind;
    return `unknown datasource kind ${JSON.stringify(shown)}; expected ${known()} (${EXAMPLE}, as GET /api/v1/datasources/ lists them)`;
  };

  /** The kind and its parameters; 422 when the string names no kind this service has. */
  const resolve = (endpoint: string) => {
    const { kind, params } = parseEndpoint(endpoint);
    const source = kinds.get(kind);
    if (!source) throw endpointProblem(unknownKind(kind));
    return { source, params };
  };

  return {
    async list() {
      const body: Record<string, DatasourceListing> = {};
      for (const kind of kinds.values()) {
        for (const [endpoint, entry] of await kind.list()) body[endpoint] = entry;
      }
      return body;
    },
    checkEndpoint(endpoint: string) {
      const { source, params } = resolve(endpoint);
      source.check(params);
    },
    async endpointProblems(endpoint: string, query?: DatasetQuery) {
      const { kind, params } = parseEndpoint(endpoint);
      const source = kinds.get(kind);
      if (!source) {
        // A kind that is not even a name (`ftp://…`, `?sheet_id=…`) can never run: refused now.
        if (!KIND_NAME.test(kind)) throw endpointProblem(unknownKind(kind));
        return [`${unknownKind(kind)}; the dataset is saved, and an update runs once the endpoint names one`];
      }
      source.check(params);
      return source.problems(params, query);
    },
    pathKinds() {
      return [...kinds.values()].map((k) => ({ kind: k.name, params: k.pathParams }));
    },
    async columns(endpoint: string, columns?: DatasetQuery['columns']) {
      const { source, params } = resolve(endpoint);
      source.check(params);
      return source.columns(params, columns);
    },
    async run(query: DatasetQuery): Promise<QueryResult> {
      const { source, params } = resolve(query.endpoint);
      source.check(params);
      return source.run(params, query);
    },
    async fingerprint(endpoint: string) {
      const { source, params } = resolve(endpoint);
      source.check(params);
      const found = await source.fingerprint?.(params);
      return found === undefined ? undefined : `${source.name}:${found}`;
    },
    async close() {
      for (const kind of kinds.values()) await kind.close();
    },
  };
}

export type { DatasourceRegistry } from './types.ts';
