// `Authorization: Basic` on API requests (auth.basic.acceptHttpBasic, basic
// backend only), for Terranova's editor in basic mode, which sends the user's
// credentials with every request. Credentials are decoded as RFC 7617 says
// (UTF-8, the first colon ends the user-id) and checked by PasswordLogin, so
// the token endpoint's throttle applies to every request, cached or not.
// Verified credentials are remembered for auth.basic.cacheSeconds under an
// HMAC of username and password with a key made at start and never stored, so
// a request does not cost a password hash; a remembered entry counts only
// while the account it was verified for exists with the same password version
// (checked on every hit), and a password change or deletion through the
// service forgets the account's entries at once. Only successes are kept.
import { createHmac, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { ServiceError } from '../errors.ts';
import type { PasswordLogin } from './login.ts';
import { basicAnd } from './middleware.ts';
import type { Principal } from './types.ts';
import type { StoredUser, UserDirectory } from './users.ts';

export interface HttpBasicOptions {
  users: UserDirectory;
  login: PasswordLogin;
  /** How long a verified password is remembered; 0 remembers nothing. */
  cacheSeconds: number;
  now: () => Date;
  clientAddress: (c: Context) => string;
  /** Most entries remembered at once; the oldest go first. */
  maxEntries?: number;
}

interface Remembered {
  userId: string;
  passwordVersion: number;
  /** Epoch milliseconds. */
  expires: number;
}

/** The token endpoint's field limits. */
const MAX_FIELD = 1024;
// RFC 7617 2: the user-id must not contain control characters (and so never the NUL of the cache key).
// (a control-character pattern on purpose: see biome.jsonc)
const CONTROL = /[\x00-\x1f\x7f]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const invalidCredentials = (why: string) =>
  new ServiceError('unauthorized', `invalid Basic credentials: ${why}`, {
    headers: { 'WWW-Authenticate': basicAnd('Bearer') },
  });

/** The user-id and password of an `Authorization: Basic` header; throws 401 for anything malformed. */
function parseBasic(header: string): { username: string; password: string } {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!match) throw invalidCredentials('expected "Basic <base64 of user-id:password>"');
  const encoded = match[1];
  const bytes = Buffer.from(encoded, 'base64');
  // Node's decoder skips what it cannot read; only a canonical encoding of the bytes is accepted.
  if (bytes.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '') || (encoded.includes('=') && encoded.length % 4 !== 0)) {
    throw invalidCredentials('the credentials are not valid base64');
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidCredentials('the credentials are not valid UTF-8');
  }
  const colon = text.indexOf(':');
  if (colon < 0) throw invalidCredentials('expected user-id:password');
  const username = text.slice(0, colon);
  const password = text.slice(colon + 1);
  if (!username || CONTROL.test(username)) throw invalidCredentials('the user-id is empty or has control characters');
  if (!password) throw invalidCredentials('the password is empty');
  if (username.length > MAX_FIELD || password.length > MAX_FIELD) throw invalidCredentials(`user-id and password are at most ${MAX_FIELD} characters`);
  return { username, password };
}

export class HttpBasic {
  /** Made at start and kept in memory only: the cache keys say nothing about passwords outside this process. */
  private readonly key = randomBytes(32);
  /** By HMAC key; Map order is insertion order, so the first entry is the oldest. */
  private readonly remembered = new Map<string, Remembered>();
  /** Checks in flight, by client address and HMAC key: parallel requests with the same credentials share one. */
  private readonly pending = new Map<string, Promise<StoredUser | undefined>>();
  private readonly maxEntries: number;

  constructor(private o: HttpBasicOptions) {
    this.maxEntries = o.maxEntries ?? 10_000;
    o.users.onCredentialsChange((userId) => this.forget(userId));
  }

  /** The principal of a request carrying `Authorization: Basic …` (all of the user's scopes); 401 or 429 otherwise. */
  async authenticate(c: Context, header: string): Promise<Principal> {
    const { username, password } = parseBasic(header);
    const address = this.o.clientAddress(c);
    const key = createHmac('sha256', this.key).update(username).update('\0').update(password).digest('base64');
    // Same address, same credentials, same moment: one throttled attempt and one password check for all of them.
    // Never across addresses, which would let an address the throttle blocks ride on another's check.
    const inFlight = `${address}\0${key}`;
    let check = this.pending.get(inFlight);
    if (!check) {
      check = this.check(username, password, address, key).finally(() => this.pending.delete(inFlight));
      this.pending.set(inFlight, check);
    }
    const user = await check;
    if (!user) throw invalidCredentials('wrong username or password');
    return { username: user.username, name: user.name, email: user.email, scopes: [...user.scope] };
  }

  /** PasswordLogin's throttled attempt, with a remembered success standing in for the password hash. */
  private async check(username: string, password: string, address: string, key: string) {
    let recalled = false;
    const user = await this.o.login.attempt(username, password, address, (found) => (recalled = this.recall(key, found)));
    // Counted from the password check: using an entry does not make it last longer.
    if (user && !recalled && this.o.cacheSeconds > 0) this.remember(key, user);
    return user;
  }

  /** Whether `key` was verified for this very account and password version, and not too long ago. */
  private recall(key: string, user: StoredUser): boolean {
    const entry = this.remembered.get(key);
    if (!entry) return false;
    if (entry.expires > this.o.now().getTime() && entry.userId === user.id && entry.passwordVersion === user.passwordVersion) return true;
    this.remembered.delete(key);
    return false;
  }

  private remember(key: string, user: StoredUser) {
    this.remembered.delete(key); // set again below, as the newest
    while (this.remembered.size >= this.maxEntries) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(key, {
      userId: user.id,
      passwordVersion: user.passwordVersion,
      expires: this.o.now().getTime() + this.o.cacheSeconds * 1000,
    });
  }

  /** Drops every remembered password of an account (its password changed, or it was deleted). */
  forget(userId: string) {
    for (const [key, entry] of this.remembered) if (entry.userId === userId) this.remembered.delete(key);
  }

  /** Entries remembered now (for tests and diagnostics). */
  get size() {
    return this.remembered.size;
  }
}
