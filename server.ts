// Assembles the service: createApp(deps) builds the Hono app from its parts
// (tests call it directly, no port needed); serve() loads the settings, opens
// the data folder and listens. Running this file starts the service.
import { serve as listen } from '@hono/node-server';
import { Hono } from 'hono';
import { pathToFileURL } from 'node:url';
import { createAuth } from './auth/index.ts';
import type { AppEnv } from './auth/types.ts';
import { loadSettings, SettingsError, type Settings } from './config/settings.ts';
import { createDatasources } from './datasources/index.ts';
import type { DatasourceRegistry } from './datasources/types.ts';
import { createLogger, type Logger } from './log.ts';
import { createResources } from './resources/index.ts';
import { datasetRoutes } from './routes/datasets.ts';
import { datasourceRoutes } from './routes/datasources.ts';
import { docsRoutes } from './routes/docs.ts';
import { mapRoutes } from './routes/maps.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { outputRoutes } from './routes/output.ts';
import { publicRoutes } from './routes/public.ts';
import { templateRoutes } from './routes/templates.ts';
import { authRoutes } from './routes/auth.ts';
import { healthRoutes } from './routes/health.ts';
import { userRoutes } from './routes/users.ts';
import { bodySizeLimit } from './routes/body.ts';
import { errorHandler, notFoundHandler } from './routes/on-error.ts';
import { openFileStore } from './store/file.ts';
import type { Store } from './store/types.ts';

export interface AppDeps {
  settings: Settings;
  store: Store;
  /** The clock; tests pin it. */
  now?: () => Date;
  log?: Logger;
  /** First-start admin password (MTS_ADMIN_PASSWORD). */
  adminPassword?: string;
  /** Datasource kinds for dataset queries; default: the spreadsheet registry over settings.datasources. */
  datasources?: DatasourceRegistry;
}

export async function createApp(deps: AppDeps) {
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? createLogger();
  const { settings, store } = deps;
  const auth = await createAuth({ settings, store, now, log, adminPassword: deps.adminPassword });

  const app = new Hono<AppEnv>({ strict: false });
  app.onError(errorHandler(log));
  app.notFound(notFoundHandler);
  // The built-in OpenID provider parses its own request bodies: it goes before the body limit.
  if (auth.oidc?.routes) app.route('/', auth.oidc.routes);
  // Only methods with a body: a GET route then has no middleware at all, so
  // Hono runs its one handler directly (no async chain).
  const limitBody = bodySizeLimit(settings.server.bodyLimitBytes);
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', limitBody);

  const datasources = deps.datasources ?? createDatasources(settings);
  const resources = createResources({ store, now, datasources });
  await resources.templates.ensureDefaults();
  const baseUrl = settings.server.baseUrl;

  app.route('/', healthRoutes());
  app.route('/', authRoutes(auth));
  app.route('/', userRoutes(auth, baseUrl));
  app.route('/', mapRoutes({ auth, maps: resources.maps, baseUrl }));
  app.route('/', datasetRoutes({ auth, datasets: resources.datasets, baseUrl }));
  app.route('/', templateRoutes({ auth, templates: resources.templates, baseUrl }));
  app.route('/', publicRoutes({ maps: resources.maps }));
  app.route('/', outputRoutes({ auth, ...resources, datasources }));
  app.route('/', datasourceRoutes(datasources));
  app.route('/', openApiRoutes(settings));
  app.route('/', docsRoutes(settings));
  return app;
}

/** How long a stop waits for the requests in flight. */
const STOP_GRACE_MS = 10_000;

/** Starts the service from settings.yml and the environment; resolves once listening. */
export async function serve(env: NodeJS.ProcessEnv = process.env) {
  const log = createLogger();
  const settings = loadSettings(env);
  const store = await openFileStore(settings.data.dir, { log: (m) => log.info(m) });
  let server: ReturnType<typeof listen>;
  try {
    const app = await createApp({ settings, store, log, adminPassword: env.MTS_ADMIN_PASSWORD });
    server = await new Promise<ReturnType<typeof listen>>((resolve, reject) => {
      const s = listen({ fetch: app.fetch, port: settings.server.port, hostname: settings.server.host }, () => resolve(s));
      // A port in use or a host that does not resolve: say which settings to change, not a stack.
      s.once('error', (e: NodeJS.ErrnoException) => reject(new SettingsError(
        `cannot listen on ${settings.server.host}:${settings.server.port} (settings server.host / server.port, or HOST / PORT): ${e.code ?? e.message}`)));
    });
  } catch (e) {
    await store.close(); // releases the data folder's lock
    throw e;
  }
  const info = server.address();
  log.info(`Map Topology Service listening on ${settings.server.baseUrl} (bound to ${typeof info === 'object' && info ? `${info.address}:${info.port}` : info})`);
  const login = settings.auth.backend === 'basic'
    ? `get a token: POST ${settings.server.baseUrl}/api/v1/auth/token (grant_type=password)`
    : `tokens come from the OpenID provider ${settings.auth.oidc.issuer === 'builtin' ? `${settings.server.baseUrl}/oidc` : settings.auth.oidc.issuer}`;
  log.info(`data folder: ${settings.data.dir}; ${login}; API docs: ${settings.server.baseUrl}/docs`);
  // A stop (systemd, docker, Ctrl-C) lets the requests in flight finish, so a PUT that has begun is
  // answered and on disk, then releases the folder. A second signal, or the grace period, ends it at once.
  const stop = (signal: NodeJS.Signals) => {
    log.info(`${signal}: finishing the requests in flight, then stopping`);
    const now = () => process.exit(1);
    process.once('SIGINT', now);
    process.once('SIGTERM', now);
    setTimeout(() => {
      log.error(`requests still in flight after ${STOP_GRACE_MS / 1000} s: stopping without them`);
      now();
    }, STOP_GRACE_MS).unref();
    // close() stops accepting; a kept-alive connection that goes idle once its request is answered
    // would otherwise hold the stop for the keep-alive timeout.
    const idle = setInterval(() => ('closeIdleConnections' in server ? server.closeIdleConnections() : undefined), 50).unref();
    server.close(() => {
      clearInterval(idle);
      void store.close().then(() => process.exit(0), now);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return { server, store, settings };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  serve().catch((e) => {
    const message = e instanceof SettingsError ? e.message : `cannot start: ${(e as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exit(1);
  });
}
