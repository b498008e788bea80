// Live traffic over HTTP (docs/traffic.md): the metrics sources and their
// health, a bound map's pictures with its traffic drawn, and its traffic as
// rows for clients that colour maps themselves. Pictures and rows are kept
// per map version, source step bucket and parameters, sent with an ETag of
// that key and `Cache-Control: max-age` of the seconds the bucket has left
// (an `<img>` refreshes by itself); after a source failure, a short max-age.
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import * as v from 'valibot';
import { badRequest, notFound } from '../errors.ts';
import { PNG_RESPONSE_HEADERS, type PngLimits } from '../render/png.ts';
import { SVG_RESPONSE_HEADERS } from '../render/svg.ts';
import type { OutputObserver } from '../output/cache.ts';
import type { Job } from '../pool/jobs.ts';
import type { LayerTraffic } from '../render/traffic-edges.ts';
import { scaleOf } from '../render/traffic-scale.ts';
import type { Topology } from '../render/types.ts';
import type { VersionedCollection } from '../resources/collection.ts';
import type { StoredMap } from '../resources/types.ts';
import type { MapConfiguration } from '../schema/map.ts';
import type { TrafficBinding } from '../schema/traffic.ts';
import { durationSeconds } from '../traffic/duration.ts';
import { Flights } from '../traffic/flight.ts';
import type { BoundLayer, LiveTraffic, MapTraffic, Timing } from '../traffic/live.ts';
import { notModified } from '../http/conditional.ts';
import { declarer, json, ok, queryParam, rendered, type Operation } from '../http/operation.ts';
import { plainResponse } from '../http/plain-response.ts';
import type { RouteDeps } from './index.ts';

