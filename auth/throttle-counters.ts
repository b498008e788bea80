// The login throttle's failure counts (auth/throttle.ts): per key, in a
// window that resets, on this replica and, with a shared store, on all of
// them (the store's shared counters, read before an attempt and added to
// after a failure).
import type { SharedCount, SharedCounters } from '../store/types.ts';
interface Window {
  failures: number;
  /** Epoch ms. */
  resetAt: number;
}

/** How long an attempt waits for the shared counts before it is judged on this replica's alone. */
const SHARED_WAIT_MS = 500;
/** Shared counts remembered between attempts; beyond, the ended ones are dropped (all, if that is not enough). */
const SHARED_SEEN = 50_000;

/** This replica's view of the shared counters: read before an attempt, added to after a failure. */
export class SharedFailures {
  private seen = new Map<string, SharedCount>();

  constructor(private counters: SharedCounters) {}

  count(key: string, now: number): SharedCount | undefined {
    const c = this.seen.get(key);
    return c && c.resetAt > now ? c : undefined;
  }

  async refresh(keys: string[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), SHARED_WAIT_MS); });
    try {
      const got = await Promise.race([this.counters.get(keys), late]);
      if (!got) return;
      for (const key of keys) this.remember(key, got.get(key));
    } catch {
      // The store out of reach: judged on this replica's counts.
    } finally {
      clearTimeout(timer);
    }
  }

  failed(key: string, windowMs: number, then?: (c: SharedCount) => void) {
    this.counters.add(key, 1, windowMs).then((c) => {
      this.remember(key, c);
      then?.(c);
    }, () => undefined);
  }

  /** Marks a key for `windowMs` from now, for every replica (a window started again: renewed, not extended from the first mark). */
  mark(key: string, windowMs: number) {
    this.seen.set(key, { count: 1, resetAt: Date.now() + windowMs });
    this.counters.clear(key).then(() => this.counters.add(key, 1, windowMs)).then((c) => this.remember(key, c), () => undefined);
  }

  clear(key: string) {
    this.seen.delete(key);
    this.counters.clear(key).catch(() => undefined);
  }

  private remember(key: string, c: SharedCount | undefined) {
    if (!c) return void this.seen.delete(key);
    if (this.seen.size >= SHARED_SEEN) {
      const now = Date.now();
      for (const [k, old] of this.seen) if (old.resetAt <= now) this.seen.delete(k);
      if (this.seen.size >= SHARED_SEEN) this.seen.clear();
    }
    this.seen.set(key, c);
  }
}

/** Failures per key in fixed windows; a key's window starts with its first failure. Synchronous, so checks and counts never interleave. */
export class FailureCounter {
  private windows = new Map<string, Window>();
  private nextSweep = 0;

  constructor(readonly limit: number, private windowMs: number, private shared?: SharedFailures, private name = '') {}

  /** The key's name among the shared counters (encoded: a database's text holds no NUL, and pair keys have one). */
  sharedKey(key: string) {
    return `${this.name}:${encodeURIComponent(key)}`;
  }

  private live(key: string, now: number): Window | undefined {
    const w = this.windows.get(key);
    if (w && w.resetAt > now) return w;
    if (w) this.windows.delete(key);
    return undefined;
  }

  /** Milliseconds until the key may fail again; 0 when it may now. */
  blockedFor(key: string, now: number): number {
    const w = this.live(key, now);
    const local = w && w.failures >= this.limit ? w.resetAt - now : 0;
    const s = this.shared?.count(this.sharedKey(key), now);
    return Math.max(local, s && s.count >= this.limit ? s.resetAt - now : 0);
  }

  /** A failure that ended as one: counted for every replica; `then` hears the shared count. */
  shareFailure(key: string, then?: (c: SharedCount) => void) {
    this.shared?.failed(this.sharedKey(key), this.windowMs, then);
  }

  /** A success cleared the key's count: cleared for every replica. */
  shareClear(key: string) {
    this.shared?.clear(this.sharedKey(key));
  }

  count(key: string, now: number): Window {
    this.sweep(now);
    let w = this.live(key, now);
    if (!w) this.windows.set(key, (w = { failures: 0, resetAt: now + this.windowMs }));
    w.failures++;
    return w;
  }

  /** Takes back one failure counted in `w`, unless its window has ended since. */
  giveBack(key: string, w: Window) {
    if (this.windows.get(key) !== w) return;
    if (--w.failures <= 0) this.windows.delete(key);
  }

  /** Lowers the key's count to at most `n`. */
  lowerTo(key: string, n: number, now: number) {
    const w = this.live(key, now);
    if (!w) return;
    w.failures = Math.min(w.failures, n);
    if (w.failures <= 0) this.windows.delete(key);
  }

  failures(key: string, now: number): number {
    return this.live(key, now)?.failures ?? 0;
  }

  /** Drops ended windows, at most once a window's length (memory holds the failures of at most two windows). */
  private sweep(now: number) {
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.windowMs;
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}

