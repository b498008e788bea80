// Throttling of logins (token endpoint, HTTP Basic and the built-in provider's
// login form), after OWASP's authentication guidance: slow guessing down
// without letting strangers lock people out, and keep password checks from
// crowding out a real login.
//
// Three counters of failures, each in fixed windows:
// - per username and client address (the pair): maxFailures per windowSeconds.
//   Past it the pair gets 429 with Retry-After, the right password too. This
//   is the only limit an address can bring upon itself alone.
// - per username, over all addresses: perUsername.maxFailures per
//   perUsername.windowSeconds, a slower limit against guesses spread over many
//   addresses;
// - per address, over all usernames: perAddress.maxFailures per
//   perAddress.windowSeconds, against one address trying many usernames.
// The last two never block a known pair: an address from which that username
// signed in successfully within knownAddressDays (kept in memory and, with the
// data folder, in the store through a KnownKeeper so restarts forget no one:
// known-addresses.ts; at most
// KNOWN_PER_USER addresses a username and KNOWN_USERS usernames, oldest
// dropped first). A known pair that uses up its own limit is forgotten, so a
// stranger behind the user's address gets maxFailures guesses, not more.
//
// An attempt counts as a failure everywhere from the moment it starts, before
// its slow password check: otherwise any number of guesses sent at once would
// all pass before the first failure was counted. A success gives its own count
// back, clears the pair's count except for the pair's attempts still in flight
// (a success must not readmit the guesses sent beside it), and makes the pair
// known. Others' failures stand: a sign-in does not give an attack a new budget.
//
// Password checks (scrypt, on libuv's thread pool, which file I/O shares) run
// at most maxConcurrentChecks at once. One of those slots is kept for known
// pairs, which also wait in a queue of their own served first: a known pair's
// check never waits behind a stranger's. Beyond maxQueuedChecks waiting, an
// attempt is answered 429 at once (Retry-After: 1) and counted nowhere.
//
// Replicas over a shared store (PostgreSQL) also share the three counters
// and the known addresses: each failure is added to the store's shared
// counters, a sign-in marks its pair known there (a count of 1 in a window of
// knownAddressDays, renewed at each sign-in, cleared when forgotten), and
// before judging an attempt the throttle reads what all replicas recorded
// (prepare()); a counter is used up when this replica's count or the shared
// one reaches its limit, and a pair is known when either says so. The store
// out of reach leaves each replica to its own. The cap on password checks at
// once stays per replica: it protects one machine's CPU.
import { ServiceError } from '../errors.ts';
import type { SharedCount, SharedCounters } from '../store/types.ts';

export interface ThrottleOptions {
  /** Per username and address pair. */
  maxFailures: number;
  windowSeconds: number;
  perUsername?: { maxFailures?: number; windowSeconds?: number };
  perAddress?: { maxFailures?: number; windowSeconds?: number };
  /** How long a successful sign-in makes its address known for that username. */
  knownAddressDays?: number;
  /** Password checks at once (at least 2: one is kept for known pairs). */
  maxConcurrentChecks?: number;
  /** Checks waiting for a slot, for strangers and for known pairs each; more are 429. */
  maxQueuedChecks?: number;
}

export const THROTTLE_DEFAULTS = {
  perUsername: { maxFailures: 50, windowSeconds: 3600 },
  perAddress: { maxFailures: 30, windowSeconds: 600 },
  knownAddressDays: 30,
  maxConcurrentChecks: 2,
  maxQueuedChecks: 8,
} as const;

/** Known addresses remembered per username, and usernames with known addresses. */
export const KNOWN_PER_USER = 20;
const KNOWN_USERS = 10_000;

// Usernames longer than any valid one cannot exist; cutting them bounds the memory an attacker can fill.
const userKey = (username: string) => username.slice(0, 80).toLowerCase();
const pairKey = (user: string, address: string) => `${user}\0${address}`;
/** A known pair's name among the shared counters (encoded: a database's text holds no NUL). */
const knownKey = (pair: string) => `known:${encodeURIComponent(pair)}`;

const rateLimited = (detail: string, retryAfter: number) =>
  new ServiceError('rate_limited', `${detail}; try again in ${retryAfter} s`, { headers: { 'Retry-After': String(retryAfter) } });

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
class SharedFailures {
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
class FailureCounter {
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

/** Known pairs as kept: by username key, each address with when it stops counting (epoch ms), oldest first. */
export type KnownSnapshot = Record<string, Record<string, number>>;

/** Where known pairs are kept across restarts: those kept at start, and a call with every change. */
export interface KnownKeeper {
  initial?: KnownSnapshot;
  changed(known: KnownSnapshot): void;
}

/** A renewal moves a pair's end by this much before it is kept again (a sign-in a second is no write a second). */
const KEEP_RENEWAL_MS = 86_400_000;

/** Addresses each username signed in from, with when that stops counting; bounded, oldest dropped first. */
class KnownAddresses {
  /** By username key; Map order is the order of last sign-in, oldest first (so are the inner maps). */
  private byUser = new Map<string, Map<string, number>>();

