// A whole service for one test: its own temp data folder, the real app from
// createApp, an admin with a known password, and shortcuts for requests.
import * as nodeFs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseSettings, type Settings, type SettingsInput } from '../../config/settings.ts';
import type { DatasourceRegistry } from '../../datasources/types.ts';
import { createMemoryLogger, type Logger } from '../../log.ts';
import { RenderPool } from '../../pool/pool.ts';
import { createApp } from '../../server.ts';
import { openFileStore, type FileStoreOptions } from '../../store/file.ts';
import type { SharedCounters, Store } from '../../store/types.ts';
import { copyDemoData } from './demo-data.ts';

export const ADMIN_PASSWORD = 'correct horse battery staple';
/** scrypt's log2 N for passwords hashed in tests (a few ms a hash; the service's 15 costs some 100 ms each here). */
export const TEST_PASSWORD_COST = 10;

export interface TestAppOptions {
  settings?: SettingsInput;
  /** Reuse a data folder (for restart tests). */
  dir?: string;
  now?: () => Date;
  /** Datasource registry for the app (default: the real one over <dir>/sheets). */
  datasources?: DatasourceRegistry;
  /** Options of the file store (injected file-system failures); writes run inline over node:fs unless `syncFs` says otherwise. */
  storeOptions?: FileStoreOptions;
  /** Called on every output render (the output cache tests count them). */
  onOutputRender?: (key: string) => void;
  /** scrypt's log2 N for the passwords this app hashes: 10 here (a few ms a hash); pass 15, the service's, where a test needs real hashing time. */
  passwordCost?: number;
  /** The app's logger, with the lines it wrote (default: createMemoryLogger). */
  log?: Logger & { lines: string[] };
  /** Shared counters for the store, as replicas over PostgreSQL have (default: none, as the data folder). */
  counters?: SharedCounters;
}

const POOL_SETTINGS = ['renderThreads', 'renderTimeoutSeconds', 'renderMemoryMB', 'renderQueue'] as const;
let processPool: RenderPool | undefined;
let defaultOutput: Settings['output'] | undefined;

/**
 * The render pool of an app with the default render settings: one for all such apps of the process. A render
 * thread costs some 0.7 s of CPU to start (it loads the renderer), more than most test apps' pictures take, and
 * each app of its own started one or two. An app whose settings name a render limit gets a pool of its own,
 * with its limits and its /metrics observing it.
 */
function sharedPool(settings: Settings): RenderPool | undefined {
  const output = settings.output;
  defaultOutput ??= parseSettings({}, {}, settings.data.dir).output;
  if (POOL_SETTINGS.some((key) => output[key] !== defaultOutput?.[key])) return undefined;
  processPool ??= new RenderPool({ threads: output.renderThreads, timeoutSeconds: output.renderTimeoutSeconds,
    memoryMb: output.renderMemoryMB, maxQueued: output.renderQueue });
  return processPool;
}

export type RequestInit2 = RequestInit & {
  token?: string;
  json?: unknown;
  /** The peer address the request seems to come from (as @hono/node-server's socket would give it). */
  remoteAddress?: string;
};

export async function makeTestApp(options: TestAppOptions = {}) {
  const dir = options.dir ?? (await mkdtemp(path.join(tmpdir(), 'mts-test-')));
  const settings = parseSettings({ ...options.settings, data: { dir, ...options.settings?.data } }, {}, dir);
  // Writes run inline, the same durable sequence the service's writer threads run (test/store covers the threads):
  // a test app lives a few requests, and starting its threads cost more CPU than all else it did (auth tests: 3x).
  const folder: Store = await openFileStore(settings.data.dir, { syncFs: nodeFs, ...options.storeOptions });
  const store: Store = options.counters ? { ...folder, counters: options.counters } : folder;
  const log = options.log ?? createMemoryLogger();
  const app = await createApp({ settings, store, now: options.now, log, adminPassword: ADMIN_PASSWORD,
    datasources: options.datasources, onOutputRender: options.onOutputRender, passwordCost: options.passwordCost ?? TEST_PASSWORD_COST,
    pool: sharedPool(settings) });

  const request = async (url: string, init: RequestInit2 = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const env = init.remoteAddress ? { incoming: { socket: { remoteAddress: init.remoteAddress, remotePort: 40000, remoteFamily: 'IPv4' } } } : undefined;
    return app.request(url, { ...init, headers, body }, env);
  };

  /** A token for the admin user limited to the given scopes (default: all of admin's). */
  const token = async (scope?: string, username = 'admin', password = ADMIN_PASSWORD) => {
    const res = await request('/api/v1/auth/token', {
      method: 'POST',
      json: { grant_type: 'password', username, password, ...(scope !== undefined ? { scope } : {}) },
    });
    if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };

  let closed = false;
  const close = async (removeDir = options.dir === undefined) => {
    if (!closed) await store.close();
    closed = true;
    if (removeDir) await rm(dir, { recursive: true, force: true });
  };

  return { app, dir, settings, store, log, request, token, close };
}

export type TestApp = Awaited<ReturnType<typeof makeTestApp>>;

/** A whole service over a temp copy of the committed demo data folder (maps, datasets, templates and sheets); close() removes the copy. */
export async function makeDemoApp(options: Omit<TestAppOptions, 'dir'> = {}): Promise<TestApp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-demo-'));
  await copyDemoData(dir);
  const t = await makeTestApp({ ...options, dir });
  return { ...t, close: (removeDir = true) => t.close(removeDir) };
}

/**
 * A clock a second into a step of the demo traffic source (60 s) when the test starts, running as time does: the demo
 * map's pictures asked within a test share one step, so one read and one render, whenever the suite runs.
 */
export function stepClock(): () => Date {
  const step = 60_000, started = Date.now();
  let base = Math.floor(started / step) * step + 1000;
  if (base > started) base -= step;
  return () => new Date(base + (Date.now() - started));
}
