// Everything under /oidc: the login and consent pages of the built-in
// provider, then oidc-provider itself for the rest (discovery, JWKS,
// authorization, token, ...). oidc-provider is a Koa app working on Node's
// request and response, which @hono/node-server hands over as c.env; server.ts
// mounts this sub-app before its body-limit middleware, so the request body
// is still unread when oidc-provider parses it. (Through app.request there is
// no Node request: the provider answers only on a real server.)
// Every request reaches the provider with X-Forwarded-Proto and -Host set from
// server.baseUrl (from the proxy's headers only with server.trustProxy, and
// still from baseUrl where the proxy sends none), so discovery, redirects and
// endpoint URLs name the configured public URL, never the Host header.
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import { isServiceError, notFound } from '../../errors.ts';
import type { PasswordLogin } from '../login.ts';
import type { UserDirectory } from '../users.ts';
import { consentPage, errorPage, loginPage, PAGE_HEADERS } from './pages.ts';
import { INTERACTION_PATH } from './provider.ts';
import { oidcCaller } from './caller.ts';

export interface OidcRoutesOptions {
  provider: Provider;
  users: UserDirectory;
  login: PasswordLogin;
  audience: string;
  /** Secret for the forms' CSRF tokens (a cookie key of the provider). */
  csrfSecret: string;
  clientAddress: (c: Context) => string;
  /** `<server.baseUrl>/oidc`. */
  issuer: string;
  /** server.trustProxy: take the scheme and host from X-Forwarded-Proto/-Host. */
  trustProxy: boolean;
  /** Origins of every client's redirect URIs: the only ones a CORS preflight is allowed for. */
  corsOrigins: ReadonlySet<string>;
}

type Env = { Bindings: HttpBindings };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.split(',')[0].trim() || undefined;

/** The request as the provider must see it: scheme and host of the public URL (provider.proxy is on). */
function pinOrigin(incoming: HttpBindings['incoming'], issuer: URL, trustProxy: boolean) {
  const h = incoming.headers;
  const proto = (trustProxy && first(h['x-forwarded-proto'])) || issuer.protocol.slice(0, -1);
  const host = (trustProxy && first(h['x-forwarded-host'])) || issuer.host;
  h['x-forwarded-proto'] = proto;
  h['x-forwarded-host'] = host;
  if (!trustProxy) delete h['x-forwarded-for'];
}

const page = (c: Context, status: number, html: string, headers: Record<string, string> = {}) =>
  c.body(html, status as 200, { ...PAGE_HEADERS, ...headers });

