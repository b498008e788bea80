// The settings contract: the schema of settings.yml, its defaults, and the
// environment overrides. Loaded and validated once at start; a bad value
// stops the service with a message naming the key and what is expected.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { patternProblem } from './redirect-patterns.ts';
import { parse as parseYaml } from 'yaml';

const port = v.pipe(v.number('expected a number'), v.integer('expected an integer'),
  v.minValue(0, 'expected a port from 0 to 65535'), v.maxValue(65535, 'expected a port from 0 to 65535'));
const positiveInt = v.pipe(v.number('expected a number'), v.integer('expected an integer'),
  v.minValue(1, 'expected a positive integer'));
/** A time limit in whole seconds, at most a day (Node takes milliseconds and refuses unsafe integers). */
const seconds = v.pipe(positiveInt, v.maxValue(86_400, 'expected at most 86400 (one day)'));
const nonEmpty = v.pipe(v.string('expected a string'), v.minLength(1, 'expected a non-empty string'));
/** RFC 6749 3.3 scope-token: tokens carry scopes space-separated, so one cannot hold a space or a quote. */
const scopeToken = v.pipe(v.string('expected a string'),
  v.regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'expected one scope: printable ASCII without spaces, quotes or backslashes'));

/** A redirect URI, or a pattern ending in `*` (same scheme, host and port; any path under the prefix). */
const redirectUri = v.pipe(v.string(), v.url('expected an absolute URL'),
  v.check((u) => !u.includes('#'), 'expected a URL without a #fragment (OAuth 2.0 forbids them)'),
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed ? patternProblem(dataset.value) : undefined;
    if (problem) addIssue({ message: problem });
  }));

const OidcClientSchema = v.strictObject({
  client_id: nonEmpty,
  /** Absent for public clients (PKCE only). */
  client_secret: v.optional(nonEmpty),
  grant_types: v.optional(v.array(v.picklist(['authorization_code', 'refresh_token', 'client_credentials'],
    'expected authorization_code, refresh_token or client_credentials')), ['authorization_code', 'refresh_token']),
  /** Where the provider may send the browser back; a trailing `*` allows any path under the prefix (config/redirect-patterns.ts). */
  redirect_uris: v.optional(v.array(redirectUri), []),
  /** Where the provider may send the browser after logout, with the same rule. */
  post_logout_redirect_uris: v.optional(v.array(redirectUri), []),
  /** Space-separated scopes this client may be granted. */
  scope: v.optional(v.string(), ''),
  /** How a confidential client authenticates at the token endpoint (default client_secret_basic; none without a secret). */
  token_endpoint_auth_method: v.optional(v.picklist(['client_secret_basic', 'client_secret_post'],
    'expected client_secret_basic or client_secret_post')),
  client_name: v.optional(nonEmpty),
  /** Space-separated scopes granted when the client asks for no API scope (only `openid`); never beyond the user's. */
  default_scopes: v.optional(v.string(), ''),
});

