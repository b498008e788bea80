// Assembles the service: createApp(deps) builds the Hono app from its parts
// (tests call it directly, no port needed); serve() loads the settings, opens
// the data folder and listens. Running this file starts the service.
import { serve as listen } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { bootstrapAdminOf } from './auth/bootstrap.ts';
import { createAuth } from './auth/index.ts';
import type { AppEnv } from './auth/types.ts';
import { loadSettings, SettingsError, type Settings } from './config/settings.ts';
import { createDatasources } from './datasources/index.ts';
import type { DatasourceRegistry } from './datasources/types.ts';
import { createLogger, type Logger } from './log.ts';
import { outputObserver, renderPoolObserver, timedWrites, trafficObserver } from './metrics/observers.ts';
import { createMetrics, type Metrics } from './metrics/registry.ts';
import { createResources } from './resources/index.ts';
import { createUserData } from './resources/userdata.ts';
import { bodySizeLimit, markRequestTimedOut } from './http/body.ts';
import { withCors } from './http/cors.ts';
import { observeRequests } from './http/observe.ts';
import { errorHandler, notFoundHandler } from './http/on-error.ts';
import { registerOperations } from './http/register.ts';
import { createOutputCache } from './output/cache.ts';
import { callerOf, outputSender } from './output/send.ts';
import type { Job } from './pool/jobs.ts';
import { collectWhenQuiet, loggedCollection } from './pool/memory.ts';
import { RenderPool } from './pool/pool.ts';
import { OPERATIONS } from './routes/index.ts';
import { missingDataFolder, openConfiguredStore } from './store/open.ts';
import type { Store } from './store/types.ts';
import { createLiveTraffic } from './traffic/live.ts';
import { createTrafficSources } from './traffic/sources.ts';
import type { TrafficSource } from './traffic/types.ts';
import { trafficOutput } from './routes/traffic.ts';

export interface AppDeps {
  settings: Settings;
  store: Store;
  /** The clock; tests pin it. */
  now?: () => Date;
  log?: Logger;
  /** First-start admin password (MTS_ADMIN_PASSWORD). */
  adminPassword?: string;
  /** Create no first-start admin here: serve() creates it once listening (bootstrapAdminOf). */
  deferAdmin?: boolean;
  /** scrypt's log2 N for new password hashes; default 15 (auth/passwords.ts). Tests pass less: hashing was a fifth of the suite's time. */
  passwordCost?: number;
  /** Datasource resources for dataset queries; default: the spreadsheet registry over settings.datasources. */
  datasources?: DatasourceRegistry;
  /** Called on every output render, that is every request the output cache could not answer (tests count them). */
  onOutputRender?: (key: string) => void;
  /** The metrics /metrics serves; default: a registry of this app's own (serve() adds the process's). */
  metrics?: Metrics;
  /** The metrics sources; default: built from settings.metrics (traffic/sources.ts). */
  trafficSources?: Map<string, TrafficSource>;
  /**
   * A full garbage collection, run once the service is quiet after render threads ended or cached
   * outputs were dropped idle (pool/memory.ts); serve() passes V8's. Absent: none is asked for.
   */
  collectGarbage?: () => void;
  /**
   * Render threads to share with other apps of the process (tests run many apps in one process, and a thread
   * costs more to start than most of their pictures take); default: a pool of this app's own from settings.output.
   */
  pool?: RenderPool;
}

