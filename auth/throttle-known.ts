// The addresses each username signed in from (auth/throttle.ts): a known
// pair is not held up by strangers' failures on the username; bounded, the
// oldest dropped first.

/** Known addresses remembered per username, and usernames with known addresses. */
export const KNOWN_PER_USER = 20;
const KNOWN_USERS = 10_000;

// Usernames longer than any valid one cannot exist; cutting them bounds the memory an attacker can fill.
export const userKey = (username: string) => username.slice(0, 80).toLowerCase();

/** Addresses each username signed in from, with when that stops counting; bounded, oldest dropped first. */
export class KnownAddresses {
  /** By username key; Map order is the order of last sign-in, oldest first (so are the inner maps). */
  private byUser = new Map<string, Map<string, number>>();

  constructor(private ttlMs: number) {}

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
    addresses.delete(address);
    while (addresses.size >= KNOWN_PER_USER) addresses.delete(addresses.keys().next().value!);
    addresses.set(address, now + this.ttlMs);
  }

  forget(user: string, address: string) {
    const addresses = this.byUser.get(user);
    if (!addresses?.delete(address)) return;
    if (!addresses.size) this.byUser.delete(user);
  }

  /** Addresses remembered for a username (for tests and diagnostics). */
  count(user: string): number {
    return this.byUser.get(userKey(user))?.size ?? 0;
  }

  get users(): number {
    return this.byUser.size;
  }
}