  constructor(private ttlMs: number, private keeper?: KnownKeeper) {
    const now = Date.now();
    for (const [user, addresses] of Object.entries(keeper?.initial ?? {})) {
      if (typeof addresses !== 'object' || addresses === null) continue;
      const live = Object.entries(addresses).filter(([, until]) => typeof until === 'number' && until > now).slice(-KNOWN_PER_USER);
      if (live.length && this.byUser.size < KNOWN_USERS) this.byUser.set(user, new Map(live));
    }
  }

  private keep() {
    if (!this.keeper) return;
    const known: KnownSnapshot = {};
    for (const [user, addresses] of this.byUser) known[user] = Object.fromEntries(addresses);
    this.keeper.changed(known);
  }

  has(user: string, address: string, now: number): boolean {
    const addresses = this.byUser.get(user);
    const until = addresses?.get(address);
    if (until === undefined) return false;
    if (until > now) return true;
    this.forget(user, address);
    return false;
  }

  add(user: string, address: string, now: number) {
    let addresses = this.byUser.get(user);
    this.byUser.delete(user); // set again below, as the newest
    if (!addresses) {
      addresses = new Map();
      while (this.byUser.size >= KNOWN_USERS) this.byUser.delete(this.byUser.keys().next().value!);
    }
    this.byUser.set(user, addresses);
    const before = addresses.get(address);
    addresses.delete(address);
    while (addresses.size >= KNOWN_PER_USER) addresses.delete(addresses.keys().next().value!);
    addresses.set(address, now + this.ttlMs);
    if (before === undefined || now + this.ttlMs - before >= KEEP_RENEWAL_MS) this.keep();
  }

  forget(user: string, address: string) {
    const addresses = this.byUser.get(user);
    if (!addresses?.delete(address)) return;
    if (!addresses.size) this.byUser.delete(user);
    this.keep();
  }

  /** Addresses remembered for a username (for tests and diagnostics). */
  count(user: string): number {
    return this.byUser.get(userKey(user))?.size ?? 0;
  }

  get users(): number {
    return this.byUser.size;
  }
}

type Release = () => void;

/** The cap on password checks at once: known pairs may take every slot, strangers all but one, and known pairs are served first. */
class CheckSlots {
  private running = 0;
  private strangersRunning = 0;
  private waiting = { known: [] as Release[], stranger: [] as Release[] };

  constructor(private max: number, private maxQueued: number) {}

  private free(known: boolean) {
    return this.running < this.max && (known || this.strangersRunning < this.max - 1);
  }

  private take(known: boolean) {
    this.running++;
    if (!known) this.strangersRunning++;
  }

  /** Resolves once a slot is this check's; throws 429 at once when the queue is full. */
  acquire(known: boolean): Promise<void> {
    const queue = known ? this.waiting.known : this.waiting.stranger;
    // Nobody passes those waiting in its own queue, and a stranger does not pass known pairs waiting either.
    const ahead = queue.length + (known ? 0 : this.waiting.known.length);
    if (!ahead && this.free(known)) {
      this.take(known);
      return Promise.resolve();
    }
    if (queue.length >= this.maxQueued) {
      return Promise.reject(rateLimited('too many logins are being checked at once', 1));
    }
    return new Promise((resolve) => queue.push(() => { this.take(known); resolve(); }));
  }

  release(known: boolean) {
    this.running--;
    if (!known) this.strangersRunning--;
    while (this.waiting.known.length && this.free(true)) this.waiting.known.shift()!();
    while (!this.waiting.known.length && this.waiting.stranger.length && this.free(false)) this.waiting.stranger.shift()!();
  }

  /** Checks running and waiting (for tests and diagnostics). */
  get load() {
    return { running: this.running, strangersRunning: this.strangersRunning,
      knownWaiting: this.waiting.known.length, strangersWaiting: this.waiting.stranger.length };
  }
}

/** One login attempt that `begin` let through; `end` it exactly once. */
export interface LoginAttempt {
  /** Whether this address signed this username in before (see the header). */
  readonly known: boolean;
  /** Runs the password check within the cap on checks at once; throws 429 when too many wait, and the attempt then counts nowhere. */
  check<T>(verify: () => Promise<T>): Promise<T>;
  /** A failure stays counted; a success gives back its count and makes the pair known; an attempt refused a check gives back all. */
  end(success: boolean): void;
}

export class LoginThrottle {
  private pair: FailureCounter;
  private user: FailureCounter;
  private address: FailureCounter;
  private slots: CheckSlots;
  readonly known: KnownAddresses;
  private knownMs: number;
  /** Attempts begun and not yet ended, by pair key. */
  private inFlight = new Map<string, number>();
  private shared?: SharedFailures;