export async function createApp(deps: AppDeps) {
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? createLogger();
  const metrics = deps.metrics ?? createMetrics();
  const { settings, store } = deps;
  // A refused login's line names the username and address (what fail2ban reads), never the password.
  const onLoginRefused = (username: string, client: string, reason: string) => {
    log.info('login refused', { username: username.slice(0, 128), client, reason });
    metrics.failedLogins.inc({ reason });
  };
  // The service's own clock is read in milliseconds where it can be (every request checks its token's expiry); a pinned one as it is.
  const nowMs = deps.now ? undefined : Date.now;
  const auth = await createAuth({ settings, store, now, nowMs, log, adminPassword: deps.adminPassword, deferAdmin: deps.deferAdmin, passwordCost: deps.passwordCost, onLoginRefused });

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
  // What a load left behind goes back to the system once it ends (docs/api.md: Limits).
  const released = deps.collectGarbage && collectWhenQuiet(deps.collectGarbage).released;
  // Pictures, PNGs and big diffs off the event loop, within their budgets (pool/pool.ts).
  const pool = deps.pool ?? new RenderPool({ threads: settings.output.renderThreads, timeoutSeconds: settings.output.renderTimeoutSeconds,
    memoryMb: settings.output.renderMemoryMB, maxQueued: settings.output.renderQueue, observe: renderPoolObserver(metrics), onThreadEnd: released });
  // The summary of a big dataset change is worked out there too, for the user who makes it.
  const resources = createResources({ store: timedWrites(store, metrics), now, datasources, baseUrl: settings.server.baseUrl,
    offload: (by) => (job) => pool.run(job, { key: `user:${by}`, signedIn: true }) });
  await resources.templates.ensureDefaults();
  const baseUrl = settings.server.baseUrl;
  const observeOutput = outputObserver(metrics);
  const outputCache = createOutputCache({ maxBytes: settings.output.cacheBytes, onRender: deps.onOutputRender, observe: observeOutput,
    now: () => now().getTime(), onIdleDrop: released });
  const send = outputSender(outputCache, { maxSide: settings.output.pngMaxSide, maxPixels: settings.output.pngMaxPixels }, pool, settings.server.trustProxy);
  const offload = (job: Job, c: Context) => pool.run(job, callerOf(c, settings.server.trustProxy));
  const admit = (c: Context) => pool.admit(callerOf(c, settings.server.trustProxy));

  // Every route, each from its declaration (routes/index.ts), through the one registrar.
  const traffic = createLiveTraffic({ sources: deps.trafficSources ?? createTrafficSources(settings), now, log, observe: trafficObserver(metrics) });
  const trafficPictures = trafficOutput({ live: traffic, png: { maxSide: settings.output.pngMaxSide, maxPixels: settings.output.pngMaxPixels }, now,
    draw: offload, admit, onRender: deps.onOutputRender, observe: observeOutput });
  const routeDeps = {
    settings, auth, ...resources, userdata: createUserData(store), datasources, store, send, baseUrl, metrics, operations: OPERATIONS, offload,
    traffic, trafficOutput: trafficPictures, now,
  };
  registerOperations(app, OPERATIONS, routeDeps, { guard: auth.guard, basic: auth.accounts !== undefined, peers: store });
  // CORS around the router, not as a middleware: routes/cors.ts says why. app.request goes through it too.
  app.fetch = withCors(settings, app.fetch, (req, env) => app.getPath(req, { env }));
  // The request log and HTTP metrics around everything, CORS answers included.
  app.fetch = observeRequests(app.fetch, {
    log, metrics, logRequests: settings.log.requests, trustProxy: settings.server.trustProxy,
    routeOf: (req, env) => routeTemplate(app.router.match(req.method === 'HEAD' ? 'GET' : req.method, app.getPath(req, { env }))[0]),
  });
  return app;
}

/**
 * The template of the route a router match chose: the last one with a path of its own, else a
 * mount such as `/oidc/*`; undefined when only the middleware of every path matched.
 */
function routeTemplate(matched: readonly (readonly [readonly [unknown, { path: string }], unknown])[]): string | undefined {
  let mount: string | undefined;
  for (let i = matched.length - 1; i >= 0; i--) {
    const path = matched[i][0][1].path;
    if (!path.endsWith('*')) return path;
    if (mount === undefined && path !== '*' && path !== '/*') mount = path;
  }
  return mount;
}

/** How long a stop waits for the requests in flight. */
const STOP_GRACE_MS = 10_000;
/** A signal this soon after the one that began a stop is that one again (npm passing Ctrl-C on), not a second. */
const SAME_STOP_MS = 500;

export interface ServeOptions {
  /** Default: the service's logger on stdout/stderr. */
  log?: Logger;
  /** Stop gracefully on SIGTERM/SIGINT (default true; tests that run the service in their own process pass false). */
  signals?: boolean;
}

