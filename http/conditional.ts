// Conditional GETs: whether If-None-Match matches the current ETag (for the
// versioned resources, http/versioned.ts, and the outputs), and sending a
// rendered output under the ETag of its bytes.
import type { Context } from 'hono';
import { requestHeader } from '../auth/request-header.ts';
import { plainResponse } from './plain-response.ts';

/** True when a GET or HEAD already holds `etag`: answer 304 instead of the body. */
export function notModified(c: Context, etag: string): boolean {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return false;
  const ifNoneMatch = requestHeader(c, 'if-none-match');
  // RFC 9110 13.1.2: `*` matches any current representation; tags compare weakly.
  return !!ifNoneMatch && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag));
}

/**
 * An output is the bytes of its render (dynamic data follows its sheet, a
 * map's layers their datasets), so no version names it: its ETag is a hash
 * of the bytes (output/cache.ts etagOf), strong because equal tags
 * mean identical bytes. The output cache keeps bytes and tag, so a 304 costs
 * a look-up, not a render. no-cache lets browsers and proxies keep a copy but
 * makes them ask each time, which spares the transfer. Not hono/etag: it
 * would read the sent stream back to hash it and match If-None-Match apart
 * from the resources' notModified above.
 */
export function sendRendered(c: Context, output: { etag: string; body: Uint8Array },  headers: Readonly<Record<string, string>>) {
  const validators = { ETag: output.etag, 'Cache-Control': 'no-cache' };
  // RFC 9110 15.4.5: a 304 repeats the 200's ETag and Cache-Control (Node adds
  // Date). The SVG's Content-Security-Policy and nosniff guard a body; a cache
  // keeps the stored ones when it refreshes its copy (RFC 9111 4.3.4).
  if (notModified(c, output.etag)) return plainResponse(null, 304, validators);
  return plainResponse(output.body as Uint8Array<ArrayBuffer>, 200, { ...headers, ...validators });
}
