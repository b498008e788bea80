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
// data folder, in a private document so restarts forget no one:
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
// one reaches its limit, and a pair is known when either says so. A password
// check's verdict ends its attempt and is returned only once the store has
// what it changed, so the answer to a failed login follows its count (the
// next attempt, on any replica, sees it). The store out of reach leaves each
// replica to its own (a failure it could not take is added with the key's
// next one). The cap on password checks at once stays per replica: it
// protects one machine's CPU.
import { CheckSlots, rateLimited } from './throttle-slots.ts';
import { KNOWN_PER_USER, KnownAddresses, userKey, type KnownKeeper } from './throttle-known.ts';
import { FailureCounter, SharedFailures } from './throttle-counters.ts';
import type { SharedCounters } from '../store/types.ts';

export { KNOWN_PER_USER };

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

const pairKey = (user: string, address: string) => `${user}\0${address}`;
/** A known pair's name among the shared counters (encoded: a database's text holds no NUL). */
const knownKey = (pair: string) => `known:${encodeURIComponent(pair)}`;
const DONE: Promise<void> = Promise.resolve();

/** One login attempt that `begin` let through; `end` it exactly once. */
export interface LoginAttempt {
  /** Whether this address signed this username in before (see the header). */
  readonly known: boolean;
  /**
   * Runs the password check within the cap on checks at once, then ends the attempt with its verdict, resolving once
   * the shared counters hold it; throws 429 when too many wait, and the attempt then counts nowhere.
   */
  check(verify: () => Promise<boolean>): Promise<boolean>;
  /** Ends an attempt its check has not ended: a failure stays counted; a success gives back its count and makes the pair known; an attempt refused a check gives back all. */
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

  private forgetKnown(user: string, address: string): Promise<void> {
    this.known.forget(user, address);
    return this.shared ? this.shared.clear(knownKey(pairKey(user, address))) : DONE;
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
    /** Counts the attempt's outcome here and in the shared counters; resolves once those hold it. */
    const finish = (success: boolean): Promise<unknown> => {
      if (ended) return DONE;
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
      if (unchecked) return DONE;
      if (success) {
        this.pair.lowerTo(pair, others, now);
        this.known.add(user, address, now);
        return Promise.all([this.pair.shareClear(pair), this.shared?.mark(knownKey(pair), this.knownMs)]);
      }
      const forget = this.pair.failures(pair, now) >= this.pair.limit ? this.forgetKnown(user, address) : DONE;
      return Promise.all([
        // The pair's limit used up, counted by all replicas: no longer known anywhere.
        this.pair.shareFailure(pair).then((c) => (c && c.count >= this.pair.limit ? this.forgetKnown(user, address) : undefined)),
        this.user.shareFailure(user),
        this.address.shareFailure(address),
        forget,
      ]);
    };
    return {
      known,
      check: async (verify) => {
        try {
          await this.slots.acquire(known);
        } catch (e) {
          unchecked = true;
          throw e;
        }
        let verdict: boolean;
        try {
          verdict = await verify();
        } finally {
          this.slots.release(known); // the slot is the CPU's: not held while the store takes the counts
        }
        await finish(verdict);
        return verdict;
      },
      end: (success) => void finish(success),
    };
  }

  /** Password checks running and waiting (for tests and diagnostics). */
  get checks() {
    return this.slots.load;
  }
}