/** Starts the service from settings.yml and the environment; resolves once listening. */
export async function serve(env: NodeJS.ProcessEnv = process.env, options: ServeOptions = {}) {
  const settings = loadSettings(env);
  const log = options.log ?? createLogger({ format: settings.log.format, level: settings.log.level });
  const fresh = missingDataFolder(settings);
  if (fresh) {
    log.error(`WARNING: the data folder ${fresh} does not exist; creating it empty, with sheets/ for spreadsheets ` +
      '(no maps, datasets or users: a new admin is created). If you meant an existing folder, stop the service and ' +
      'correct data.dir in the settings or MTS_DATA_DIR.');
  }
  const store = await openConfiguredStore(settings, (m) => log.info(m));
  // A new folder gets the spreadsheet folder too, so the first sheet has a place to go.
  if (fresh) await mkdir(settings.datasources.spreadsheet.dir, { recursive: true });
  let server: http.Server | undefined;
  try {
    const app = await createApp({ settings, store, log, deferAdmin: true, metrics: createMetrics({ process: true }), collectGarbage: loggedCollection(log) });
    server = await new Promise<http.Server>((resolve, reject) => {
      const s = listen({ fetch: app.fetch, port: settings.server.port, hostname: settings.server.host, serverOptions: serverOptions(settings) },
        () => resolve(s as http.Server));
      // A port in use or a host that does not resolve: say which settings to change, not a stack.
      const refused = (e: NodeJS.ErrnoException) => reject(new SettingsError(
        `cannot listen on ${settings.server.host}:${settings.server.port} (settings server.host / server.port, or HOST / PORT): ${e.code ?? e.message}`));
      s.once('error', refused);
      s.once('listening', () => s.off('error', refused));
    });
    limitConnections(server, settings, log);
    limitConnectionsPerAddress(server, settings, log);
    // Only with the port ours: a start that cannot listen creates no user and prints no password
    // that the next start would never show again.
    await bootstrapAdminOf(settings, store, env.MTS_ADMIN_PASSWORD, log);
  } catch (e) {
    const listening = server;
    if (listening) await new Promise((resolve) => listening.close(resolve));
    await store.close(); // releases the data folder's lock
    throw e;
  }
  const info = server.address();
  log.info(`Map Topology Service listening on ${settings.server.baseUrl} (bound to ${typeof info === 'object' && info ? `${info.address}:${info.port}` : info})`);
  const login = settings.auth.backend === 'basic'
    ? `get a token: POST ${settings.server.baseUrl}/api/v1/auth/token (grant_type=password)`
    : `tokens come from the OpenID provider ${settings.auth.oidc.issuer === 'builtin' ? `${settings.server.baseUrl}/oidc` : settings.auth.oidc.issuer}`;
  const where = settings.store.backend === 'postgres' ? 'store: PostgreSQL' : `data folder: ${settings.data.dir}`;
  log.info(`${where}; ${login}; API docs: ${settings.server.baseUrl}/docs`);
  // A stop (systemd, docker, Ctrl-C) lets the requests in flight finish, so a PUT that has begun is
  // answered and on disk, then releases the folder. A second signal, or the grace period, ends it at once.
  // Ctrl-C on `npm start` reaches the service twice, from the terminal and passed on by npm: a
  // signal within SAME_STOP_MS of the first is the same stop.
  // The next listeners go on before the first come off: with none, a signal would end the process at once.
  const stop = (signal: NodeJS.Signals) => {
    log.info(`${signal}: finishing the requests in flight, then stopping`);
    const now = () => process.exit(1);
    const stoppedAt = Date.now();
    const again = () => {
      if (Date.now() - stoppedAt >= SAME_STOP_MS) now();
    };
    process.on('SIGINT', again);
    process.on('SIGTERM', again);
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    setTimeout(() => {
      log.error(`requests still in flight after ${STOP_GRACE_MS / 1000} s: stopping without them`);
      now();
    }, STOP_GRACE_MS).unref();
    // close() stops accepting; a kept-alive connection that goes idle once its request is answered
    // would otherwise hold the stop for the keep-alive timeout.
    const idle = setInterval(() => server.closeIdleConnections(), 50).unref();
    server.close(() => {
      clearInterval(idle);
      void store.close().then(() => process.exit(0), now);
    });
  };
  if (options.signals !== false) {
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  }
  return { server, store, settings };
}

/**
 * Node's own request limits. Node checks for late requests on a timer (every
 * 30 s unless told), which would let a request run up to that much over its
 * limit: it checks at least four times within the headers limit, at most once a second.
 */
function serverOptions(settings: Settings): http.ServerOptions {
  const { requestTimeoutSeconds, headersTimeoutSeconds, keepAliveTimeoutSeconds } = settings.server;
  return {
    requestTimeout: requestTimeoutSeconds * 1000,
    headersTimeout: headersTimeoutSeconds * 1000,
    keepAliveTimeout: keepAliveTimeoutSeconds * 1000,
    connectionsCheckingInterval: Math.min(1000, Math.floor(headersTimeoutSeconds * 1000 / 4)),
  };
}

