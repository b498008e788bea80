// A least-recently-used cache weighed in characters or bytes, over the
// lru-cache package: the older versions and results read on demand stay here
// for a while, so repeated reads of one old version cost no disk, while memory
// stays bounded by `budget`, not by the history; the output cache keeps its
// finished outputs the same way. A budget of 0 keeps nothing.
// With `idleMs`, an entry nobody asked for that long is dropped (lru-cache's
// ttl, renewed by every read, purged by its own unref'd timer): a cache filled
// by a burst of traffic empties once the service goes quiet, and the memory
// it held can go back to the system instead of staying at the burst's peak.
import { LRUCache } from 'lru-cache';

export interface LruOptions {
  /** Drop an entry not read or written for this long (ms); absent: kept until pushed out. */
  idleMs?: number;
  /** The clock idleMs is timed by (tests pin it); default performance.now. */
  clock?: { now(): number };
  /** Told each time an entry is dropped for being idle (the output cache asks for a collection: pool/memory.ts). */
  onIdleDrop?: () => void;
}

export class Lru<V> {
  /** Boxed: lru-cache keeps no null, and a stored blob may be JSON null. */
  private readonly items: LRUCache<string, { value: V }> | undefined;
  /** One entry may weigh a quarter of the budget: a single huge read must not push out everything else. */
  private readonly most: number;

  constructor(budget: number, options: LruOptions = {}) {
    this.most = budget / 4;
    const { onIdleDrop } = options;
    const idle = options.idleMs === undefined ? {} : {
      ttl: options.idleMs, ttlAutopurge: true, updateAgeOnGet: true, perf: options.clock,
      dispose: onIdleDrop && ((_v: unknown, _k: string, reason: string) => { if (reason === 'expire') onIdleDrop(); }),
    };
    // lru-cache needs a positive size.
    this.items = budget > 0 ? new LRUCache<string, { value: V }>({ maxSize: budget, ...idle }) : undefined;
  }

  get(key: string): V | undefined {
    return this.items?.get(key)?.value;
  }

  /** Whether a value of `weight` would be kept: a caller can skip making one that would not (a parse of a 70 MB blob). */
  keeps(weight: number): boolean {
    return this.items !== undefined && weight <= this.most;
  }

  /** Keeps `value` unless it alone weighs more than a quarter of the budget. */
  set(key: string, value: V, weight: number): void {
    if (weight > this.most) this.delete(key);
    // lru-cache weighs in positive whole numbers.
    else this.items?.set(key, { value }, { size: Math.max(1, Math.ceil(weight)) });
  }

  delete(key: string): void {
    this.items?.delete(key);
  }

  /** Entries kept (tests). */
  get size(): number {
    return this.items?.size ?? 0;
  }
}
