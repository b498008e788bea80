// Conditional GETs: whether If-None-Match matches the current ETag (for the
// versioned resources, routes/versioned.ts, and the outputs), and sending a
// rendered output under an ETag of its bytes.
import type { Context } from 'hono';
import { createHash } from 'node:crypto';
import { requestHeader } from '../auth/request-header.ts';

/** True when a GET or HEAD already holds `etag`: answer 304 instead of the body. */
export function notModified(c: Context, etag: string): boolean {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return false;
  const ifNoneMatch = requestHeader(c, 'if-none-match');
  // RFC 9110 13.1.2: `*` matches any current representation; tags compare weakly.
  return !!ifNoneMatch && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag));
}

/** The strong ETag of an output's bytes, as sendRendered below explains. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/**
 * An output is rendered anew for each request (dynamic data follows its sheet,
 * a map's layers their datasets), so no version names it: its ETag is a hash
 * of the bytes sent, strong because equal tags mean identical bytes. SHA-256
 * in base64url, cut to 22 characters (132 bits), is plenty to tell one URL's
 * outputs apart. no-cache lets browsers and proxies keep a copy but makes them
 * ask each time, which spares the transfer, not the render. Not hono/etag: it
 * would read the sent stream back to hash it (the body is a string here) and
 * match If-None-Match apart from the resources' notModified above.
 */
export function sendRendered(c: Context, body: string, headers: Readonly<Record<string, string>>, etag = etagOf(body)) {
  const validators = { ETag: etag, 'Cache-Control': 'no-cache' };
  // RFC 9110 15.4.5: a 304 repeats the 200's ETag and Cache-Control (Node adds
  // Date). The SVG's Content-Security-Policy and nosniff guard a body; a cache
  // keeps the stored ones when it refreshes its copy (RFC 9111 4.3.4).
  if (notModified(c, etag)) return c.body(null, 304, validators);
  return c.body(body, 200, { ...headers, ...validators });
}
