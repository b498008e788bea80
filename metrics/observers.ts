// What feeds the metrics beyond HTTP: the store's writes, timed until
// durable, the output cache's answers and renders, the render pool's queue
// and refusals, and live traffic's source reads. Each is an observer handed
// to its subject at assembly (server.ts), so store/, output/, pool/ and
// traffic/ know nothing of Prometheus.
import type { Store } from '../store/types.ts';
import type { Metrics } from './registry.ts';

type Timed = 'update' | 'delete' | 'append' | 'put';
const TIMED: readonly Timed[] = ['update', 'delete', 'append', 'put'];

/** The store with its writes timed (reads untouched: the same functions, no wrapper on the fast path). */
export function timedWrites(store: Store, metrics: Metrics): Store {
  const timed: Store = { ...store };
  for (const operation of TIMED) {
    const write = store[operation] as (...args: unknown[]) => Promise<unknown>;
    (timed as unknown as Record<Timed, unknown>)[operation] = (...args: unknown[]) => {
      const stop = metrics.storeWrites.startTimer({ operation });
      return write.apply(store, args).finally(() => stop());
    };
  }
  return timed;
}

/** The output cache's observer: answers and bytes by kind (json, svg, png; the key's first line) and whether cached. */
export function outputObserver(metrics: Metrics) {
  const kindOf = (key: string) => key.slice(0, Math.max(0, key.indexOf('\n'))) || 'other';
  return {
    answered(key: string, hit: boolean, bytes: number) {
      const labels = { kind: kindOf(key), result: hit ? 'hit' : 'miss' };
      metrics.cacheAnswers.inc(labels);
      metrics.cacheBytes.inc(labels, bytes);
    },
    rendered(key: string, seconds: number) {
      metrics.renders.observe({ kind: kindOf(key) }, seconds);
    },
  };
}

/** The render pool's observer: its queue's length as it changes, and each job refused (busy: 503; budget: 422). */
export function renderPoolObserver(metrics: Metrics) {
  return {
    queued(length: number) {
      metrics.renderQueue.set(length);
    },
    rejected(reason: 'busy' | 'budget') {
      metrics.renderRejections.inc({ reason });
    },
  };
}

/** Live traffic's observer: each read of a source, and each that failed with a short reason. */
export function trafficObserver(metrics: Metrics) {
  return {
    queried(source: string) {
      metrics.trafficQueries.inc({ source });
    },
    failed(source: string, reason: string) {
      metrics.trafficErrors.inc({ source, reason });
    },
  };
}
