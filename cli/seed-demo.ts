// Rebuilds the demo content of a data folder (default ./data) through the
// service's own API: a node template, three datasets over the demo sheets in
// <folder>/sheets (executed, so they carry results) and one published map
// with a layer per dataset. Run with the service stopped, on a folder without
// users (the seed signs in as a throwaway admin whose private/ folder it
// removes at the end):
//   npx tsx cli/seed-demo.ts [data-folder]
// Nothing is removed before every check has passed: the folder is free (its
// lock taken), has no users, holds the demo sheets, and a rehearsal of the
// whole seed on a memory store succeeds (so a sheet that cannot be read or
// lacks a tab fails before anything is deleted). The old maps, datasets,
// templates and results are then deleted through the store, and new ones get
// new IDs.
import { rmSync } from 'node:fs';
import { access, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomPassword } from '../auth/passwords.ts';
import { parseSettings, type Settings } from '../config/settings.ts';
import { createMemoryLogger } from '../log.ts';
import { withLayerUrl } from '../schema/layer-urls.ts';
import { createApp } from '../server.ts';
import { openFileStore } from '../store/file.ts';
import { createMemoryStore } from '../store/memory.ts';
import { DataDirInUseError } from '../store/lock.ts';
// The seed rebuilds the logs (maps, datasets, templates) and the results; sheets and anything else in the folder stay.
import { LOG_COLLECTIONS, type Store } from '../store/types.ts';
import { commandLine, refuse } from './args.ts';

const SHEETS = ['rne-backbone.xlsx', 'rne-exchanges.csv'];
/** The demo map's name: `npm run picture` finds the demo by it (cli/demo-picture.ts). */
export const DEMO_MAP_NAME = 'R&E backbone';

const BACKBONE = 'spreadsheet?sheet_id=rne-backbone&sheet_name=Circuits';
const EXCHANGES = 'spreadsheet?sheet_id=rne-exchanges&sheet_name=rne-exchanges';
/** The demo datasets, each executed once created. */
const DATASETS = [
  { name: 'R&E backbone: North America', query: { endpoint: BACKBONE, filters: [{ field: 'region', operator: 'like', value: ['us-'] }],
    node_deduplication_field: 'name', node_group_criteria: ['site'], node_group_layout: 'circle' } },
  { name: 'R&E backbone: Europe and transatlantic', query: { endpoint: BACKBONE,
    filters: [{ field: 'region', operator: '', value: ['europe', 'transatlantic'] }, { field: 'type', operator: 'not_equal', value: ['intra-site'] }],
    node_deduplication_field: 'site', node_group_criteria: null, node_group_layout: null } },
  { name: 'Exchange point links', query: { endpoint: EXCHANGES, filters: [{ field: 'capacity', operator: 'not_equal', value: ['0'] }],
    node_deduplication_field: 'name', node_group_criteria: null, node_group_layout: null } },
];

