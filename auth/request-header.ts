// Reading one request header cheaply. Under @hono/node-server the Node request
// is at c.env.incoming, whose headers are already parsed; going through
// c.req.header() would first build a full Headers object from them, which is
// a measurable share of a cached GET. Elsewhere (app.request in tests, other
// runtimes) the standard Headers are used.
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';

export function requestHeader(c: Context, name: 'authorization' | 'if-none-match' | 'if-match'): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming?.headers) {
    const value = incoming.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return c.req.header(name);
}
