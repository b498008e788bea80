// The built-in OpenID provider (oidc-provider), issuer `<baseUrl>/oidc`:
// discovery, JWKS, authorization code with PKCE (S256, required for every
// client), client credentials, refresh tokens. Access tokens are JWTs for the
// API audience (a resource indicator defaulted for every request) and carry
// at most the scopes the client is configured for; the consent step further
// drops what the user does not hold. Accounts are the service's local users,
// addressed by their random account id.
// Browser apps: the token, revocation and userinfo endpoints answer CORS for
// the origins of the client's redirect URIs (and refuse a request from any
// other origin), and a client that asks for no API scope (only `openid`,
// say) is given its `default_scopes`, within its `scope`; the consent step
// keeps only what the user holds, as for scopes asked for. Redirect and
// post-logout redirect URIs may end in `*` (config/redirect-patterns.ts).
// First: oidc-provider checks the runtime when it is loaded (runtime-notice.ts).
import './runtime-notice.ts';
import Provider, { errors, type ClientMetadata, type Configuration } from 'oidc-provider';
import { SettingsError, type Settings } from '../../config/settings.ts';
import type { ScopeKind } from '../types.ts';
import { clientApiScopes } from './scopes.ts';
import type { UserDirectory } from '../users.ts';
import { adapterFactory, OidcStorage, registerStorage } from './adapter.ts';
import { OIDC_SIGNING_ALG, type OidcKeys } from './keys.ts';
import { errorPage, loggedOutPage, logoutPage, PAGE_HEADERS } from './pages.ts';
import { matchesPattern } from '../../config/redirect-patterns.ts';
import type { Store } from '../../store/types.ts';

/** OpenID scopes the provider knows besides the API's. */
const OIDC_SCOPES = ['openid', 'offline_access', 'profile', 'email'];
export const INTERACTION_PATH = '/oidc/interaction';

export interface ProviderOptions {
  settings: Settings;
  store: Store;
  users: UserDirectory;
  keys: OidcKeys;
  issuer: string;
  audience: string;
}

function clientMetadata(settings: Settings): ClientMetadata[] {
  const configured = Object.values(settings.auth.scopes as Record<ScopeKind, string>);
  return settings.auth.oidc.clients.map((c) => {
    const unknown = c.scope.split(/\s+/).filter((s) => s && !configured.includes(s) && !OIDC_SCOPES.includes(s));
    if (unknown.length) {
      throw new SettingsError(`auth.oidc.clients (${c.client_id}): scope ${unknown.join(' ')} is not configured under auth.scopes`);
    }
    const notApi = c.default_scopes.split(/\s+/).filter((s) => s && !configured.includes(s));
    if (notApi.length) {
      throw new SettingsError(`auth.oidc.clients (${c.client_id}): default_scopes may only name scopes configured under auth.scopes, not ${notApi.join(' ')}`);
    }
    const codeFlow = c.grant_types.includes('authorization_code');
    if (codeFlow && !c.redirect_uris.length) {
      throw new SettingsError(`auth.oidc.clients (${c.client_id}): authorization_code needs at least one redirect_uris entry`);
    }
    if (!c.client_secret && c.grant_types.includes('client_credentials')) {
      throw new SettingsError(`auth.oidc.clients (${c.client_id}): client_credentials needs a client_secret`);
    }
    return {
      client_id: c.client_id,
      ...(c.client_name ? { client_name: c.client_name } : {}),
      ...(c.client_secret
        ? { client_secret: c.client_secret, token_endpoint_auth_method: c.token_endpoint_auth_method ?? 'client_secret_basic' }
        : { token_endpoint_auth_method: 'none' }),
      grant_types: c.grant_types,
      response_types: codeFlow ? ['code'] : [],
      redirect_uris: c.redirect_uris,
      ...(c.post_logout_redirect_uris.length ? { post_logout_redirect_uris: c.post_logout_redirect_uris } : {}),
      // Only OpenID scopes may appear here; API scopes are limited per client in getResourceServerInfo.
      scope: OIDC_SCOPES.join(' '),
    } as ClientMetadata;
  });
}

/** The API scopes granted to a client that asks for none: its default_scopes within its scope. */
function clientDefaultScopes(settings: Settings, clientId: string): string[] {
  const allowed = clientApiScopes(settings, clientId);
  const client = settings.auth.oidc.clients.find((c) => c.client_id === clientId);
  return [...new Set((client?.default_scopes ?? '').split(/\s+/).filter((s) => allowed.includes(s)))];
}

/** Origins (scheme, host, port) of a client's redirect URIs: the ones its browser code runs on. */
export function redirectOrigins(redirectUris: readonly string[] | undefined): Set<string> {
  const origins = new Set<string>();
  for (const uri of redirectUris ?? []) {
    const origin = URL.parse(uri)?.origin;
    // Only http(s) origins are real ones; a custom scheme gives "null".
    if (origin && origin !== 'null') origins.add(origin);
  }
  return origins;
}

