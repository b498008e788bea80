// The OIDC backend (auth.backend: oidc). With issuer "builtin" the service
// runs its own provider under /oidc and verifies its tokens with the keys it
// holds; with an issuer URL it verifies tokens of that issuer (Keycloak,
// Authentik, ...) against the key set named by its discovery document, which
// is fetched on first use (the service starts even while the issuer is down).
import { createLocalJWKSet, createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type Provider from 'oidc-provider';
import { SettingsError, type Settings } from '../../config/settings.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../store/types.ts';
import type { PasswordLogin } from '../login.ts';
import type { VerifyToken } from '../middleware.ts';
import { invalidToken } from '../tokens.ts';
import type { Principal } from '../types.ts';
import type { UserDirectory } from '../users.ts';
import { loadOidcKeys, OIDC_SIGNING_ALG, publicJwks } from './keys.ts';
import { clientApiScopes } from './scopes.ts';
import { claimsIdentity, tokenScopes, unavailable, verifyJwt } from './verify.ts';
import type { Context } from 'hono';

export interface OidcOptions {
  settings: Settings;
  store: Store;
  users: UserDirectory;
  login: PasswordLogin;
  now: () => Date;
  log: Logger;
  clientAddress: (c: Context) => string;
}

export interface Oidc {
  issuer: string;
  audience: string;
  verify: VerifyToken;
  /** The /oidc sub-app (built-in provider only); mounted before the body limit. */
  routes?: ReturnType<typeof import('./routes.ts').oidcRoutes>;
}

export async function createOidc(o: OidcOptions): Promise<Oidc> {
  return o.settings.auth.oidc.issuer === 'builtin' ? builtin(o) : external(o);
}

/**
 * The provider, with every configured client checked now: oidc-provider
 * checks client metadata only when a client is first used, so a bad client
 * would otherwise fail at someone's sign-in.
 * Its complaint becomes a settings error naming the client.
 */
async function startProvider(create: () => Provider, settings: Settings): Promise<Provider> {
  const why = (e: unknown) => {
    const err = e as { error?: string; error_description?: string; message?: string };
    return err.error_description ?? err.message ?? String(e);
  };
  // Construction itself refuses only missing or repeated client_ids, which the settings schema already refuses.
  const provider = create();
  for (const c of settings.auth.oidc.clients) {
    try {
      await provider.Client.find(c.client_id);
    } catch (e) {
      throw new SettingsError(`auth.oidc.clients (${c.client_id}): ${why(e)}`);
    }
  }
  return provider;
}

async function builtin(o: OidcOptions): Promise<Oidc> {
  const { settings } = o;
  const issuer = `${settings.server.baseUrl}/oidc`;
  const audience = settings.auth.oidc.audience ?? settings.server.baseUrl;
  const keys = await loadOidcKeys(o.store);
  // Loaded only when used: oidc-provider warns about the runtime on import, which basic-backend users need not see.
  const { createProvider, redirectOrigins } = await import('./provider.ts');
  const { oidcRoutes } = await import('./routes.ts');
  const provider = await startProvider(() => createProvider({ settings, store: o.store, users: o.users, keys, issuer, audience }), settings);
  provider.on('server_error', (_ctx: unknown, err: Error) => o.log.error('oidc provider error', { message: err.message }));
  for (const c of settings.auth.oidc.clients) {
    const apiScopes = clientApiScopes(settings, c.client_id);
    if (!apiScopes.length) o.log.info(`oidc client ${c.client_id} has no API scope configured; its tokens will grant nothing`);
    const outside = c.default_scopes.split(/\s+/).filter((s) => s && !apiScopes.includes(s));
    if (outside.length) o.log.info(`oidc client ${c.client_id}: default_scopes ${outside.join(' ')} not in its scope; never granted`);
  }
  const corsOrigins = new Set(settings.auth.oidc.clients.flatMap((c) => [...redirectOrigins(c.redirect_uris)]));
  const local = createLocalJWKSet(publicJwks(keys));

  const principal = (p: JWTPayload): Principal => {
    const clientId = typeof p.client_id === 'string' ? p.client_id : '';
    const clientScopes = clientApiScopes(settings, clientId);
    const scopes = tokenScopes(p).filter((s) => clientScopes.includes(s));
    if (typeof p.pwv !== 'number') {
      // Client credentials: the client itself, while it is still configured.
      if (p.sub !== clientId || !settings.auth.oidc.clients.some((c) => c.client_id === clientId)) throw invalidToken('unknown client');
      const name = settings.auth.oidc.clients.find((c) => c.client_id === clientId)?.client_name ?? clientId;
      return { username: clientId, name, email: '', scopes };
    }
    const user = o.users.findById(p.sub!);
    if (!user) throw invalidToken('unknown user');
    if (user.passwordVersion !== p.pwv) throw invalidToken('token revoked by a password change');
    return { username: user.username, name: user.name, email: user.email, scopes: scopes.filter((s) => user.scope.includes(s)) };
  };

  return {
    issuer,
    audience,
    verify: async (token) => principal(await verifyJwt(token, { keys: local, issuer, audience, algorithms: [OIDC_SIGNING_ALG], typ: 'at+jwt', now: o.now })),
    routes: oidcRoutes({
      provider, users: o.users, login: o.login, audience, csrfSecret: keys.cookieKeys[0], clientAddress: o.clientAddress,
      issuer, trustProxy: settings.server.trustProxy, corsOrigins,
    }),
  };
}

/** Keys fetched over plain HTTP could be swapped by anyone on the path: only loopback may skip TLS. */
const secureEnough = (url: URL) => url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));

