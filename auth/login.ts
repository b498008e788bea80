// Checking a username and password, for the token endpoint, HTTP Basic and the
// built-in provider's login form alike: throttled (auth/throttle.ts: failures
// per username and address, per username, per address, and a cap on password
// checks at once), and the same work and the same answer whether the username
// is unknown or the password is wrong.
import { dummyHash, passwordChecks } from './passwords.ts';
import type { LoginThrottle } from './throttle.ts';
import type { StoredUser, UserDirectory } from './users.ts';

export class PasswordLogin {
  constructor(private users: UserDirectory, private throttle: LoginThrottle) {}

  /**
   * The user, or undefined for a wrong username or password; throws 429 when throttled.
   * `known` (HTTP Basic's cache) may vouch for this password of the user as
   * stored now, which then costs no password hash; the throttle counts it all the same.
   */
  async attempt(username: string, password: string, address: string,
    known?: (user: StoredUser) => boolean): Promise<StoredUser | undefined> {
    await this.throttle.prepare(username, address); // what other replicas counted (a shared store)
    const attempt = this.throttle.begin(username, address); // counted as a failure unless it succeeds
    let found: StoredUser | undefined;
    try {
      const user = this.users.find(username);
      // An unknown user still costs one scrypt run, against a hash nobody's password matches.
      const hash = user?.passwordHash ?? (await dummyHash(this.users.passwordCost));
      const ok = (user !== undefined && known?.(user) === true)
        || await attempt.check(() => passwordChecks.verify(password, hash));
      if (user && ok) found = user;
    } finally {
      attempt.end(found !== undefined);
    }
    return found;
  }
}
