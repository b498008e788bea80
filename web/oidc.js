// Signing in with the service's own OpenID provider (auth.backend oidc with
// issuer builtin), for services without the password grant: authorization
// code with PKCE (S256) as the public client `home`, which the settings must
// list with this page's address among its redirect URIs (docs/web.md). The
// verifier and state wait in sessionStorage while the provider's page asks
// for the password.
import { setToken } from './api.js';

export const HOME_CLIENT = 'home';
const PENDING = 'mts.oidc';

const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const random = () => base64url(crypto.getRandomValues(new Uint8Array(32)));
const discovery = () => fetch('/oidc/.well-known/openid-configuration').then((r) => r.json());
const redirectUri = () => `${location.origin}/`;

/** Goes to the provider's sign-in page, asking for `scopes` (the API's, from its route list). */
export async function startSignIn(scopes) {
  const meta = await discovery();
  const verifier = random();
  const state = random();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, back: location.hash }));
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const url = new URL(meta.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: HOME_CLIENT, response_type: 'code', redirect_uri: redirectUri(), scope: ['openid', ...scopes].join(' '),
    code_challenge: challenge, code_challenge_method: 'S256', state,
  }).toString();
  location.assign(url.href);
}

/** Back from the provider with `?code=…&state=…`: the token for them; throws the provider's error description. */
export async function finishSignIn() {
  const query = new URLSearchParams(location.search);
  if (!query.has('code') && !query.has('error')) return false;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null');
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', `/${pending?.back ?? ''}`);
  if (query.has('error')) throw new Error(query.get('error_description') ?? query.get('error'));
  if (!pending || pending.state !== query.get('state')) throw new Error('the sign-in did not start on this page; sign in again');
  const meta = await discovery();
  const res = await fetch(meta.token_endpoint, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code: query.get('code'), redirect_uri: redirectUri(), client_id: HOME_CLIENT, code_verifier: pending.verifier }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error_description ?? body.error ?? `${res.status}`);
  setToken(body.access_token);
  return true;
}
