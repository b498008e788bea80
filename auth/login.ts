// Checking a username and password, for the token endpoint, HTTP Basic and the
// built-in provider's login form alike: throttled (auth/throttle.ts: failures
// per username and address, per username, per address, and a cap on password
// checks at once), and the same work and the same answer whether the username
// is unknown or the password is wrong.
import { ServiceError } from '../errors.ts';
import { dummyHash, passwordChecks } from './passwords.ts';
import type { LoginThrottle } from './throttle.ts';
import type { StoredUser, UserDirectory } from './users.ts';

/** Told of every refused login (the log line fail2ban reads, and the metric): never the password. */
export type LoginRefused = (username: string, address: string, reason: 'wrong username or password' | 'throttled') => void;

export class PasswordLogin {
  constructor(private users: UserDirectory, private throttle: LoginThrottle, private refused: LoginRefused = () => undefined) {}

  /**
   * The user, or undefined for a wrong username or password; throws 429 when throttled.
   * `known` (HTTP Basic's cache) may vouch for this password of the user as
   * stored now, which then costs no password hash; the throttle counts it all the same.
   */
  async attempt(username: string, password: string, address: string,
    known?: (user: StoredUser) => boolean): Promise<StoredUser | undefined> {
    let attempt: ReturnType<LoginThrottle['begin']>;
    try {
      await this.throttle.prepare(username, address); // what other replicas counted (a shared store)
      attempt = this.throttle.begin(username, address); // counted as a failure unless it succeeds
    } catch (e) {
      if (throttled(e)) this.refused(username, address, 'throttled');
      throw e;
    }
    let found: StoredUser | undefined;
    try {
      const user = this.users.find(username);
      // An unknown user still costs one scrypt run, against a hash nobody's password matches.
      const hash = user?.passwordHash ?? (await dummyHash(this.users.passwordCost));
      const ok = (user !== undefined && known?.(user) === true)
        || await attempt.check(() => passwordChecks.verify(password, hash));
      if (user && ok) found = user;
    } catch (e) {
      // A check refused for lack of a slot (429) is a throttled login too.
      if (throttled(e)) this.refused(username, address, 'throttled');
      throw e;
    } finally {
      attempt.end(found !== undefined);
    }
    if (!found) this.refused(username, address, 'wrong username or password');
    return found;
  }
}

const throttled = (e: unknown) => e instanceof ServiceError && e.code === 'rate_limited';
