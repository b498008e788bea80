// The address a request comes from, for throttling. The socket's peer address
// from @hono/node-server; X-Forwarded-For only when server.trustProxy says a
// reverse proxy sits in front (then its right-most entry, the one the proxy
// appended, since anything left of it is whatever the client sent).
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/** Requests with no socket (app.request in tests) all count as this one client. */
const NO_SOCKET_ADDRESS = 'no-socket';

export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const hops = (c.req.header('x-forwarded-for') ?? '').split(',').map((h) => h.trim()).filter(Boolean);
    if (hops.length) return hops[hops.length - 1].slice(0, 64);
  }
  try {
    return getConnInfo(c).remote.address ?? NO_SOCKET_ADDRESS;
  } catch {
    return NO_SOCKET_ADDRESS;
  }
}