export function createProvider(o: ProviderOptions): Provider {
  const { settings, users } = o;
  const ttl = settings.auth.tokenTtlSeconds;
  const oidc = settings.auth.oidc;
  const apiScopes = new Set(Object.values(settings.auth.scopes as Record<ScopeKind, string>));
  const storage = registerStorage(o.store, new OidcStorage(o.store, { maxEntries: oidc.maxInteractions }));
  const configuration: Configuration = {
    adapter: adapterFactory(storage, {
      reused: (model) => new errors.InvalidGrant(model === 'RefreshToken' ? 'refresh token already used' : 'authorization code already consumed'),
    }),
    clients: clientMetadata(settings),
    jwks: { keys: o.keys.keys as never },
    cookies: { keys: o.keys.cookieKeys },
    findAccount: (_ctx, id) => {
      const user = users.findById(id);
      if (!user) return undefined;
      return {
        accountId: user.id,
        claims: () => ({ sub: user.id, preferred_username: user.username, name: user.name, email: user.email || undefined }),
      };
    },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'] },
    scopes: OIDC_SCOPES,
    // Not a new parameter: oidc-provider runs this on every authorization (and
    // pushed) request once its parameters are checked, which lets a request
    // that names no API scope be given the client's default_scopes.
    extraParams: {
      scope: (ctx, value, client) => {
        const asked = typeof value === 'string' ? value.split(' ').filter(Boolean) : [];
        if (asked.some((s) => apiScopes.has(s))) return;
        const defaults = clientDefaultScopes(settings, client.clientId);
        if (defaults.length) ctx.oidc.params!.scope = [...asked, ...defaults].join(' ');
      },
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      // Our own pages (pages.ts), with the headers of the others: the provider's import a font from Google.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => {
          ctx.set(PAGE_HEADERS);
          ctx.body = logoutPage(form, ctx.host);
        },
        postLogoutSuccessSource: (ctx) => {
          ctx.set(PAGE_HEADERS);
          const client = ctx.oidc.client;
          ctx.body = loggedOutPage(client ? (client.clientName ?? client.clientId) : undefined);
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => o.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator, client) => {
          if (indicator !== o.audience) throw new errors.InvalidTarget(`unknown resource; this provider serves ${o.audience}`);
          return {
            scope: clientApiScopes(settings, client.clientId).join(' '),
            audience: o.audience,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: OIDC_SIGNING_ALG } },
          };
        },
      },
    },
    // PKCE for every client, confidential ones too; oidc-provider 9 only accepts S256.
    pkce: { required: () => true },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // The account's password version and name ride along, so the API can refuse tokens from before a password change.
    extraTokenClaims: (_ctx, token) => {
      const accountId = (token as { accountId?: string }).accountId;
      const user = accountId ? users.findById(accountId) : undefined;
      return user ? { preferred_username: user.username, pwv: user.passwordVersion } : undefined;
    },
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      IdToken: ttl,
      AuthorizationCode: 60,
      Interaction: oidc.interactionTtlSeconds,
      // A session nobody signed in to (a bare visit of the logout page saves one) lives as long as an interaction.
      Session: (_ctx, session) => (session.accountId ? 14 * 24 * 3600 : oidc.interactionTtlSeconds),
      Grant: 14 * 24 * 3600,
      RefreshToken: 14 * 24 * 3600,
    },
    // Browser apps call the token endpoint from the page their redirect URI is on.
    clientBasedCORS: (_ctx, origin, client) => redirectOrigins(client.redirectUris).has(origin),
    renderError: (ctx, out) => {
      ctx.set(PAGE_HEADERS);
      ctx.type = 'html';
      ctx.body = errorPage(String(out.error), out.error_description ? String(out.error_description) : undefined);
    },
  };
  const provider = new Provider(o.issuer, configuration);
  // Always: routes.ts sets X-Forwarded-Proto and -Host from server.baseUrl on
  // every request (from the proxy only with trustProxy), so the URLs the
  // provider writes never follow the request's Host header.
  provider.proxy = true;
  allowRedirectPatterns(provider);
  return provider;
}

/**
 * Redirect URIs registered with a trailing `*` (config/redirect-patterns.ts) let a
 * client sign in and out from any page under the prefix; exact URIs keep
 * oidc-provider's own comparison. The provider's Client class is its own,
 * so this changes no other provider.
 */
function allowRedirectPatterns(provider: Provider): void {
  const proto = provider.Client.prototype;
  const { redirectUriAllowed, postLogoutRedirectUriAllowed } = proto;
  proto.redirectUriAllowed = function allowed(value) {
    return redirectUriAllowed.call(this, value) || matchesPattern(value, this.redirectUris);
  };
  proto.postLogoutRedirectUriAllowed = function allowed(value) {
    return postLogoutRedirectUriAllowed.call(this, value) || matchesPattern(value, this.postLogoutRedirectUris);
  };
}
