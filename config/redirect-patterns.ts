// Redirect URIs that end in `*` for the built-in provider's clients, as
// Keycloak's "valid redirect URIs" are written: Terranova's editor sends the
// page the user is on (a deep link to a map, /login) as its redirect_uri and
// as its post-logout redirect, so one registered prefix must cover them all.
// A pattern matches a URI with the same scheme, host and port whose path (and
// query) starts with the pattern's text before the `*`, compared after the
// URL is normalized (so `/app/../admin` is `/admin`). The `*` may only end
// the pattern, after the path's first `/`: never in the host.

/** Why a registered URI cannot be a pattern; undefined when it is a plain URI or a usable pattern. */
export function patternProblem(uri: string): string | undefined {
  const star = uri.indexOf('*');
  if (star < 0) return undefined;
  if (star !== uri.length - 1) return 'a * may only end the URI (https://host/prefix*)';
  const prefix = URL.parse(uri.slice(0, -1));
  if (!prefix || !/^https?:$/.test(prefix.protocol)) return 'expected an http(s) URL before the *';
  // The text before * must already hold the whole origin and the path's first slash, so the * is in the path.
  if (!uri.slice(0, -1).startsWith(`${prefix.origin}/`)) return 'a * may only stand in the path, after https://host[:port]/, never in the host';
  if (prefix.username || prefix.password || prefix.hash) return 'expected no user, password or #fragment';
  return undefined;
}

/** Whether `value` (a redirect URI a client sent) is one the registered `allowed` URIs or patterns let through. */
export function matchesPattern(value: string, allowed: readonly string[] | undefined): boolean {
  const asked = URL.parse(value);
  if (!asked || asked.username || asked.password || asked.hash || !/^https?:$/.test(asked.protocol)) return false;
  return (allowed ?? []).some((pattern) => {
    if (!pattern.endsWith('*') || patternProblem(pattern) !== undefined) return false;
    const prefix = new URL(pattern.slice(0, -1));
    if (prefix.origin !== asked.origin) return false;
    // The prefix's path as the URL parser writes it, so both sides are compared in the same form.
    const head = pattern.slice(prefix.origin.length, -1);
    return `${asked.pathname}${asked.search}`.startsWith(head);
  });
}
