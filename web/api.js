// Calls to the service's public API, with the signed-in user's token. Every
// failure becomes an ApiError carrying the API's own `detail`, which the page shows as it is.

const TOKEN_KEY = 'mts.token';

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

export const token = () => sessionStorage.getItem(TOKEN_KEY);
export const signedIn = () => token() !== null;
export const signOut = () => sessionStorage.removeItem(TOKEN_KEY);
export const setToken = (value) => sessionStorage.setItem(TOKEN_KEY, value);

/** The API's `detail` of a failed answer, or its status line. */
async function failure(res) {
  let detail = `${res.status} ${res.statusText}`;
  try {
    const body = await res.json();
    if (typeof body.detail === 'string') detail = body.detail;
  } catch {
    // not JSON: the status line says it
  }
  return new ApiError(res.status, detail);
}

/** The answer to a request (its Response with `raw`), or throws an ApiError. */
export async function request(path, { method = 'GET', json, headers = {}, raw = false } = {}) {
  const h = new Headers(headers);
  const t = token();
  if (t) h.set('Authorization', `Bearer ${t}`);
  let body;
  if (json !== undefined) {
    h.set('Content-Type', 'application/json');
    body = JSON.stringify(json);
  }
  const res = await fetch(path, { method, headers: h, body, cache: 'no-cache' });
  if (res.status === 401 && t) {
    signOut();
    window.dispatchEvent(new Event('mts-signed-out'));
  }
  if (!res.ok) throw await failure(res);
  if (raw) return res;
  return res.status === 204 ? null : res.json();
}

/** Signs in with the password grant; the token is kept for this browser tab only. */
export async function signIn(username, password) {
  const res = await fetch('/api/v1/auth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password }),
  });
  if (!res.ok) throw await failure(res);
  setToken((await res.json()).access_token);
}

/** A picture the API answers only with a token, as an object URL for an <img> (revoke it when replaced). */
export async function pictureUrl(path) {
  const res = await request(path, { raw: true });
  return URL.createObjectURL(await res.blob());
}

let routes;
/** The service's routes (GET /api/v1/), once. */
const routeList = () => (routes ??= fetch('/api/v1/').then((r) => r.json()).then((b) => b.routes).catch(() => []));

/** The scope strings the API's routes need, for asking a provider. */
export async function apiScopes() {
  return [...new Set((await routeList()).map((r) => r.scope).filter(Boolean))];
}
/** A route template as a pattern: each {parameter} one path segment. */
const pattern = (template) =>
  new RegExp(`^${template.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}/?$`);

/**
 * Whether this service has a route for `method` and `path` (from GET /api/v1/, the service's own
 * list): features newer than the service asked (a map's diff picture, a dataset's refresh) are then
 * left out instead of failing.
 */
export async function hasRoute(method, path) {
  const bare = path.split('?')[0];
  return (await routeList()).some((r) => r.method === method && pattern(r.path).test(bare));
}
