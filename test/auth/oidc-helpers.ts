// Helpers for the OIDC tests: a real HTTP server on 127.0.0.1 around the real
// app (oidc-provider needs Node's request objects), a tiny cookie-keeping
// browser, and the authorization-code + PKCE flow driven through the login
// and consent forms with openid-client.
import { getRequestListener } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import type { SettingsInput } from '../../config/settings.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

export type Running = TestApp & { baseUrl: string; port: number; server: Server; stop: (removeDir?: boolean) => Promise<void> };

/** Starts the service on 127.0.0.1 (port 0 = any); baseUrl is known before the app is built. */
export async function startServer(settings: SettingsInput = {}, options: { dir?: string; port?: number } = {}): Promise<Running> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  let t: TestApp;
  try {
    t = await makeTestApp({ settings: { ...settings, server: { ...settings.server, baseUrl } }, dir: options.dir });
  } catch (e) {
    server.close();
    throw e;
  }
  server.on('request', getRequestListener(t.app.fetch));
  const stop = async (removeDir = options.dir === undefined) => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close(removeDir);
  };
  return { ...t, baseUrl, port, server, stop };
}

/** fetch with a cookie jar and no automatic redirects. */
export class Browser {
  cookies = new Map<string, string>();

  async fetch(url: string | URL, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const gone = !value || attrs.some((a) => /^\s*max-age=0/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]) < Date.now()));
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Follows redirects until a page, or until a redirect to `stopAt` (returned, not followed). */
  async follow(url: string | URL, stopAt: string, init?: RequestInit): Promise<{ res: Response; url: URL }> {
    let current = new URL(url);
    let res = await this.fetch(current, init);
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      const next = new URL(res.headers.get('location')!, current);
      if (next.href.startsWith(stopAt)) return { res, url: next };
      current = next;
      res = await this.fetch(current);
    }
    return { res, url: current };
  }

  /** Submits the page's form whose action ends with `suffix`, with its hidden fields plus `fields`. */
  async submit(pageUrl: URL, html: string, suffix: string, fields: Record<string, string> = {}) {
    const form = [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)].find((m) => m[1].endsWith(suffix));
    if (!form) throw new Error(`no form ending in ${suffix} in ${html}`);
    const hidden = Object.fromEntries([...form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
    return this.fetch(new URL(form[1], pageUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...hidden, ...fields }).toString(),
    });
  }
}

export const discover = (issuer: string, clientId: string, secret?: string) =>
  client.discovery(new URL(issuer), clientId, secret ? { client_secret: secret } : { token_endpoint_auth_method: 'none' },
    secret ? client.ClientSecretBasic(secret) : client.None(), { execute: [client.allowInsecureRequests] });

export interface CodeFlowOptions {
  config: client.Configuration;
  redirectUri: string;
  scope: string;
  username: string;
  password: string;
  browser?: Browser;
}

/** Authorization request and the login form post; returns the post's response and what the exchange needs. */
export async function login(o: CodeFlowOptions) {
  const browser = o.browser ?? new Browser();
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const authUrl = client.buildAuthorizationUrl(o.config, {
    redirect_uri: o.redirectUri, scope: o.scope, state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  const page = await browser.follow(authUrl, o.redirectUri);
  const posted = await browser.submit(page.url, await page.res.text(), '/login', { username: o.username, password: o.password });
  return { posted, pageUrl: page.url, browser, verifier, state };
}

/** The whole browser side: authorize, login form, consent form, back to the redirect URI; then the code exchange. */
export async function codeFlow(o: CodeFlowOptions) {
  const { posted, pageUrl, browser, verifier, state } = await login(o);
  if (posted.status !== 303) throw new Error(`login failed: ${posted.status}`);
  let step = await browser.follow(new URL(posted.headers.get('location')!, pageUrl), o.redirectUri);
  if (!step.url.href.startsWith(o.redirectUri)) {
    const confirmed = await browser.submit(step.url, await step.res.text(), '/confirm');
    step = await browser.follow(new URL(confirmed.headers.get('location')!, step.url), o.redirectUri);
  }
  const tokens = await client.authorizationCodeGrant(o.config, step.url, { pkceCodeVerifier: verifier, expectedState: state });
  return { tokens, browser };
}

/** Redirect URI of the test clients (nothing listens there: the tests read the Location header). */
export const CB = 'http://127.0.0.1:9/cb';
/** Settings of the built-in provider with three clients: a public code-flow client, a confidential one, a machine. */
export const oidcSettings = (extra: Partial<NonNullable<NonNullable<SettingsInput['auth']>['oidc']>> = {}): SettingsInput => ({
  auth: {
    backend: 'oidc',
    oidc: {
      issuer: 'builtin',
      clients: [
        { client_id: 'editor', redirect_uris: [CB], scope: 'svc:maps:read svc:maps:write svc:admin', grant_types: ['authorization_code', 'refresh_token'] },
        { client_id: 'web', client_secret: 'web secret value', client_name: 'Web <Editor>', redirect_uris: [CB], scope: 'svc:maps:read', grant_types: ['authorization_code'] },
        { client_id: 'robot', client_secret: 'robot secret value', grant_types: ['client_credentials'], scope: 'svc:maps:read svc:maps:publish' },
      ],
      ...extra,
    },
  },
});
