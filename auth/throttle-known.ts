// The addresses each username signed in from (auth/throttle.ts): a known
// pair is not held up by strangers' failures on the username; bounded, the
// oldest dropped first. A KnownKeeper keeps them across restarts (with the
// data folder: auth/known-addresses.ts).

/** Known addresses remembered per username, and usernames with known addresses. */
export const KNOWN_PER_USER = 20;
const KNOWN_USERS = 10_000;

// Usernames longer than any valid one cannot exist; cutting them bounds the memory an attacker can fill.
export const userKey = (username: string) => username.slice(0, 80).toLowerCase();

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
export class KnownAddresses {
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