  /** `counters`: the store's shared counters, when replicas share it; `keeper`: where known pairs outlive a restart. */
  constructor(o: ThrottleOptions, counters?: SharedCounters, keeper?: KnownKeeper) {
    const d = THROTTLE_DEFAULTS;
    const shared = counters && new SharedFailures(counters);
    this.shared = shared;
    this.pair = new FailureCounter(o.maxFailures, o.windowSeconds * 1000, shared, 'pair');
    this.user = new FailureCounter(o.perUsername?.maxFailures ?? d.perUsername.maxFailures,
      (o.perUsername?.windowSeconds ?? d.perUsername.windowSeconds) * 1000, shared, 'user');
    this.address = new FailureCounter(o.perAddress?.maxFailures ?? d.perAddress.maxFailures,
      (o.perAddress?.windowSeconds ?? d.perAddress.windowSeconds) * 1000, shared, 'address');
    this.knownMs = (o.knownAddressDays ?? d.knownAddressDays) * 86_400_000;
    this.known = new KnownAddresses(this.knownMs, keeper);
    this.slots = new CheckSlots(Math.max(2, o.maxConcurrentChecks ?? d.maxConcurrentChecks), o.maxQueuedChecks ?? d.maxQueuedChecks);
  }

  /** Reads what every replica counted for this attempt's keys (nothing to do without shared counters); call before begin(). */
  async prepare(username: string, address: string): Promise<void> {
    if (!this.shared) return;
    const user = userKey(username);
    const pair = pairKey(user, address);
    await this.shared.refresh([this.pair.sharedKey(pair), this.user.sharedKey(user), this.address.sharedKey(address), knownKey(pair)]);
  }

  /** Whether the pair signed in within knownAddressDays, on this replica or (a shared store) on any. */
  private isKnown(user: string, address: string, now: number): boolean {
    if (this.known.has(user, address, now)) return true;
    return (this.shared?.count(knownKey(pairKey(user, address)), now)?.count ?? 0) > 0;
  }

  private forgetKnown(user: string, address: string) {
    this.known.forget(user, address);
    this.shared?.clear(knownKey(pairKey(user, address)));
  }

  /** Counts an attempt as a failure (until it ends otherwise); throws 429, counting nothing, when a counter that applies is used up. */
  begin(username: string, address: string): LoginAttempt {
    const now = Date.now();
    const user = userKey(username);
    const pair = pairKey(user, address);
    const known = this.isKnown(user, address, now);
    const wait = Math.max(this.pair.blockedFor(pair, now),
      known ? 0 : this.user.blockedFor(user, now),
      known ? 0 : this.address.blockedFor(address, now));
    if (wait > 0) throw rateLimited('too many failed login attempts', Math.max(1, Math.ceil(wait / 1000)));

    const counted = [this.pair.count(pair, now), this.user.count(user, now), this.address.count(address, now)] as const;
    this.inFlight.set(pair, (this.inFlight.get(pair) ?? 0) + 1);
    let ended = false;
    let unchecked = false;
    return {
      known,
      check: async (verify) => {
        try {
          await this.slots.acquire(known);
        } catch (e) {
          unchecked = true;
          throw e;
        }
        try {
          return await verify();
        } finally {
          this.slots.release(known);
        }
      },
      end: (success) => {
        if (ended) return;
        ended = true;
        const others = (this.inFlight.get(pair) ?? 1) - 1;
        if (others > 0) this.inFlight.set(pair, others);
        else this.inFlight.delete(pair);
        const now = Date.now();
        if (unchecked || success) {
          this.pair.giveBack(pair, counted[0]);
          this.user.giveBack(user, counted[1]);
          this.address.giveBack(address, counted[2]);
        }
        if (unchecked) return;
        if (success) {
          this.pair.lowerTo(pair, others, now);
          this.pair.shareClear(pair);
          this.known.add(user, address, now);
          this.shared?.mark(knownKey(pair), this.knownMs);
          return;
        }
        // The pair's limit used up here or, counted by all replicas, there: no longer known anywhere.
        this.pair.shareFailure(pair, (c) => { if (c.count >= this.pair.limit) this.forgetKnown(user, address); });
        this.user.shareFailure(user);
        this.address.shareFailure(address);
        if (this.pair.failures(pair, now) >= this.pair.limit) this.forgetKnown(user, address);
      },
    };
  }

  /** Password checks running and waiting (for tests and diagnostics). */
  get checks() {
    return this.slots.load;
  }
}
