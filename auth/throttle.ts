// Throttling of failed logins (token endpoint and the built-in provider's
// login form): per username and per client address, at most maxFailures
// failures in a window; the attempt after that is 429 with Retry-After, even
// with the right password, until the window ends. rate-limiter-flexible's
// memory limiter keeps the counters (fixed windows, keys expire by themselves).
// An attempt counts as a failure from the moment it starts, before its slow
// password check: otherwise any number of guesses sent at once would all pass
// the check before the first failure was counted. A success gives its count
// back: it clears the username's counter, except for the attempts still in
// flight (a success must not readmit the guesses sent beside it), and returns
// the address's one point.
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { ServiceError } from '../errors.ts';

export interface ThrottleOptions {
  maxFailures: number;
  windowSeconds: number;
}

// Usernames longer than any valid one cannot exist; cutting them bounds the memory an attacker can fill.
const userKey = (username: string) => username.slice(0, 80).toLowerCase();

export class LoginThrottle {
  private byUser: RateLimiterMemory;
  private byAddress: RateLimiterMemory;
  /** Attempts begun and not yet ended, by username key. */
  private inFlight = new Map<string, number>();

  constructor(private o: ThrottleOptions) {
    const opts = { points: o.maxFailures, duration: o.windowSeconds };
    this.byUser = new RateLimiterMemory({ ...opts, keyPrefix: 'login-user' });
    this.byAddress = new RateLimiterMemory({ ...opts, keyPrefix: 'login-addr' });
  }

  /** Counts an attempt as a failure (until it ends as a success); throws 429, counting nothing, when either counter is used up. */
  async begin(username: string, address: string): Promise<void> {
    const key = userKey(username);
    const counted = await Promise.all([this.byUser.penalty(key, 1), this.byAddress.penalty(address, 1)]);
    const blocked = counted.filter((r) => r.consumedPoints > this.o.maxFailures);
    if (!blocked.length) {
      this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
      return;
    }
    await Promise.all([this.byUser.reward(key, 1), this.byAddress.reward(address, 1)]);
    const retryAfter = Math.max(1, Math.ceil(Math.max(...blocked.map((r) => r.msBeforeNext)) / 1000));
    throw new ServiceError('rate_limited', `too many failed login attempts; try again in ${retryAfter} s`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }

  /** Ends an attempt that `begin` let through: a failure stays counted; a success gives the counts back (see the header). */
  async end(username: string, address: string, success: boolean): Promise<void> {
    const key = userKey(username);
    const others = (this.inFlight.get(key) ?? 1) - 1;
    if (others > 0) this.inFlight.set(key, others);
    else this.inFlight.delete(key);
    if (!success) return;
    await Promise.all([
      others > 0 ? this.byUser.set(key, others, this.o.windowSeconds) : this.byUser.delete(key),
      this.byAddress.reward(address, 1),
    ]);
  }
}
