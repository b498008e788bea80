// Where outputs read their data (output/layers.ts LayerLoaders): a dataset's
// stored results or a live run of its query, and a template's markup. Each
// read records, for the output cache (output/cache.ts), what it read
// and how to tell later whether that is still what it would read: the
// dataset's version (the latest moves on), the template's version, and for
// live data (and a snapshot of a version stored without results, run live)
// the sheet's identity, taken before the query runs so a sheet
// changed during the run is seen as changed on the next request.
import type { DatasourceRegistry } from '../datasources/types.ts';
import type { LayerLoaders } from './layers.ts';
import type { Dependencies } from './cache.ts';
import type { Datasets } from '../resources/datasets.ts';
import type { Templates } from '../resources/templates.ts';

export interface LoaderDeps {
  datasets: Datasets;
  templates: Templates;
  datasources: DatasourceRegistry;
}

/**
 * How old a sheet's identity may be when an output drawn from it is served
 * again (docs/api.md: Output cache): a change to a live layer's sheet shows
 * within this long. Asking costs system calls, which every request of a
 * cached live picture would otherwise pay.
 */
const SHEET_CHECK_MS = 1000;

/** A value no probe answers: an output that depends on it is rendered every time. */
const UNKNOWN = Symbol('unknown').toString();

export function outputLoaders(o: LoaderDeps, deps: Dependencies): LayerLoaders {
  const { datasets, templates, datasources } = o;
  return {
    async dataset(id, version, datatype) {
      const stored = await datasets.at(id, version);
      // A version once read stays as it was; the latest is a version number that moves; get() fails once the dataset is deleted.
      deps.add(`dataset ${id} ${version}`, String(stored.version), () => {
        const latest = datasets.get(id);
        return String(version === 'latest' ? latest.version : version);
      });
      const { name, query } = stored;
      const live = async () => {
        const seen = (await datasources.fingerprint?.(query.endpoint)) ?? UNKNOWN;
        deps.add(`sheet ${query.endpoint}`, seen, async () => (await datasources.fingerprint?.(query.endpoint)) ?? `${UNKNOWN} now`,
          seen === UNKNOWN ? undefined : SHEET_CHECK_MS);
        return (await datasources.run(query)).records;
      };
      if (datatype === 'dynamic') return { name, query, records: await live() };
      const results = await datasets.results(id, stored.version);
      if (results) return { name, query, records: results.records, resultsKey: stored.resultsKey ?? undefined };
      // A version stored without results (one that create stored unexecuted): its query runs live, as
      // Terranova does for "Static Version 1", and the answer says so.
      return {
        name, query, records: await live(),
        note: `dataset ${id} version ${stored.version} has no stored results (it was created, never updated): drawn from a live run of its query`,
      };
    },
    async template(id) {
      const stored = templates.get(id);
      deps.add(`template ${id}`, String(stored.version), () => String(templates.get(id).version));
      return stored.template;
    },
  };
}
