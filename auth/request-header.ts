// Reading one request header cheaply. Under @hono/node-server the Node request
// is at c.env.incoming, whose headers are already parsed; going through
// c.req.header() would first build a full Headers object from them, which is
// a measurable share of a cached GET. Elsewhere (app.request in tests, other
// runtimes) the standard Headers are used.
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';

type HeaderName = 'authorization' | 'if-none-match' | 'if-match' | 'origin' | 'access-control-request-headers' | 'x-forwarded-for';

/** A Hono context, or the request and env a fetch handler gets (routes/cors.ts reads them before the router). */
type Source = Context | { req: Request; env?: unknown };

export function requestHeader(c: Source, name: HeaderName): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming?.headers) {
    const value = incoming.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }
  const req = c.req;
  return 'raw' in req ? req.header(name) : req.headers.get(name) ?? undefined;
}