/** An origin as browsers send it: scheme, host and port, no path. */
const origin = v.pipe(v.string('expected an origin such as https://grafana.example.net'),
  v.regex(/^https?:\/\/[^/?#\s]+$/, 'expected an origin: scheme and host (and port), no path, such as https://grafana.example.net'));

/** A Prometheus-style duration: 30s, 5m, 1h (docs/traffic.md). */
const duration = v.pipe(v.string('expected a duration such as 30s, 5m or 1h'),
  v.regex(/^[1-9][0-9]{0,5}(ms|s|m|h)$/, 'expected a duration such as 30s, 5m or 1h'));
const labelName = v.pipe(v.string('expected a label name'), v.regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,99}$/, 'expected a Prometheus label name such as ifName'));
const metricName = v.pipe(v.string('expected a metric name'), v.regex(/^[a-zA-Z_:][a-zA-Z0-9_:]{0,199}$/, 'expected a Prometheus metric name such as ifHCInOctets'));

/** One metrics source (traffic/sources.ts); secrets are named by file, never written here. */
const MetricsSourceSchema = v.pipe(v.strictObject({
  /** prometheus: any server of the Prometheus HTTP API; synthetic: made-up deterministic traffic for demos. */
  kind: v.optional(v.picklist(['prometheus', 'synthetic'], 'expected prometheus or synthetic'), 'prometheus'),
  url: v.optional(v.pipe(v.string(), v.url('expected an absolute URL such as http://prometheus:9090'),
    v.check((u) => /^https?:/.test(u), 'expected an http or https URL'))),
  bearerTokenFile: v.optional(nonEmpty),
  basicAuth: v.optional(v.strictObject({ username: nonEmpty, passwordFile: nonEmpty })),
  /** A `job` label every query is restricted to. */
  job: v.optional(nonEmpty),
  preset: v.optional(v.picklist(['snmp', 'custom'], 'expected snmp or custom'), 'snmp'),
  /** preset custom: the metric and label names (each defaults to snmp_exporter's). */
  metrics: v.optional(v.strictObject({
    inOctets: v.optional(metricName), outOctets: v.optional(metricName), speedMbps: v.optional(metricName),
    operStatus: v.optional(metricName), instanceLabel: v.optional(labelName), ifNameLabel: v.optional(labelName),
  })),
  window: v.optional(duration, '5m'),
  step: v.optional(duration, '60s'),
  timeout: v.optional(duration, '5s'),
}), v.forward(v.check((s) => s.kind === 'synthetic' || s.url !== undefined, 'expected url (the Prometheus API, e.g. http://prometheus:9090) for a prometheus source'), ['url']),
v.forward(v.check((s) => s.preset === 'custom' || s.metrics === undefined, 'metrics are names for preset custom; set preset: custom or remove them'), ['metrics']));

export const SettingsSchema = v.strictObject({
  server: v.nullish(v.pipe(v.strictObject({
    port: v.optional(port, 8080),
    host: v.optional(nonEmpty, '0.0.0.0'),
    /** Public URL of the service, used in Location headers and OIDC metadata. */
    baseUrl: v.optional(v.pipe(v.string(), v.url('expected an absolute URL such as http://localhost:8080'),
      v.check((u) => !/[?#]/.test(u), 'expected a URL without ?query or #fragment'))),
    /** Largest accepted request body. */
    bodyLimitBytes: v.optional(positiveInt, 1024 * 1024),
    /** Behind one reverse proxy: take the client address from X-Forwarded-For and the scheme/host from X-Forwarded-*. */
    trustProxy: v.optional(v.boolean('expected true or false'), false),
    /** The whole request, headers and body, must arrive within this; else 408 and the connection is closed. */
    requestTimeoutSeconds: v.optional(seconds, 30),
    /** The headers must arrive within this (default and at most requestTimeoutSeconds). */
    headersTimeoutSeconds: v.optional(seconds),
    /** An idle kept-alive connection is closed after this. */
    keepAliveTimeoutSeconds: v.optional(seconds, 5),
    /** Most connections open at once; a new one beyond is closed as soon as it is accepted. */
    maxConnections: v.optional(positiveInt, 1000),
    /** Most connections one client address holds at once (0: a quarter of maxConnections); more are closed at once. Not applied behind a proxy (trustProxy). */
    maxConnectionsPerAddress: v.optional(v.pipe(v.number('expected a number'), v.integer('expected an integer'), v.minValue(0, 'expected 0 or more')), 0),
    /** Cross-origin requests from browsers (dashboards, status pages, Terranova's editor). */
    cors: v.nullish(v.strictObject({
      /** Origins allowed on the whole API: a list, or "*" for any (credentials are then never allowed). */
      origins: v.optional(v.union([v.literal('*'), v.array(origin)], 'expected "*" or a list of origins'), []),
      /** Whether the public routes (public maps, public output, datasources) answer any origin. */
      publicAnyOrigin: v.optional(v.boolean('expected true or false'), true),
    }), {}),
  }), v.forward(v.partialCheck([['requestTimeoutSeconds'], ['headersTimeoutSeconds']],
    (x) => x.headersTimeoutSeconds === undefined || x.headersTimeoutSeconds <= x.requestTimeoutSeconds,
    (issue) => {
      const x = issue.input as { requestTimeoutSeconds: number; headersTimeoutSeconds: number };
      return `expected at most server.requestTimeoutSeconds (${x.requestTimeoutSeconds}), as the headers are part of the request (got ${x.headersTimeoutSeconds})`;
    }),
  ['headersTimeoutSeconds'])), {}),
  data: v.nullish(v.strictObject({
    dir: v.optional(nonEmpty, './data'),
  }), {}),
  /** Where maps, datasets, templates, users and keys are kept: the data folder, or PostgreSQL shared by replicas. */
  store: v.nullish(v.pipe(v.strictObject({
    backend: v.optional(v.picklist(['file', 'postgres'], 'expected file or postgres'), 'file'),
    postgres: v.nullish(v.strictObject({
      /** postgresql://user:password@host:5432/database (or MTS_DATABASE_URL). */
      url: v.optional(v.pipe(v.string('expected a string'), v.regex(/^postgres(ql)?:\/\//, 'expected a URL such as postgresql://user:password@host:5432/database'))),
    }), {}),
  }), v.forward(v.check((x) => x.backend !== 'postgres' || x.postgres.url !== undefined,
    'expected store.postgres.url (or MTS_DATABASE_URL) with store.backend: postgres'), ['postgres', 'url'])), {}),
  auth: v.nullish(v.strictObject({
    backend: v.optional(v.picklist(['basic', 'oidc'], 'expected basic or oidc'), 'basic'),
    // "Scopes are independent: none implies another", so the four differ.
    scopes: v.nullish(v.pipe(v.strictObject({
      read: v.optional(scopeToken, 'svc:maps:read'),
      write: v.optional(scopeToken, 'svc:maps:write'),
      publish: v.optional(scopeToken, 'svc:maps:publish'),
      admin: v.optional(scopeToken, 'svc:admin'),
    }), v.check((x) => new Set(Object.values(x)).size === 4, 'expected four different scopes for read, write, publish and admin')), {}),
    tokenTtlSeconds: v.optional(positiveInt, 3600),
    basic: v.nullish(v.strictObject({
      /** Accept `Authorization: Basic` with a local user's credentials on API requests (Terranova's editor in basic mode). */
      acceptHttpBasic: v.optional(v.boolean('expected true or false'), false),
      /** How long verified Basic credentials are remembered, so a request does not cost a password hash. */
      cacheSeconds: v.optional(v.pipe(v.number('expected a number'), v.integer('expected an integer'), v.minValue(0, 'expected 0 or more'), v.maxValue(3600, 'expected at most 3600')), 60),
    }), {}),
    /** Login throttling (auth/throttle.ts): failures counted per username and address pair, per username and per address; password checks at once. */
    loginThrottle: v.nullish(v.strictObject({
      /** Failed logins allowed per username and client address pair within the window; the next is 429. */
      maxFailures: v.optional(positiveInt, 10),
      windowSeconds: v.optional(seconds, 60),
      /** Per username over all addresses; never blocks an address the user signed in from before. */
      perUsername: v.nullish(v.strictObject({
        maxFailures: v.optional(positiveInt, 50),
        windowSeconds: v.optional(seconds, 3600),
      }), {}),
      /** Per client address over all usernames; never blocks a username that signed in from it before. */
      perAddress: v.nullish(v.strictObject({
        maxFailures: v.optional(positiveInt, 30),
        windowSeconds: v.optional(seconds, 600),
      }), {}),
      /** How long a successful login makes its address known for that username. */
      knownAddressDays: v.optional(v.pipe(positiveInt, v.maxValue(365, 'expected at most 365')), 30),
      /** Password checks (scrypt, on libuv's thread pool) at once; one is kept for addresses known for the username. */
      maxConcurrentChecks: v.optional(v.pipe(v.number('expected a number'), v.integer('expected an integer'),
        v.minValue(2, 'expected at least 2 (one check is kept for known addresses)'), v.maxValue(64, 'expected at most 64')), 2),
      /** Checks waiting for a slot (strangers and known addresses each); beyond it, 429 at once. */
      maxQueuedChecks: v.optional(v.pipe(v.number('expected a number'), v.integer('expected an integer'),
        v.minValue(0, 'expected 0 or more'), v.maxValue(1000, 'expected at most 1000')), 8),
    }), {}),
    oidc: v.nullish(v.strictObject({
      /** "builtin" mounts the service's own provider at /oidc; otherwise the issuer URL. */
      issuer: v.optional(v.union([v.literal('builtin'), v.pipe(v.string(), v.url())],
        'expected "builtin" or the URL of an external issuer'), 'builtin'),
      audience: v.optional(nonEmpty),
      clients: v.optional(v.pipe(v.array(OidcClientSchema),
        v.check((cs) => new Set(cs.map((c) => c.client_id)).size === cs.length, 'expected each client_id once')), []),
      /** Built-in provider: most sign-in interactions kept at once, and how long one lasts. */
      maxInteractions: v.optional(positiveInt, 10_000),
      interactionTtlSeconds: v.optional(seconds, 600),
      /** External issuer: least seconds between two JWKS fetches triggered by an unknown key ID. */
      jwksCooldownSeconds: v.optional(v.pipe(v.number('expected a number'), v.minValue(0, 'expected 0 or more')), 30),
    }), {}),
  }), {}),
  /** Rendered outputs (docs/api.md: Output cache, PNG). */
  output: v.nullish(v.strictObject({
    /** Most bytes of finished outputs (JSON, SVG, PNG) kept for repeated requests; 0 keeps none. */
    cacheBytes: v.optional(v.pipe(v.number('expected a number'), v.integer('expected an integer'), v.minValue(0, 'expected 0 or more')), 64 * 1024 * 1024),
    /** Most pixels on either side of a PNG. */
    pngMaxSide: v.optional(v.pipe(positiveInt, v.maxValue(16_384, 'expected at most 16384')), 8192),
    /** Most pixels of a PNG in all (each takes 4 bytes of memory while it is drawn). */
    pngMaxPixels: v.optional(v.pipe(positiveInt, v.maxValue(100_000_000, 'expected at most 100000000')), 16_777_216),
    /** Most circuits of one dataset a picture draws; more is 422 before anything is built (output/picture-limit.ts). */
    pictureCircuits: v.optional(v.pipe(positiveInt, v.maxValue(10_000_000, 'expected at most 10000000')), 20_000),
    /** Most seconds one picture, PNG or big diff may take on a render thread; longer is 422 (docs/api.md: Limits). */
    renderTimeoutSeconds: v.optional(v.pipe(positiveInt, v.maxValue(600, 'expected at most 600')), 10),
    /** Most MB of heap a render thread may use; a render that needs more is 422. */
    renderMemoryMB: v.optional(v.pipe(v.number('expected a number'), v.integer('expected an integer'), v.minValue(64, 'expected at least 64'),
      v.maxValue(16_384, 'expected at most 16384')), 512),
    /** Render threads; 0: sized to the machine (its cores, 2 to 4). */
    renderThreads: v.optional(v.pipe(v.number('expected a number'), v.integer('expected an integer'), v.minValue(0, 'expected 0 or more'),
      v.maxValue(32, 'expected at most 32')), 0),
    /** Renders waiting for a thread, all callers together; beyond it, 503 at once. */
    renderQueue: v.optional(v.pipe(v.number('expected a number'), v.integer('expected an integer'), v.minValue(0, 'expected 0 or more'),
      v.maxValue(10_000, 'expected at most 10000')), 32),
  }), {}),
  /** The log (log.ts): its format and level, and whether every request gets a line. */
  log: v.nullish(v.strictObject({
    format: v.optional(v.picklist(['text', 'json'], 'expected text or json'), 'text'),
    level: v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent'], 'expected debug, info, warn, error or silent'), 'info'),
    requests: v.optional(v.boolean('expected true or false'), true),
  }), {}),
  /** GET /metrics (Prometheus): off, or behind a bearer token; and the metrics sources live traffic reads. */
  metrics: v.nullish(v.strictObject({
    enabled: v.optional(v.boolean('expected true or false'), true),
    /** When set, /metrics answers only `Authorization: Bearer <token>`. */
    token: v.optional(v.pipe(v.string('expected a string'), v.regex(/^[\x21-\x7e]{16,}$/, 'expected at least 16 printable characters without spaces'))),
    /** Where live traffic comes from (docs/traffic.md): named sources of the Prometheus HTTP API, and `demo`. */
    sources: v.optional(v.record(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,40}$/, 'expected a source name of letters, digits, - and _ (at most 40)')),
      MetricsSourceSchema), {}),
  }), {}),
  datasources: v.nullish(v.strictObject({
    spreadsheet: v.nullish(v.strictObject({
      dir: v.optional(nonEmpty),
      maxFileBytes: v.optional(positiveInt, 20 * 1024 * 1024),
      maxUncompressedBytes: v.optional(positiveInt, 200 * 1024 * 1024),
      maxInflateRatio: v.optional(positiveInt, 100),
      maxRows: v.optional(positiveInt, 200_000),
      maxColumns: v.optional(positiveInt, 200),
    }), {}),
  }), {}),
});

export type SettingsInput = v.InferInput<typeof SettingsSchema>;
export type Settings = v.InferOutput<typeof SettingsSchema> & {
  server: { baseUrl: string; headersTimeoutSeconds: number };
  datasources: { spreadsheet: { dir: string } };
};

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/** Validates raw settings (from YAML or code) and fills derived defaults. */
export function parseSettings(raw: unknown, env: NodeJS.ProcessEnv = {}, baseDir = process.cwd()): Settings {
  // biome-ignore lint/suspicious/noExplicitAny: raw YAML of any shape, which the schema checks right after the overrides.
  const input = structuredClone((raw ?? {}) as Record<string, any>);
  applyEnv(input, env);
  const result = v.safeParse(SettingsSchema, input);
  if (!result.success) {
    const lines = result.issues.map((issue) => {
      const key = v.getDotPath(issue) ?? '(top level)';
      // Only a plain value is echoed, and never one under a secret's key: a whole list of
      // OIDC clients, say, would print every client_secret to the log.
      const plain = issue.input !== undefined && (typeof issue.input !== 'object' || issue.input === null);
      const shown = plain && !/secret|password|metrics\.token|postgres\.url|sources\.[^.]+\.url/i.test(key); // a database or metrics URL may carry its password
      const got = shown ? ` (got ${JSON.stringify(issue.input)})` : '';
      // A strict object reports both an unknown key (expected "never") and a section that is not a mapping.
      const message = issue.type !== 'strict_object' ? issue.message
        : issue.expected === 'never' ? 'is not a known setting' : 'expected a mapping of settings';
      return `  ${key}: ${message}${got}`;
    });
    throw new SettingsError(`invalid settings:\n${lines.join('\n')}`);
  }
  const s = result.output as Settings;
  s.data.dir = path.resolve(baseDir, s.data.dir);
  s.datasources.spreadsheet.dir = path.resolve(baseDir, s.datasources.spreadsheet.dir ?? path.join(s.data.dir, 'sheets'));
  s.server.headersTimeoutSeconds ??= s.server.requestTimeoutSeconds;
  s.server.baseUrl = (s.server.baseUrl ?? `http://localhost:${s.server.port}`).replace(/\/+$/, '');
  return s;
}

/** Environment variables win over the file: PORT, HOST, MTS_DATA_DIR, MTS_BASE_URL, MTS_STORE_BACKEND, MTS_DATABASE_URL, MTS_LOG_FORMAT, MTS_LOG_LEVEL, MTS_METRICS_TOKEN. */
// biome-ignore lint/suspicious/noExplicitAny: the raw settings, before the schema has checked their shape.
function applyEnv(input: Record<string, any>, env: NodeJS.ProcessEnv) {
  const set = (section: string, key: string, value: unknown) => {
    input[section] = { ...(input[section] ?? {}), [key]: value };
  };
  if (env.PORT !== undefined) set('server', 'port', /^\d+$/.test(env.PORT) ? Number(env.PORT) : env.PORT);
  if (env.HOST) set('server', 'host', env.HOST);
  if (env.MTS_BASE_URL) set('server', 'baseUrl', env.MTS_BASE_URL);
  if (env.MTS_DATA_DIR) set('data', 'dir', env.MTS_DATA_DIR);
  if (env.MTS_STORE_BACKEND) set('store', 'backend', env.MTS_STORE_BACKEND);
  if (env.MTS_LOG_FORMAT) set('log', 'format', env.MTS_LOG_FORMAT);
  if (env.MTS_LOG_LEVEL) set('log', 'level', env.MTS_LOG_LEVEL);
  if (env.MTS_METRICS_TOKEN) set('metrics', 'token', env.MTS_METRICS_TOKEN);
  if (env.MTS_DATABASE_URL) set('store', 'postgres', { ...(input.store?.postgres ?? {}), url: env.MTS_DATABASE_URL });
}

/** Reads the settings file named by MTS_CONFIG, else ./settings.yml if present, else defaults. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Settings {
  const file = env.MTS_CONFIG ? path.resolve(cwd, env.MTS_CONFIG) : path.resolve(cwd, 'settings.yml');
  let raw: unknown = {};
  if (existsSync(file)) {
    try {
      raw = parseYaml(readFileSync(file, 'utf8')) ?? {};
    } catch (e) {
      throw new SettingsError(`cannot read settings file ${file}: ${(e as Error).message}`);
    }
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      throw new SettingsError(`settings file ${file} must hold a mapping of keys, such as "server:" and "auth:"`);
    }
  } else if (env.MTS_CONFIG) {
    throw new SettingsError(`settings file ${file} (from MTS_CONFIG) does not exist`);
  }
  return parseSettings(raw, env, cwd);
}