/** How often, at most, the log repeats that the connection limit is turning connections away. */
const DROP_REPORT_MS = 60_000;

/**
 * server.maxConnections: Node closes a connection beyond it as soon as it is
 * accepted, so slow or idle clients hold at most that many file descriptors.
 * A request that does not arrive in time is answered 408 in the service's JSON
 * error shape and its connection closed, freeing its slot.
 */
function limitConnections(server: http.Server, settings: Settings, log: Logger) {
  const { maxConnections, requestTimeoutSeconds, headersTimeoutSeconds } = settings.server;
  server.maxConnections = maxConnections;
  // Once listening, an error of the listening socket (accept failing with EMFILE when every file
  // descriptor is taken) is logged: with no listener Node would throw it and end the service.
  server.on('error', (e: NodeJS.ErrnoException) => log.error(`listening socket: ${e.code ?? e.message}`));

  let dropped = 0;
  let reporting: NodeJS.Timeout | undefined;
  server.on('drop', () => {
    if (reporting) return void dropped++;
    log.error(`connection limit reached (server.maxConnections: ${maxConnections}): closing new connections until some end`);
    reporting = setTimeout(() => {
      if (dropped) log.error(`connection limit: ${dropped} more connections closed in the last ${DROP_REPORT_MS / 1000} s`);
      dropped = 0;
      reporting = undefined;
    }, DROP_REPORT_MS).unref();
  });

  const timeoutAnswer = rawResponse(408, {
    detail: `the request did not arrive in full within ${requestTimeoutSeconds} s (server.requestTimeoutSeconds)` +
      (headersTimeoutSeconds < requestTimeoutSeconds ? `, or its headers within ${headersTimeoutSeconds} s (server.headersTimeoutSeconds)` : '') +
      '; send it again',
    code: 'request_timeout',
  });
  // Node's own answers to the other client errors: the listener replaces them all.
  const nodeAnswers: Record<string, Buffer> = {
    HPE_HEADER_OVERFLOW: rawResponse(431),
    HPE_CHUNK_EXTENSIONS_OVERFLOW: rawResponse(413),
  };
  const malformed = rawResponse(400);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    // A handler may be reading this body: its read now fails, and it must not count that as a 500.
    if (timedOut) markRequestTimedOut(socket);
    // As Node does: answer only when nothing of a response has gone out on this connection yet.
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy();
    const answer = timedOut ? timeoutAnswer : nodeAnswers[err.code ?? ''] ?? malformed;
    // Flush the answer, then close at once: a client still sending must not keep the slot.
    socket.end(answer, () => socket.destroy());
    setTimeout(() => socket.destroy(), 1000).unref();
  });
}

/**
 * server.maxConnectionsPerAddress: one client address may hold only a share
 * of the connections (a quarter of server.maxConnections unless set), so
 * slow bodies from one address cannot take every slot; a connection beyond
 * its share is closed as soon as it is accepted while other addresses are
 * served. Behind a proxy every connection comes from the proxy: not applied.
 */
function limitConnectionsPerAddress(server: http.Server, settings: Settings, log: Logger) {
  const { maxConnections, maxConnectionsPerAddress, trustProxy } = settings.server;
  if (trustProxy) return;
  const cap = maxConnectionsPerAddress > 0 ? maxConnectionsPerAddress : Math.max(1, Math.ceil(maxConnections / 4));
  const open = new Map<string, number>();
  let reported = 0;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const n = (open.get(address) ?? 0) + 1;
    if (n > cap) {
      if (Date.now() - reported > DROP_REPORT_MS) {
        reported = Date.now();
        log.error(`connection limit of one address reached (server.maxConnectionsPerAddress: ${cap}): closing new connections from ${address}`);
      }
      socket.destroy();
      return;
    }
    open.set(address, n);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/** A complete HTTP/1.1 response that closes the connection, written straight to the socket. */
function rawResponse(status: number, json?: Record<string, string>): Buffer {
  const body = json ? JSON.stringify(json) : '';
  return Buffer.from(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
    (json ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : '') +
    `Connection: close\r\n\r\n${body}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  serve().catch((e) => {
    const message = e instanceof SettingsError ? e.message : `cannot start: ${(e as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exit(1);
  });
}
