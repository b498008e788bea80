// Single flight with a deadline (docs/traffic.md: Cost): the first caller of
// a key starts the work, every caller until the key's deadline shares its
// promise (in flight or settled), so renders of one map in one step bucket
// cost the source one round trip. Bounded: beyond `max` keys the oldest go,
// and a key past its deadline is dropped by a timer (unref'd) even when
// nobody asks again: the pictures a load left behind (some hundred KiB each)
// are not held after it ends.

/** Least wait (ms) between two sweeps of expired keys. */
const MIN_SWEEP_MS = 1000;

export class Flights<T> {
  private readonly entries = new Map<string, { value: Promise<T>; until: number; settled?: T }>();
  private sweepTimer?: NodeJS.Timeout;
  private sweepAt = Infinity;
  constructor(private readonly now: () => number, private readonly max = 500) {}

  /** Keys kept (tests). */
  get size(): number {
    return this.entries.size;
  }

  /** The shared result of `key`, started with `make` unless one is kept until later than now; `until` is ms since the epoch. */
  get(key: string, until: number, make: () => Promise<T>): Promise<T> {
    const t = this.now();
    const kept = this.entries.get(key);
    if (kept && kept.until > t) return kept.value;
    if (kept) this.entries.delete(key);
    const value = make();
    const entry: { value: Promise<T>; until: number; settled?: T } = { value, until };
    value.then((v) => { entry.settled = v; }, () => undefined);
    this.entries.set(key, entry);
    this.sweepBy(until);
    if (this.entries.size > this.max) {
      for (const [k, e] of this.entries) {
        if (this.entries.size <= this.max) break;
        if (e.until <= t || k !== key) this.entries.delete(k);
      }
    }
    return value;
  }

  /** The result of `key` at once, when it is settled and kept until later than now. */
  peek(key: string): T | undefined {
    const kept = this.entries.get(key);
    return kept && kept.until > this.now() ? kept.settled : undefined;
  }

  /** Keeps `key` only until `until` (a failure is kept for a short time, not the whole bucket). */
  shorten(key: string, until: number): void {
    const kept = this.entries.get(key);
    if (kept && kept.until > until) {
      kept.until = until;
      this.sweepBy(until);
    }
  }

  /** Makes sure a sweep runs once `until` has passed. */
  private sweepBy(until: number): void {
    if (this.sweepTimer && this.sweepAt <= until) return;
    clearTimeout(this.sweepTimer);
    this.sweepAt = until;
    this.sweepTimer = setTimeout(() => this.sweep(), Math.max(MIN_SWEEP_MS, until - this.now()));
    this.sweepTimer.unref();
  }

  /** Drops the keys past their deadline; the next sweep waits for the earliest deadline left. */
  private sweep(): void {
    this.sweepTimer = undefined;
    this.sweepAt = Infinity;
    const t = this.now();
    let next = Infinity;
    for (const [key, e] of this.entries) {
      if (e.until <= t) this.entries.delete(key);
      else next = Math.min(next, e.until);
    }
    if (next < Infinity) this.sweepBy(next);
  }
}
