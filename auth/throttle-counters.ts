// The login throttle's failure counts (auth/throttle.ts): per key, in a
// window that resets, on this replica and, with a shared store, on all of
// them (the store's shared counters, read before an attempt and added to
// after a failure). Each shared write returns a promise that settles once
// the store has it (or could not take it), so an answer can wait for it;
// none rejects: the store out of reach leaves each replica to its own.
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

interface Owed {
  failures: number;
  /** Epoch ms: the window they were counted in ends. */
  until: number;
}

/** This replica's view of the shared counters: read before an attempt, added to after a failure. */
export class SharedFailures {
  private seen = new Map<string, SharedCount>();
  /** Failures the store could not take (out of reach), added with the key's next one while their window lasts. */
  private owed = new Map<string, Owed>();

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

  /** Adds a failure (and any owed) to the key's shared count; resolves with the count the store holds, or undefined when it could not. */
  async failed(key: string, windowMs: number): Promise<SharedCount | undefined> {
    const now = Date.now();
    const owed = this.owed.get(key);
    this.owed.delete(key);
    const failures = 1 + (owed && owed.until > now ? owed.failures : 0);
    try {
      const c = await this.counters.add(key, failures, windowMs);
      this.remember(key, c);
      return c;
    } catch {
      // Not lost: this replica counted it, and the key's next failure adds it for the others.
      this.trim(this.owed, Date.now(), (o) => o.until);
      const still = this.owed.get(key);
      this.owed.set(key, { failures: failures + (still?.failures ?? 0), until: now + windowMs });
      return undefined;
    }
  }

  /** Marks a key for `windowMs` from now, for every replica (a window started again: renewed, not extended from the first mark). */
  async mark(key: string, windowMs: number): Promise<void> {
    this.seen.set(key, { count: 1, resetAt: Date.now() + windowMs });
    try {
      await this.counters.clear(key);
      this.remember(key, await this.counters.add(key, 1, windowMs));
    } catch {
      // The store out of reach: known on this replica alone.
    }
  }

  async clear(key: string): Promise<void> {
    this.seen.delete(key);
    this.owed.delete(key);
    await this.counters.clear(key).catch(() => undefined);
  }

  private remember(key: string, c: SharedCount | undefined) {
    if (!c) return void this.seen.delete(key);
    this.trim(this.seen, Date.now(), (old) => old.resetAt);
    this.seen.set(key, c);
  }

  /** Keeps `map` under SHARED_SEEN entries: the ended ones dropped first, all if that is not enough. */
  private trim<T>(map: Map<string, T>, now: number, endsAt: (value: T) => number) {
    if (map.size < SHARED_SEEN) return;
    for (const [k, value] of map) if (endsAt(value) <= now) map.delete(k);
    if (map.size >= SHARED_SEEN) map.clear();
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

  /** A failure that ended as one: counted for every replica; resolves with the shared count once stored (undefined: none). */
  async shareFailure(key: string): Promise<SharedCount | undefined> {
    return this.shared?.failed(this.sharedKey(key), this.windowMs);
  }

  /** A success cleared the key's count: cleared for every replica; resolves once done. */
  async shareClear(key: string): Promise<void> {
    await this.shared?.clear(this.sharedKey(key));
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