export interface SeedIO {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Creates the demo content in `store` through the API; throws on the first request that fails. */
async function build(store: Store, settings: Settings, io: SeedIO): Promise<void> {
  // A password of this run only: a seed killed before its clean-up leaves no account anyone can sign in to.
  const password = randomPassword();
  const app = await createApp({ settings, store, log: createMemoryLogger(), adminPassword: password });
  const call = async (method: string, url: string, body?: unknown, token?: string) => {
    const res = await app.request(url, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the seed reads API answers by field name; their shapes are the routes' tests' business.
    const json = (await res.json()) as Record<string, any>;
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${json.detail ?? ''}`);
    return json;
  };
  const { access_token: token } = await call('POST', '/api/v1/auth/token', { grant_type: 'password', username: 'admin', password });

  const template = await call('POST', '/api/v1/template/', {
    name: 'Router badge',
    template: '<g data-width="18" data-height="18"><rect x="-9" y="-9" width="18" height="18" rx="4" fill="#1d3557" stroke="#ffffff" stroke-width="2"/><text y="22" text-anchor="middle" font-size="9" fill="#1d3557">{{ meta.site }}</text></g>',
  }, token);

  const ids: string[] = [];
  for (const d of DATASETS) {
    const created = await call('POST', '/api/v1/dataset/', d, token);
    // Create saves the query; update runs it and stores the results (docs/api.md: Datasets).
    const updated = await call('PUT', `/api/v1/dataset/id/${created.datasetId}/`, d, token);
    io.out(`dataset ${created.datasetId} v${updated.version}: ${updated.results?.length ?? 0} records, ${d.name}`);
    ids.push(created.datasetId);
  }

  const map = await call('POST', '/api/v1/map/', {
    name: DEMO_MAP_NAME,
    configuration: demoConfiguration(ids, template.templateId as string),
    overrides: {
      [ids[2]]: {
        nodes: {
          'Reykjavik (planned)': { operation: 'add', state: { name: 'Reykjavik (planned)', coordinate: [64.1466, -21.9426], meta: { status: 'planned' } } },
        },
        edges: {},
      },
    },
  }, token);
  await call('POST', `/api/v1/map/id/${map.mapId}/publish/`, undefined, token);
  io.out(`map ${map.mapId} published: /api/v1/public/output/map/${map.mapId}/svg/`);
}

/**
 * The demo map's configuration, Terranova-shaped: every field Terranova's editor writes for a map
 * and its layers, since ESnet's map component reads them without checking (outputs fill them in
 * anyway; a stored map that has them opens the same in the editor). No tileset: the demo works offline.
 */
export function demoConfiguration(ids: string[], templateId: string) {
  // Each layer also has the mapjsonUrl its datasetId is equivalent to (relative: the demo does not know its host),
  // the only field the editor reads a layer's data from.
  const layer = (name: string, color: string, edgeWidth: number, datasetId: string, extra: { templateId?: string } = {}) => withLayerUrl({
    name, visible: true, jsonFromUrl: false, color, nodeWidth: 5, edgeWidth, pathOffset: 1, endpointId: 'names',
    nodeHighlight: '#ffbf00', legend: true, datasetId, layout: 'geographic', datatype: 'snapshot', traffic, ...extra,
  }, '');
  // Every layer live from the built-in synthetic source (docs/traffic.md: The demo source): routers by the
  // circuit's end names, ports by its ID; point `source` at a real Prometheus and the templates at your own columns.
  const traffic = {
    source: 'demo', a: { instance: '{source}', ifName: '{id}' }, z: { instance: '{destination}', ifName: '{id}' }, capacity: '{capacity} Gbps',
  };
  return {
    initialViewStrategy: 'static', latitudeVar: null, longitudeVar: null,
    viewport: { center: { lat: 46, lng: -40 }, zoom: 3 },
    tileset: { geographic: null, boundaries: null, labels: null },
    background: '#eef3f8', editMode: false, showSidebar: true, showViewControls: true, showLegend: true,
    legendColumnLength: 3, legendPosition: 'bottomLeft', legendDefaultBehavior: 'minimized',
    enableScrolling: true, enableEditing: false, enableNodeAnimation: true, enableEdgeAnimation: true,
    thresholds: [], zIndexBase: 10,
    layers: [
      layer('North America', '#1f77b4', 2, ids[0], { templateId }),
      layer('Europe and transatlantic', '#d62728', 2, ids[1]),
      layer('Exchange points', '#2ca02c', 1.5, ids[2]),
    ],
  };
}

/** Seeds `dir`; the exit code (0 done, 1 failed, 2 refused: the folder is in use or has users). */
export async function seedDemo(dir: string, io: SeedIO): Promise<number> {
  const settings = parseSettings({ data: { dir } }, {}, dir);
  const sheets = settings.datasources.spreadsheet.dir;
  const missing = [];
  for (const name of SHEETS) if (!(await access(path.join(sheets, name)).then(() => true, () => false))) missing.push(name);
  if (missing.length > 0) {
    io.err(`${sheets} lacks the demo sheets ${missing.join(', ')}; copy them from the repository's data/sheets (or run cli/make-demo-sheets.ts)`);
    return 1;
  }
  // Opening the store creates private/ (owner-only); a seed that ends early leaves none it did not find.
  const hadPrivate = await access(path.join(dir, 'private')).then(() => true, () => false);
  let store: Store;
  try {
    store = await openFileStore(dir, { log: () => undefined });
  } catch (e) {
    if (e instanceof DataDirInUseError) {
      io.err(`The service (process ${e.pid}) is running on ${dir}. Stop it, run the seed, then start it again.`);
      return 2;
    }
    io.err(`cannot open the data folder ${dir}: ${(e as Error).message}`);
    return 1;
  }
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  /** How long a stop by signal waits for the store to close. */
  const INTERRUPT_WAIT_MS = 5000;
  // Ctrl-C or a kill skips `finally`: the seeding account (and its folder) must go then too.
  const interrupted = (signal: NodeJS.Signals) => {
    const end = () => {
      // A writer thread may still be putting a file in private/ while it is removed (ENOTEMPTY): try again.
      try {
        rmSync(path.join(dir, 'private'), { recursive: true, force: true, maxRetries: 20, retryDelay: 10 });
      } catch (e) {
        process.stderr.write(`could not remove ${path.join(dir, 'private')}: ${(e as Error).message}; remove it before starting the service\n`);
      }
      process.kill(process.pid, signal);
    };
    // The store closes first (it waits for the writes in flight and refuses new ones): removed before
    // that, private/ could come back with a write that lands after it. A close that takes too long
    // (a stuck disk) does not hold the stop.
    setTimeout(end, INTERRUPT_WAIT_MS).unref();
    void store.close().catch(() => undefined).then(end);
  };
  let seeding = false;
  try {
    if (store.get('private', 'users') !== undefined) {
      io.err(`${dir} has users (private/users.json), so it is not a demo folder; nothing was changed. Seed a copy without private/.`);
      return 2;
    }
    try {
      await build(createMemoryStore(), settings, { out: () => undefined, err: io.err });
    } catch (e) {
      io.err(`seeding ${dir} would fail, so nothing was changed: ${(e as Error).message}`);
      return 1;
    }
    seeding = true;
    for (const signal of signals) process.once(signal, interrupted);
    for (const collection of LOG_COLLECTIONS) {
      for (const [key] of store.heads(collection)) await store.drop(collection, key);
    }
    for (const key of store.blobKeys()) await store.forget(key);
    await build(store, settings, io);
  } catch (e) {
    io.err(`seeding ${dir} failed: ${(e as Error).message}`);
    return 1;
  } finally {
    await store.close();
    // The seeding account is never left behind, even when seeding failed: a start on the folder
    // creates the real admin.
    if (seeding || !hadPrivate) await rm(path.join(dir, 'private'), { recursive: true, force: true });
    if (seeding) for (const signal of signals) process.off(signal, interrupted);
  }
  return 0;
}

const USAGE = `usage: npx tsx cli/seed-demo.ts [data-folder]
  rebuilds the demo content of a data folder (default ./data) through the API;
  run it with the service stopped, on a folder without users`;

/** The command line: `[data-folder]` or `--help`; the exit code. */
export async function seedDemoCli(argv: readonly string[], io: SeedIO): Promise<number> {
  const line = commandLine(argv, { usage: USAGE, words: [0, 1] });
  if (!line.run) return refuse(line, io);
  return seedDemo(path.resolve(line.positionals[0] ?? 'data'), io);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const io = { out: (l: string) => process.stdout.write(`${l}\n`), err: (l: string) => process.stderr.write(`${l}\n`) };
  seedDemoCli(process.argv.slice(2), io).then((code) => { process.exitCode = code; }, (e) => {
    io.err(`seed-demo: ${(e as Error).message}`);
    process.exitCode = 1;
  });
}
