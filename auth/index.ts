// Assembles the authentication backend chosen in the settings and exposes
// what the routes need: a scope guard, the login check, the token issuer,
// account management and, when auth.basic.acceptHttpBasic is on, HTTP Basic
// (basic backend), or the OIDC verifier and built-in provider.
import type { Context } from 'hono';
import type { Settings } from '../config/settings.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/types.ts';
import { Accounts } from './accounts.ts';
import { bootstrapAdmin, keepsLocalUsers } from './bootstrap.ts';
import { knownAddressKeeper } from './known-addresses.ts';
import { clientAddress } from './client-address.ts';
import { HttpBasic } from './http-basic.ts';
import { type LoginRefused, PasswordLogin } from './login.ts';
import { scopeGuard, type VerifyBasic, type VerifyToken } from './middleware.ts';
import { createOidc, type Oidc } from './oidc/index.ts';
import { loadSigningKey } from './signing-key.ts';
import { LoginThrottle } from './throttle.ts';
import { TokenService } from './tokens.ts';
import type { Principal, ScopeKind } from './types.ts';
import { UserDirectory } from './users.ts';

export interface AuthOptions {
  settings: Settings;
  store: Store;
  now: () => Date;
  /** The same clock in milliseconds, when reading it needs no Date (the service's own: Date.now); a token's expiry is checked on every request. */
  nowMs?: () => number;
  log: Logger;
  /** First-start admin password (MTS_ADMIN_PASSWORD); random and printed when absent. */
  adminPassword?: string;
  /** Leave the first-start admin to the caller (serve() creates it once listening: bootstrapAdminOf). */
  deferAdmin?: boolean;
  /** scrypt's log2 N for new password hashes (default 15; tests pass less to spend less time hashing). */
  passwordCost?: number;
  /** Told of every refused login (the log line and the metric). */
  onLoginRefused?: LoginRefused;
}

export async function createAuth(o: AuthOptions) {
  const { settings } = o;
  const scopes = settings.auth.scopes as Record<ScopeKind, string>;
  const backend = settings.auth.backend;
  const users = new UserDirectory(o.store, o.now, o.passwordCost);
  // Known addresses outlive a restart: in the shared counters of replicas, else in a document of the data folder.
  const keeper = o.store.counters ? undefined : knownAddressKeeper(o.store);
  const login = new PasswordLogin(users, new LoginThrottle(settings.auth.loginThrottle, o.store.counters, keeper), o.onLoginRefused);
  const localUsers = keepsLocalUsers(settings);
  if (localUsers && !o.deferAdmin) await bootstrapAdmin(users, Object.values(scopes), o.adminPassword, o.log, backend);

  const address = (c: Context) => clientAddress(c, settings.server.trustProxy);
  let verify: VerifyToken;
  let basic: VerifyBasic | undefined;
  let tokens: TokenService | undefined;
  let accounts: Accounts | undefined;
  let oidc: Oidc | undefined;
  if (backend === 'basic') {
    tokens = new TokenService({
      key: await loadSigningKey(o.store),
      issuer: settings.server.baseUrl,
      ttlSeconds: settings.auth.tokenTtlSeconds,
      users,
      now: o.now,
      nowMs: o.nowMs,
    });
    accounts = new Accounts(users, scopes);
    verify = (t) => tokens!.verify(t);
    if (settings.auth.basic.acceptHttpBasic) {
      const httpBasic = new HttpBasic({ users, login, cacheSeconds: settings.auth.basic.cacheSeconds, now: o.now, clientAddress: address });
      basic = (c, header) => httpBasic.authenticate(c, header);
    }
  } else {
    oidc = await createOidc({ settings, store: o.store, users, login, now: o.now, log: o.log, clientAddress: address });
    verify = oidc.verify;
    if (settings.auth.basic.acceptHttpBasic) o.log.info('auth.basic.acceptHttpBasic is ignored: HTTP Basic is accepted only with auth.backend basic');
  }

  return {
    backend,
    scopes,
    users,
    login,
    tokens,
    accounts,
    oidc,
    /** Whether API requests may carry Authorization: Basic. */
    acceptsHttpBasic: basic !== undefined,
    ...scopeGuard(verify, scopes, basic),
    clientAddress: address,
    /** The body of GET /api/v1/current_user/: who the token speaks for and what it may do. */
    currentUser: (p: Principal) => ({ username: p.username, name: p.name ?? p.username, email: p.email ?? '', scope: p.scopes }),
  };
}

export type Auth = Awaited<ReturnType<typeof createAuth>>;