function external(o: OidcOptions): Oidc {
  const { settings } = o;
  const issuer = settings.auth.oidc.issuer;
  if (!secureEnough(new URL(issuer))) throw new Error(`auth.oidc.issuer must be an https URL (plain http only on localhost), got ${issuer}`);
  const audience = settings.auth.oidc.audience ?? settings.server.baseUrl;
  let jwks: JWTVerifyGetKey | undefined;
  let pending: Promise<JWTVerifyGetKey> | undefined;

  const discover = async (): Promise<JWTVerifyGetKey> => {
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let meta: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000), headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      meta = await res.json() as typeof meta;
    } catch (e) {
      throw unavailable(`the issuer's discovery document ${url} cannot be read (${(e as Error).message})`, e);
    }
    // OpenID Connect Discovery 1.0 §4.3: the document must name exactly the configured issuer.
    if (meta.issuer !== issuer) throw unavailable(`discovery at ${url} names issuer ${JSON.stringify(meta.issuer)}, not ${issuer}`);
    if (typeof meta.jwks_uri !== 'string' || !URL.canParse(meta.jwks_uri) || !secureEnough(new URL(meta.jwks_uri))) {
      throw unavailable(`discovery at ${url} has no https jwks_uri`);
    }
    o.log.info(`oidc: verifying tokens of ${issuer} with keys from ${meta.jwks_uri}`);
    // Cached; an unknown kid refetches, at most once per cooldown.
    return createRemoteJWKSet(new URL(meta.jwks_uri), {
      cooldownDuration: settings.auth.oidc.jwksCooldownSeconds * 1000,
      timeoutDuration: 5000,
    });
  };
  const keys: JWTVerifyGetKey = async (header, token) => {
    if (!jwks) {
      pending ??= discover().finally(() => { pending = undefined; });
      jwks = await pending;
    }
    return jwks(header, token);
  };

  return {
    issuer,
    audience,
    verify: async (token) => {
      const payload = await verifyJwt(token, { keys, issuer, audience, now: o.now });
      return { ...claimsIdentity(payload), scopes: tokenScopes(payload) };
    },
  };
}
