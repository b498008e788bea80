// The route table: every endpoint file's operations, in the order the
// OpenAPI document and GET /api/v1/ list them, and what their handlers are
// built from. server.ts hands both to the registrar (http/register.ts).
// Adding a route: its declaration, with its handler, in its endpoint file
// (a new file's list joins the table here); nothing else.
import type { Context } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { Settings } from '../config/settings.ts';
import type { DatasourceRegistry } from '../datasources/types.ts';
import type { AnyOperation, Operation } from '../http/operation.ts';
import type { OutputSender } from '../output/send.ts';
import type { Job } from '../pool/jobs.ts';
import type { Datasets } from '../resources/datasets.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { Maps } from '../resources/maps.ts';
import type { Templates } from '../resources/templates.ts';
import type { UserDataStore } from '../resources/userdata.ts';
import type { Store, UnreadableFile } from '../store/types.ts';
import { TOKEN } from './auth.ts';
import { DATASET_ROUTES } from './datasets.ts';
import { DATASOURCE_LIST } from './datasources.ts';
import { DOCS_OPERATIONS } from './docs.ts';
import { HEALTH } from './health.ts';
import { HOME_OPERATIONS } from './home.ts';
import { METRICS } from './metrics.ts';
import { historyOperations } from './history.ts';
import { MAP_ROUTES } from './maps.ts';
import { OPENAPI_OPERATIONS } from './openapi.ts';
import { OUTPUT_OPERATIONS } from './output.ts';
import { PUBLIC_MAPS } from './public.ts';
import { EDITOR_OPERATIONS } from './query.ts';
import { TEMPLATE_ROUTES } from './templates.ts';
import { USERDATA_OPERATIONS } from './userdata.ts';
import { USER_OPERATIONS } from './users.ts';
import { TRAFFIC_OPERATIONS, type TrafficOutput } from './traffic.ts';
import type { LiveTraffic } from '../traffic/live.ts';

/** What the handlers are built from, once per app. */
export interface RouteDeps {
  settings: Settings;
  auth: Auth;
  maps: Maps;
  datasets: Datasets;
  templates: Templates;
  userdata: UserDataStore;
  datasources: DatasourceRegistry;
  store: Store;
  /** Finished outputs kept for repeated requests, and the PNG size limits. */
  send: OutputSender;
  /** server.baseUrl, for Location headers and the mapjsonUrl outputs add to datasetId layers. */
  baseUrl: string;
  /** The stored files that cannot be served (GET /healthz). */
  problems: () => readonly UnreadableFile[];
  /** The Prometheus metrics GET /metrics serves. */
  metrics: Metrics;
  /** Work done on the render pool for the request's caller (pool/pool.ts): big dataset diffs. */
  offload: (job: Job, c: Context) => Promise<string | Uint8Array>;
  /** Every operation, for the OpenAPI document and the route list. */
  operations: readonly AnyOperation[];
  /** Live traffic: the metrics sources and their reads (traffic/live.ts), and bound maps' pictures and rows (routes/traffic.ts). */
  traffic: LiveTraffic;
  trafficOutput: TrafficOutput;
  /** The clock (pinned by tests): `?at=` may not be in the future. */
  now: () => Date;
}

/** The versioned resources, in the document's order. */
export const RESOURCE_ROUTES = [MAP_ROUTES, DATASET_ROUTES, TEMPLATE_ROUTES];

export const OPERATIONS: readonly Operation<RouteDeps>[] = [
  // Maps, datasets and templates: list, get, create, update (and a map's publish, unpublish)
  ...MAP_ROUTES.operations,
  PUBLIC_MAPS,
  ...DATASET_ROUTES.operations,
  ...TEMPLATE_ROUTES.operations,
  // History (one set per kind)
  ...RESOURCE_ROUTES.flatMap(historyOperations),
  // Output: datasets, the change picture, maps, public maps
  ...OUTPUT_OPERATIONS,
  // Live traffic: the metrics sources (bound maps' pictures and rows are outputs)
  ...TRAFFIC_OPERATIONS,
  // Datasources and the dataset editor (with its query preview)
  DATASOURCE_LIST,
  ...EDITOR_OPERATIONS,
  // Users and tokens; the signed-in user's own data (Terranova's editor: favourites and recently edited)
  TOKEN,
  ...USER_OPERATIONS,
  ...USERDATA_OPERATIONS,
  // Service
  HEALTH,
  ...OPENAPI_OPERATIONS,
  ...DOCS_OPERATIONS,
  ...HOME_OPERATIONS,
  METRICS,
];
