// Shared by the store benchmarks (store.ts, store-history.ts, store-put.ts):
// map versions shaped like the service stores them, written straight into a
// data folder in the append-only layout (`maps/<id>/v<N>.json`, the canonical
// JSON of the version), a service over such a folder with an admin token,
// fresh child processes that measure a start-up, and small statistics.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSettings } from '../config/settings.ts';
import { createMemoryLogger } from '../log.ts';
import { createApp } from '../server.ts';
import { canonicalJson } from '../store/canonical-json.ts';
import { openFileStore, type FileStoreOptions } from '../store/file.ts';

export const PASSWORD = 'benchmark password 1';

/** A map ID (7 letters or digits, as the service makes them): `prefix` and `i` in base 36. */
export const mapIdOf = (i: number, prefix = 'm') => `${prefix}${i.toString(36).padStart(7 - prefix.length, '0')}`;

export type Revision = { name: string; configuration: Record<string, unknown>; overrides: Record<string, unknown> };

/** A map revision (the body of a PUT) with `nodes` node override rules and half as many edge rules; `rev` varies a name and a coordinate. */
export function mapRevision(nodes: number, rev: number, seed = 0): Revision {
  const dataset = `d${(seed % 997).toString(36).padStart(6, '0')}`;
  const nodeRules: Record<string, unknown> = {};
  for (let k = 0; k < nodes; k++) {
    const moved = k === rev % Math.max(1, nodes) ? 0.5 : 0;
    nodeRules[`node-${k}`] = { operation: 'override', render: true, state: {
      name: `node-${k}`, coordinate: [Number((30 + (k % 17) + moved).toFixed(3)), Number((-120 + (k % 53)).toFixed(3))],
      meta: { site: `Site ${k}`, role: k % 3 ? 'edge' : 'core', capacityGbps: 100 * (1 + (k % 4)) } } };
  }
  const edgeRules: Record<string, unknown> = {};
  for (let k = 0; k < nodes / 2; k++) {
    edgeRules[`node-${k}--node-${k + 1}`] = { operation: 'override', state: {
      name: `node-${k}--node-${k + 1}`, coordinates: [[30 + (k % 17), -120 + (k % 53)], [31 + (k % 17), -119 + (k % 53)]],
      meta: { circuit: `ckt-${seed}-${k}`, speedGbps: 100 } } };
  }
  return {
    name: `Backbone ${seed} rev ${rev}`,
    configuration: {
      initialViewStrategy: 'manual', viewport: { center: { lat: 39.8, lng: -98.5 }, zoom: 4 }, background: '#f8f8f8',
      showLegend: true, enableScrolling: true, zIndexBase: 100,
      layers: [{ name: 'Core', visible: true, color: '#1f77b4', nodeWidth: 6, edgeWidth: 3, pathOffset: 2,
        datasetId: dataset, layout: 'geographic', datatype: 'snapshot' }],
    },
    overrides: nodes > 0 ? { [dataset]: { nodes: nodeRules, edges: edgeRules } } : {},
  };
}

/** A stored map version: the revision with the stamps the service adds. */
export function storedVersion(mapId: string, version: number, revision: Revision, isPublic = false) {
  return {
    ...revision, mapId, version, public: isPublic, lastUpdatedBy: 'admin',
    lastUpdatedOn: new Date(Date.UTC(2026, 0, 1) + version * 60_000).toISOString(),
    change: version === 1 ? 'created' : 'changed the overrides',
  };
}

/** The node count whose stored version is about `bytes` long in canonical form. */
export function nodesFor(bytes: number): number {
  const size = (n: number) => Buffer.byteLength(canonicalJson(storedVersion('m000000', 1, mapRevision(n, 1))));
  const [a, b] = [size(0), size(200)];
  return Math.max(0, Math.round(((bytes - a) * 200) / (b - a)));
}

/**
 * Writes versions 1..`count` of map `mapId` as `maps/<id>/v<N>.json`, the
 * canonical bytes the store would have written, `nodes` override rules each.
 * Fast: one canonical text per map, the version number and name substituted
 * (checked against canonicalJson for the first and last). The bytes written.
 */
export async function writeMapVersions(dir: string, mapId: string, count: number, nodes: number, first = 1): Promise<number> {
  const folder = path.join(dir, 'maps', mapId);
  await mkdir(folder, { recursive: true });
  const MARK = 987654321;
  // Stamps equal in every version but the number (the time, the change), so that one text serves all.
  const versionOf = (n: number) => ({ ...storedVersion(mapId, n, { ...mapRevision(nodes, 1), name: `Backbone rev ${n}` }),
    lastUpdatedOn: '2026-01-01T00:00:00.000Z', change: 'changed the overrides' });
  const template = canonicalJson(versionOf(MARK));
  const textOf = (n: number) => template.replace(`"version": ${MARK}`, `"version": ${n}`).replace(`rev ${MARK}"`, `rev ${n}"`);
  for (const n of new Set([first, first + count - 1])) {
    if (textOf(n) !== canonicalJson(versionOf(n))) throw new Error('writeMapVersions: the substituted text is not canonical');
  }
  let bytes = 0;
  const numbers = Array.from({ length: count }, (_, i) => first + i);
  await forEachLimit(numbers, 16, async (n) => {
    const text = textOf(n);
    bytes += Buffer.byteLength(text);
    await writeFile(path.join(folder, `v${n}.json`), text);
  });
  return bytes;
}

export async function forEachLimit<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The app over the data folder `dir` (first start: creates the admin), with a request helper carrying an admin token. */
export async function openService(dir: string, options: FileStoreOptions = {}) {
  const store = await openFileStore(dir, { log: () => undefined, ...options });
  const settings = parseSettings({ data: { dir } }, {}, dir);
  const app = await createApp({ settings, store, log: createMemoryLogger(), adminPassword: PASSWORD });
  const res = await app.request('/api/v1/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: 'admin', password: PASSWORD }) });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}` };
  /** One request through app.request; throws on a status >= 300. The response text. */
  const call = async (method: string, url: string, body?: string) => {
    const r = await app.request(url, { method, body, headers: { ...headers, 'content-type': 'application/json' } });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${text.slice(0, 300)}`);
    return text;
  };
  return { app, store, headers, call };
}

/** What a start-up child measured: ms of the timed work, ms since its process started, peak RSS, resources (maps) and versions known. */
export interface Sample { ms: number; sinceStartMs: number; rssMB: number; items: number; versions: number }

const CHILD = fileURLToPath(new URL('./store-child.ts', import.meta.url));

/** Runs bench/store-child.ts in a fresh process. */
export function runChild(mode: string, ...args: string[]): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, mode, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.on('error', reject);
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Sample) : reject(new Error(`start-up child (${mode}) exited ${code}`))));
  });
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** The p-th percentile (0..100), nearest rank. */
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
export const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