export function oidcRoutes(o: OidcRoutesOptions) {
  const app = new Hono<Env>({ strict: false });
  const { provider } = o;
  const issuer = new URL(o.issuer);
  const pinned = new WeakSet<object>();
  const nodeBindings = (c: Context<Env>) => {
    const env = c.env as HttpBindings | undefined;
    if (!env?.incoming || !env.outgoing) throw notFound('the built-in OpenID provider answers only through the HTTP server');
    if (!pinned.has(env.incoming)) {
      pinOrigin(env.incoming, issuer, o.trustProxy);
      pinned.add(env.incoming);
    }
    return env;
  };
  // Endpoints whose CORS oidc-provider decides per client. It answers their
  // preflight for any origin (the client is known only from the request that
  // follows, which it then checks); here a preflight gets
  // Access-Control-Allow-Origin only for an origin some client redirects to.
  const clientCorsPaths = new Set<string>();
  for (const name of ['token', 'revocation', 'userinfo', 'introspection', 'pushed_authorization_request']) {
    try {
      clientCorsPaths.add(provider.pathFor(name, { mountPath: '' }));
    } catch {
      // Endpoint not enabled.
    }
  }
  const csrfFor = (uid: string) => createHmac('sha256', o.csrfSecret).update(`csrf:${uid}`).digest('base64url');
  const csrfOk = (uid: string, sent: string | null) => {
    const want = Buffer.from(csrfFor(uid));
    const got = Buffer.from(sent ?? '');
    return got.length === want.length && timingSafeEqual(got, want);
  };
  const clientName = async (clientId: unknown) => {
    const client = await provider.Client.find(String(clientId));
    return client?.clientName ?? String(clientId);
  };

  /** The interaction of this browser (bound to its cookie), checked against the uid of the path. */
  const interaction = async (c: Context<Env>) => {
    const { incoming, outgoing } = nodeBindings(c);
    try {
      const details = await provider.interactionDetails(incoming, outgoing);
      if (details.uid === c.req.param('uid')) return details;
    } catch {
      // Unknown, expired, or opened in another browser: same answer.
    }
    return undefined;
  };
  const expired = (c: Context) =>
    page(c, 400, errorPage('invalid_request', 'This sign-in page has expired or belongs to another browser.'));

  const readForm = async (c: Context) => new URLSearchParams(await c.req.text());
  const formLimit = bodyLimit({ maxSize: 16 * 1024, onError: (c) => page(c, 413, errorPage('invalid_request', 'The form is too large.')) });

  app.get(`${INTERACTION_PATH}/:uid`, async (c) => {
    // An interaction whose form is shown is a real sign-in under way: anonymous starts do not evict it.
    const details = await oidcCaller.run({ address: o.clientAddress(c), showing: true }, () => interaction(c));
    if (!details) return expired(c);
    const action = `${INTERACTION_PATH}/${details.uid}`;
    const client = await clientName(details.params.client_id);
    if (details.prompt.name === 'login') return page(c, 200, loginPage({ action, csrf: csrfFor(details.uid), client }));
    const user = o.users.findById(details.session?.accountId ?? '');
    if (details.prompt.name !== 'consent' || !user) return expired(c);
    const requested = (details.prompt.details.missingResourceScopes as Record<string, string[]> | undefined)?.[o.audience] ?? [];
    return page(c, 200, consentPage({
      action, csrf: csrfFor(details.uid), client, username: user.username,
      granted: requested.filter((s) => user.scope.includes(s)),
      dropped: requested.filter((s) => !user.scope.includes(s)),
    }));
  });

  app.post(`${INTERACTION_PATH}/:uid/login`, formLimit, async (c) => {
    const form = await readForm(c);
    const details = await interaction(c);
    if (details?.prompt.name !== 'login' || !csrfOk(details.uid, form.get('csrf'))) return expired(c);
    const username = form.get('username') ?? '';
    const view = { action: `${INTERACTION_PATH}/${details.uid}`, csrf: csrfFor(details.uid), client: await clientName(details.params.client_id), username };
    let user;
    try {
      user = await o.login.attempt(username.slice(0, 1024), (form.get('password') ?? '').slice(0, 1024), o.clientAddress(c));
    } catch (e) {
      if (isServiceError(e) && e.code === 'rate_limited') return page(c, 429, loginPage({ ...view, error: e.message }), e.headers);
      throw e;
    }
    if (!user) return page(c, 401, loginPage({ ...view, error: 'Wrong username or password.' }));
    const { incoming, outgoing } = nodeBindings(c);
    const returnTo = await provider.interactionResult(incoming, outgoing, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
    return c.redirect(returnTo, 303);
  });

  app.post(`${INTERACTION_PATH}/:uid/confirm`, formLimit, async (c) => {
    const form = await readForm(c);
    const details = await interaction(c);
    const accountId = details?.session?.accountId;
    const user = accountId ? o.users.findById(accountId) : undefined;
    if (details?.prompt.name !== 'consent' || !user || !csrfOk(details.uid, form.get('csrf'))) return expired(c);
    const clientId = String(details.params.client_id);
    const grant = (details.grantId && (await provider.Grant.find(details.grantId))) || new provider.Grant({ accountId: user.id, clientId });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      // Never more than the user holds: the rest is recorded as refused, so the provider does not ask again.
      const held = scopes.filter((s) => user.scope.includes(s));
      const refused = scopes.filter((s) => !user.scope.includes(s));
      if (held.length) grant.addResourceScope(indicator, held.join(' '));
      if (refused.length) grant.rejectResourceScope(indicator, refused.join(' '));
    }
    const grantId = await grant.save();
    const { incoming, outgoing } = nodeBindings(c);
    const returnTo = await provider.interactionResult(incoming, outgoing,
      { consent: details.grantId ? {} : { grantId } }, { mergeWithLastSubmission: true });
    return c.redirect(returnTo, 303);
  });

  app.post(`${INTERACTION_PATH}/:uid/abort`, formLimit, async (c) => {
    const form = await readForm(c);
    const details = await interaction(c);
    if (!details || !csrfOk(details.uid, form.get('csrf'))) return expired(c);
    const { incoming, outgoing } = nodeBindings(c);
    const returnTo = await provider.interactionResult(incoming, outgoing,
      { error: 'access_denied', error_description: 'the user cancelled the sign-in' }, { mergeWithLastSubmission: false });
    return c.redirect(returnTo, 303);
  });

  // Everything else under /oidc goes to oidc-provider, with the mount path moved from url to originalUrl.
  const callback = provider.callback();
  const handOver = async (c: Context<Env>) => {
    const { incoming, outgoing } = nodeBindings(c);
    const parsed = new URL(incoming.url ?? '/', 'http://request.invalid');
    let sub = parsed.pathname.slice('/oidc'.length);
    if (!sub.startsWith('/')) sub = `/${sub}`;
    const origin = c.req.header('origin');
    if (c.req.method === 'OPTIONS' && origin && c.req.header('access-control-request-method')
      && clientCorsPaths.has(sub.replace(/\/+$/, '')) && !o.corsOrigins.has(origin)) {
      return c.body(null, 204, { Vary: 'Origin' });
    }
    // The provider works out its mount path from originalUrl: the issuer's path, so endpoint URLs extend the issuer.
    const mounted = incoming as typeof incoming & { originalUrl?: string };
    mounted.originalUrl = `${issuer.pathname.replace(/\/+$/, '')}${sub}${parsed.search}`;
    incoming.url = `${sub}${parsed.search}`; // also for an absolute-form request target
    await new Promise<void>((resolve) => {
      outgoing.once('close', resolve);
      outgoing.once('finish', resolve);
      oidcCaller.run({ address: o.clientAddress(c) }, () => callback(incoming, outgoing));
    });
    return RESPONSE_ALREADY_SENT;
  };
  app.all('/oidc', handOver);
  app.all('/oidc/*', handOver);
  return app;
}
