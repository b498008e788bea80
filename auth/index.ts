// Assembles the authentication backend chosen in the settings and exposes
// what the routes need: a scope guard, the token issuer and the user directory.
import type { Settings } from '../config/settings.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/types.ts';
import { bootstrapAdmin } from './bootstrap.ts';
import { scopeGuard } from './middleware.ts';
import { loadSigningKey } from './signing-key.ts';
import { TokenService } from './tokens.ts';
import type { ScopeKind } from './types.ts';
import { UserDirectory } from './users.ts';

export interface AuthOptions {
  settings: Settings;
  store: Store;
  now: () => Date;
  log: Logger;
  /** First-start admin password (MTS_ADMIN_PASSWORD); random and printed when absent. */
  adminPassword?: string;
}

export async function createAuth(o: AuthOptions) {
  const scopes = o.settings.auth.scopes as Record<ScopeKind, string>;
  const users = new UserDirectory(o.store, o.now);
  await bootstrapAdmin(users, Object.values(scopes), o.adminPassword, o.log);
  const tokens = new TokenService({
    key: await loadSigningKey(o.store),
    issuer: o.settings.server.baseUrl,
    ttlSeconds: o.settings.auth.tokenTtlSeconds,
    users,
    now: o.now,
  });
  return {
    scopes,
    users,
    tokens,
    requireScope: scopeGuard((t) => tokens.verify(t), scopes),
  };
}

export type Auth = Awaited<ReturnType<typeof createAuth>>;