export interface TrafficAsked {
  /** Unix seconds; absent: now. */
  at?: number;
  range?: { seconds: number; stat: 'max' | 'p95'; text: string };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/;
/** The longest `?range=`: a week of subquery steps is still one request. */
const MAX_RANGE_SECONDS = 7 * 86_400;

/** `?at=` (RFC 3339 or unix seconds), `?range=` (a duration up to 7d) and `?stat=` (max or p95, with a range); 400 when malformed. */
export function parseTrafficQuery({ at, range, stat }: { at?: string; range?: string; stat?: 'max' | 'p95' }, nowMs: number): TrafficAsked {
  const asked: TrafficAsked = {};
  if (at) {
    const seconds = /^\d{1,11}(\.\d{1,3})?$/.test(at) ? Number(at) : RFC3339.test(at) ? Date.parse(at.replace(' ', 'T')) / 1000 : NaN;
    if (!Number.isFinite(seconds)) throw badRequest('query parameter at must be an instant: RFC 3339 (2026-11-28T20:00:00Z) or unix seconds', [{ path: 'at', message: 'expected RFC 3339 or unix seconds' }]);
    if (seconds > nowMs / 1000 + 60) throw badRequest('query parameter at is in the future: traffic is known up to now', [{ path: 'at', message: 'expected an instant up to now' }]);
    asked.at = Math.floor(seconds);
  }
  if (stat && !range) throw badRequest('query parameter stat needs range (the window it is taken over), such as ?range=1h&stat=p95', [{ path: 'stat', message: 'given without range' }]);
  if (range) {
    const seconds = durationSeconds(range);
    if (seconds === undefined || seconds < 60 || seconds > MAX_RANGE_SECONDS) throw badRequest('query parameter range must be a duration from 1m to 7d, such as 1h', [{ path: 'range', message: 'expected a duration such as 1h' }]);
    asked.range = { seconds, stat: stat === 'p95' ? 'p95' : 'max', text: range };
  }
  return asked;
}

/** The fields versionAt judges versions on. */
const JUDGED_ON = ['lastUpdatedOn', 'public', 'deleted'];

/** The version of a map that was current at `at` (unix seconds); with `publicOnly`, the newest stored public by then. 404 before the map existed. */
export async function versionAt(col: VersionedCollection<StoredMap>, id: string, at: number, publicOnly: boolean): Promise<StoredMap> {
  const numbers = col.versionNumbers(id);
  const atMs = at * 1000;
  // Judged on the versions' outlines (the store's short fields of each), so an anonymous `?at=` on a public map reads
  // one version however long its history; a version without a usable outline is read.
  const outlines = await col.store.outlines(col.descriptor.collection, id);
  const stamps = async (i: number): Promise<{ lastUpdatedOn: string; public?: boolean; deleted?: boolean }> => {
    const outline = outlines.get(numbers[i]);
    if (outline && !JUDGED_ON.some((field) => outline.omitted.includes(field))) return outline.fields as never;
    return col.anyVersion(id, numbers[i]);
  };
  // Versions are stamped in order: the last one stamped by then.
  let lo = 0, hi = numbers.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (Date.parse((await stamps(mid)).lastUpdatedOn) <= atMs) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  for (let i = found; i >= 0; i--) {
    const version = await stamps(i);
    if (version.deleted === true) break;
    if (!publicOnly || version.public === true) return col.anyVersion(id, numbers[i]) as Promise<StoredMap>;
  }
  throw notFound(`map ${id} had no ${publicOnly ? 'public ' : ''}version at ${new Date(atMs).toISOString()}`);
}

/** The layers of a stored map that bind traffic. */
function bindings(version: StoredMap): { index: number; binding: TrafficBinding }[] {
  const layers = version.configuration?.layers ?? [];
  return layers.flatMap((l, index) => (l?.traffic ? [{ index, binding: l.traffic }] : []));
}

/** What the picture and rows routes need of a resolved map. */
export interface Resolved {
  stored: { name?: string; configuration?: MapConfiguration };
  topologies: Array<Topology | null>;
}

/** Picture or PNG bytes as the pool answers them (moved from the render thread, in a buffer of their own: not copied again). */
const toBytes = (drawn: string | Uint8Array): Uint8Array<ArrayBuffer> => (typeof drawn === 'string' ? new TextEncoder().encode(drawn)
  : drawn.buffer instanceof ArrayBuffer ? (drawn as Uint8Array<ArrayBuffer>) : new Uint8Array(drawn));

interface Kept { body: Uint8Array<ArrayBuffer>; etag: string; until: number; headers: Readonly<Record<string, string>> }

const tag = (key: string, failed: boolean) => `"t${createHash('sha256').update(key).digest('base64url').slice(0, 24)}${failed ? '-f' : ''}"`;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

function footer(version: StoredMap, traffic: MapTraffic, asked: TrafficAsked): string[] {
  const when = asked.range ? `Busiest ${asked.range.text} (${asked.range.stat}) to ${iso(traffic.at)}` : `Traffic at ${iso(traffic.at)}`;
  const sources = traffic.sources.map((s) => (s.kind === 'synthetic' ? `${s.name} (synthetic traffic, not measured)` : s.name));
  return [when, `map version ${version.version} · source ${sources.join(', ') || 'none'}`];
}

/** What traffic pictures need of the service: the render pool (output/send.ts's), and the output cache's observers. */
interface TrafficOutputOptions {
  live: LiveTraffic;
  png: PngLimits;
  now: () => Date;
  /** Draws a picture or a PNG on the render pool, for the request's caller. */
  draw: (job: Job, c: Context) => Promise<string | Uint8Array>;
  /** Throws the pool's 503 when it would refuse the request's caller now. */
  admit: (c: Context) => void;
  /** Called once per picture drawn (tests count renders). */
  onRender?: (key: string) => void;
  observe?: OutputObserver;
}

export function trafficOutput(o: TrafficOutputOptions) {
  // Pictures of a few hundred KiB each: a few dozen kept (maps, sizes and instants together).
  const kept = new Flights<Kept>(() => o.now().getTime(), 64);
  const bound = (r: Resolved, version: StoredMap): BoundLayer[] =>
    bindings(version).flatMap(({ index, binding }) => { const t = r.topologies[index]; return t ? [{ index, binding, topology: t }] : []; });
  const mapKey = (version: StoredMap) => `${version.mapId}\n${version.version}`;

  const answer = (c: Context, out: Kept, cacheScope: string) => {
    const validators = { ETag: out.etag, 'Cache-Control': `${cacheScope}, max-age=${Math.max(0, Math.ceil((out.until - o.now().getTime()) / 1000))}` };
    if (notModified(c, out.etag)) return plainResponse(null, 304, validators);
    return plainResponse(out.body, 200, { ...out.headers, ...validators });
  };
  /** Sends what is kept under `key` (made by `make` once per bucket), with its validators; at once when it is kept. */
  const send = (c: Context, key: string, timing: Timing, cacheScope: string, make: () => Promise<Omit<Kept, 'etag'> & { failed: boolean }>) => {
    const ready = kept.peek(key);
    if (ready) {
      o.observe?.answered(key, true, ready.body.byteLength);
      return answer(c, ready, cacheScope);
    }
    let drawn = false;
    return kept.get(key, timing.until, async () => {
      drawn = true;
      const made = await make();
      // A failure is kept only briefly: the next viewer after that asks the source again.
      kept.shorten(key, made.until);
      return { ...made, etag: tag(key, made.failed) };
    }).then((out) => {
      o.observe?.answered(key, !drawn, out.body.byteLength);
      return answer(c, out, cacheScope);
    }, (e) => { kept.shorten(key, 0); throw e; });
  };

  return {
    /** Whether a map version's pictures are traffic pictures. */
    isBound: (version: StoredMap) => bindings(version).length > 0,

    picture(c: Context, format: 'svg' | 'png', version: StoredMap, size: { width?: number; height?: number }, sizeKey: string,
      asked: TrafficAsked, resolve: () => Promise<Resolved>, cacheScope: string) {
      const timing = o.live.timing(bindings(version).map((b) => b), asked.at, asked.range);
      const key = `${format}\n${mapKey(version)}\n${timing.bucket}\n${sizeKey}`;
      return send(c, key, timing, cacheScope, async () => {
        o.admit(c); // a caller the pool would refuse is refused before the map and its traffic are read
        const r = await resolve();
        const traffic = await o.live.read(mapKey(version), bound(r, version), timing);
        const bands = scaleOf(r.stored.configuration?.trafficScale);
        const layers = new Map<number, LayerTraffic>([...traffic.layers].map(([i, l]) => [i, { circuits: l.circuits, bands }]));
        const banner = traffic.failures.length > 0 ? `Traffic unavailable, circuits shown grey: ${traffic.failures.join('; ')}` : undefined;
        // Drawn on the render pool, within its budgets, as every other picture (pool/pool.ts).
        const started = performance.now();
        const job: Job = { kind: 'map', map: r.stored, topologies: r.topologies, size, traffic: { layers, frame: { bands, footer: footer(version, traffic, asked), banner } } };
        // The SVG's bytes as the pool answers them, sent as they are or rasterized (its size checked there).
        const svg = toBytes(await o.draw(job, c));
        const body = format === 'svg' ? svg : toBytes(await o.draw({ kind: 'png', svg, limits: o.png }, c));
        o.onRender?.(key);
        o.observe?.rendered(key, (performance.now() - started) / 1000);
        return { body, until: traffic.until, failed: traffic.failures.length > 0, headers: format === 'svg' ? SVG_RESPONSE_HEADERS : PNG_RESPONSE_HEADERS };
      });
    },

    rows(c: Context, version: StoredMap, asked: TrafficAsked, resolve: () => Promise<Resolved>, cacheScope: string) {
      const timing = o.live.timing(bindings(version), asked.at, asked.range);
      return send(c, `rows\n${mapKey(version)}\n${timing.bucket}`, timing, cacheScope, async () => {
        const r = await resolve();
        const traffic = await o.live.read(mapKey(version), bound(r, version), timing);
        const layerName = (i: number) => r.stored.configuration?.layers?.[i]?.name ?? `Layer ${i + 1}`;
        const rows = [...traffic.layers].flatMap(([i, l]) => l.bound.map((b) => {
          const t = l.circuits.get(b.edge);
          const cap = t?.capacityAtoZ === t?.capacityZtoA ? t?.capacityAtoZ : undefined;
          return {
            src: b.src, dst: b.dst, aToZ: t?.aToZ ?? null, zToA: t?.zToA ?? null,
            // The map component's default traffic fields: `in` colours the half at A (A→Z), `out` the half at Z.
            in: t?.aToZ ?? null, out: t?.zToA ?? null,
            edge: b.edge, layer: layerName(i), capacity: cap ?? null, capacityAtoZ: t?.capacityAtoZ ?? null, capacityZtoA: t?.capacityZtoA ?? null,
            status: t?.status ?? 'nodata', at: iso(traffic.at), source: l.source,
          };
        }));
        const body = new TextEncoder().encode(JSON.stringify(traffic.failures.length > 0 ? rows.map((row) => ({ ...row, failure: traffic.failures.join('; ') })) : rows));
        return { body, until: traffic.until, failed: traffic.failures.length > 0, headers: { 'Content-Type': 'application/json' } };
      });
    },
  };
}

export type TrafficOutput = ReturnType<typeof trafficOutput>;

const SourceSchema = v.looseObject({ name: v.string(), kind: v.picklist(['prometheus', 'synthetic']), status: v.picklist(['ok', 'failing']), detail: v.optional(v.string()) });
const route = declarer<RouteDeps>();

/** GET /api/v1/traffic/sources/: each source as the settings describe it (never a credential) and its health now. */
export const TRAFFIC_OPERATIONS: Operation<RouteDeps>[] = [
  route({ method: 'get', path: '/api/v1/traffic/sources/', tag: 'traffic', summary: 'Metrics sources of live traffic, with their health', description: 'Each source of `metrics.sources` and the built-in `demo`: its kind, URL (without credentials), job, window, step and timeout, and whether it answers now.', scope: 'read',
    answers: { 200: ok('the sources', SourceSchema, { list: true }) },
    handle: ({ traffic }) => async (c) => {
      const list = await Promise.all([...traffic.sources.values()].map(async (s) => ({ name: s.name, kind: s.kind, ...s.describe(), ...(await s.health()) })));
      return c.json(list);
    } }),
];

/** The query parameters of bound maps' pictures and rows (docs/traffic.md: Time travel); empty counts as absent, as on every output route. */
export const TRAFFIC_QUERY = [
  queryParam({ name: 'at', schema: v.pipe(v.string(), v.description('an instant, RFC 3339 or unix seconds: the map version current then, with the traffic of then')), blankIsAbsent: true }),
  queryParam({ name: 'range', schema: v.pipe(v.string(), v.description('a window ending at `at` (default now), 1m to 7d, such as 1h: the busiest values over it')), blankIsAbsent: true }),
  queryParam({ name: 'stat', schema: v.pipe(v.picklist(['max', 'p95'], 'expected max or p95'), v.description('with range: the maximum (default) or the 95th percentile')), blankIsAbsent: true }),
];
export const TRAFFIC_PICTURE = 'A map with a layer bound to traffic is drawn with each bound circuit\'s live utilisation (docs/traffic.md); its ETag names the step bucket and Cache-Control gives the seconds left in it.';
export const TRAFFIC_ROWS = 'One row per bound circuit: src and dst (its A and Z names), aToZ and zToA in bits/s, in (= aToZ) and out (= zToA) as the map component\'s default traffic fields read them, edge, layer, capacity, status (ok, down, stale, nodata) and at. `?at=`, `?range=&stat=` as for pictures.';
export const rowsAnswer = rendered(json('the rows'));
