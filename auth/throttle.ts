// Throttling of failed logins (token endpoint and the built-in provider's
// login form): per username and per client address, at most maxFailures
// failures in a window; the attempt after that is 429 with Retry-After, even
// with the right password, until the window ends. rate-limiter-flexible's
// memory limiter keeps the counters (fixed windows, keys expire by themselves);
// a success clears the username's counter, never the address's.
import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
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

  constructor(private o: ThrottleOptions) {
    const opts = { points: o.maxFailures, duration: o.windowSeconds };
    this.byUser = new RateLimiterMemory({ ...opts, keyPrefix: 'login-user' });
    this.byAddress = new RateLimiterMemory({ ...opts, keyPrefix: 'login-addr' });
  }

  /** Throws 429 when the username or the address has used up its failures. */
  async check(username: string, address: string): Promise<void> {
    const [user, addr] = await Promise.all([this.byUser.get(userKey(username)), this.byAddress.get(address)]);
    const blocked = [user, addr].filter((r): r is RateLimiterRes => !!r && r.consumedPoints >= this.o.maxFailures);
    if (!blocked.length) return;
    const retryAfter = Math.max(1, Math.ceil(Math.max(...blocked.map((r) => r.msBeforeNext)) / 1000));
    throw new ServiceError('rate_limited', `too many failed login attempts; try again in ${retryAfter} s`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }

  async failed(username: string, address: string): Promise<void> {
    await Promise.all([this.byUser.penalty(userKey(username), 1), this.byAddress.penalty(address, 1)]);
  }

  async succeeded(username: string): Promise<void> {
    await this.byUser.delete(userKey(username));
  }
}
