// Live traffic of a map version (docs/traffic.md): the circuits each bound
// layer reaches, read from their sources at one instant (or the busiest over
// a range), one read per source shared by every render of that map version
// in that step bucket (flight.ts). A source that fails or times out gives
// every circuit it feeds `nodata`, a reason for the picture's banner, a
// short cache life and one log line; it never fails the render.
import type { Logger } from '../log.ts';
import type { Topology } from '../render/types.ts';
import type { TrafficBinding } from '../schema/traffic.ts';
import { bindCircuits, circuitTraffic, interfacesOf, type BoundCircuit } from './circuits.ts';
import { Flights } from './flight.ts';
import type { CircuitTraffic, ReadRequest, ReadResult, TrafficSource } from './types.ts';

/** How long a failed read (and the picture that shows it) is kept, at most: the next viewer tries again soon. */
const FAILURE_MAX_AGE = 10;
/** How long a picture of a past instant (`?at=`) is kept: its traffic no longer changes. */
const PAST_MAX_AGE = 3600;

export interface BoundLayer {
  index: number;
  binding: TrafficBinding;
  topology: Topology;
}

/** When a picture's traffic is measured and how long it holds: the step bucket of now, or the instant asked. */
export interface Timing {
  /** Unix seconds the traffic is read at. */
  at: number;
  /** Part of every cache key: the bucket, or the instant and window asked. */
  bucket: string;
  /** Unix ms until which the traffic (and its picture) holds. */
  until: number;
  range?: ReadRequest['range'];
}

export interface MapTraffic {
  at: number;
  layers: Map<number, { source: string; bound: BoundCircuit[]; circuits: Map<string, CircuitTraffic> }>;
  /** Why a source could not be read, one sentence each (the banner). */
  failures: string[];
  sources: TrafficSource[];
  /** Requests sent to sources for this answer (0 when it was shared). */
  requests: number;
  /** Unix ms until which the answer holds (shorter after a failure). */
  until: number;
}

/** Told each read of a source, and each that failed with a short reason (a source's own, else `other`); the metrics' (server.ts). */
interface TrafficObserver {
  queried(source: string): void;
  failed(source: string, reason: string): void;
}

export function createLiveTraffic(o: { sources: ReadonlyMap<string, TrafficSource>; now: () => Date; log: Logger; observe?: TrafficObserver }) {
  const flights = new Flights<ReadResult & { failure?: string }>(() => o.now().getTime());

  /** The sources a map's bound layers name (an unknown name was refused at save; one removed since reads as a failure). */
  const stepOf = (layers: readonly { binding: TrafficBinding }[]) =>
    Math.min(...layers.map((l) => o.sources.get(l.binding.source)?.stepSeconds ?? 60));

  return {
    sources: o.sources,

    /** The instant and bucket of a picture: `at` (unix seconds) asked, or now's step bucket. */
    timing(layers: readonly { binding: TrafficBinding }[], at: number | undefined, range?: ReadRequest['range']): Timing {
      const now = o.now().getTime();
      const step = stepOf(layers);
      const rangeKey = range ? `\n${range.seconds}\n${range.stat}` : '';
      if (at !== undefined) {
        // An instant asked is read at the start of its step, so that any number of instants cost the source
        // (and the picture cache) no more than one read per step. Long past, its traffic is settled; within
        // two steps of now, samples may still arrive.
        const start = Math.floor(at / step) * step;
        const settled = now / 1000 - start >= 2 * step;
        return { at: start, bucket: `at ${start}${rangeKey}`, until: now + (settled ? PAST_MAX_AGE : step) * 1000, range };
      }
      const bucket = Math.floor(now / 1000 / step);
      return { at: bucket * step, bucket: `bucket ${bucket}/${step}${rangeKey}`, until: (bucket + 1) * step * 1000, range };
    },

    /** The traffic of a map version's bound layers; `mapKey` names the version (map ID and number). */
    async read(mapKey: string, layers: readonly BoundLayer[], timing: Timing): Promise<MapTraffic> {
      const bySource = new Map<string, { layer: BoundLayer; bound: BoundCircuit[] }[]>();
      for (const layer of layers) {
        const list = bySource.get(layer.binding.source) ?? [];
        list.push({ layer, bound: bindCircuits(layer.binding, layer.topology.edges) });
        bySource.set(layer.binding.source, list);
      }
      const out: MapTraffic = { at: timing.at, layers: new Map(), failures: [], sources: [], requests: 0, until: timing.until };
      await Promise.all([...bySource].map(async ([name, list]) => {
        const source = o.sources.get(name);
        let result: ReadResult & { failure?: string };
        if (!source) result = { readings: new Map(), requests: 0, failure: `no metrics source named ${name} in the settings (metrics.sources)` };
        else {
          const key = `${mapKey}\n${name}\n${timing.bucket}`;
          let started = false;
          result = await flights.get(key, timing.until, () => {
            started = true;
            o.observe?.queried(name);
            return source.read(interfacesOf(list.flatMap((l) => l.bound)), { at: timing.at, range: timing.range })
              .catch((e: Error & { reason?: unknown }) => {
                o.observe?.failed(name, typeof e.reason === 'string' ? e.reason : 'other');
                return { readings: new Map(), requests: 0, failure: e.message };
              });
          });
          if (started) out.requests += result.requests;
          if (result.failure) {
            flights.shorten(key, o.now().getTime() + FAILURE_MAX_AGE * 1000);
            if (started) o.log.error('traffic source failed', { source: name, reason: result.failure });
          }
          out.sources.push(source);
        }
        if (result.failure) {
          out.failures.push(result.failure);
          out.until = Math.min(out.until, o.now().getTime() + FAILURE_MAX_AGE * 1000);
        }
        const step = source?.stepSeconds ?? 60;
        for (const { layer, bound } of list) {
          const circuits = new Map(bound.map((c) => [c.edge, circuitTraffic(c, result.readings, timing.at, step)]));
          out.layers.set(layer.index, { source: name, bound, circuits });
        }
      }));
      return out;
    },
  };
}

export type LiveTraffic = ReturnType<typeof createLiveTraffic>;
