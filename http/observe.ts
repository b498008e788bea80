// The request log and the HTTP metrics, around the app's fetch (as CORS is,
// http/cors.ts: a middleware would put every GET on Hono's async chain).
// Each request gets a note first (log.ts: its trace ID, made when asked for,
// is the one the error handler's 500 answer and log line carry); once
// answered, one log line (method, the path with secrets masked, status,
// duration, user, client address, trace ID) and the counters by route
// template. The duration is until the answer's headers: a streamed body may
// still be on its way.
import type { IncomingMessage } from 'node:http';
import { requestHeader } from '../auth/request-header.ts';
import { type Logger, noteRequest, type RequestNote, traceIdOf } from '../log.ts';
import type { Metrics } from '../metrics/registry.ts';

type Fetch<E, X> = (req: Request, env?: E, ctx?: X) => Response | Promise<Response>;

export interface ObserveOptions {
  log: Logger;
  metrics: Metrics;
  /** Whether to write the request lines (log.requests). */
  logRequests: boolean;
  /** Take the client address from X-Forwarded-For (server.trustProxy). */
  trustProxy: boolean;
  /** The route template a request matches (the router's), or undefined for none. */
  routeOf: (req: Request, env?: unknown) => string | undefined;
}

/** Query parameters whose values are secrets (OAuth codes and tokens, passwords, signatures). */
const SECRET_PARAM = /([?&][^=&]*(?:token|password|secret|code|key|session|sig|state|assertion)[^=&]*=)[^&]*/gi;
/** Path segments that are secrets: the built-in provider's interaction IDs. */
const SECRET_SEGMENT = /(\/oidc\/interaction\/)[^/?]+/g;
/** Longest path logged: enough for any route, not for a log-filling one. */
const MAX_PATH = 512;
/** The route label of a request no route matched: one series, not one per scanned path. */
const UNMATCHED = 'unmatched';

/** The path and query of a URL as logged: secrets masked, length capped. */
function loggedPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  let path = start < 0 ? '/' : url.slice(start);
  if (path.length > MAX_PATH) path = `${path.slice(0, MAX_PATH)}…`;
  // The patterns only where they can match: most paths have no parameters and are no provider interaction.
  if (path.includes('?') || path.includes('&')) path = path.replace(SECRET_PARAM, '$1***');
  return path.includes('/oidc/interaction/') ? path.replace(SECRET_SEGMENT, '$1***') : path;
}

export function observeRequests<E, X>(fetch: Fetch<E, X>, o: ObserveOptions): Fetch<E, X> {
  const { log, metrics } = o;
  const done = (req: Request, env: E | undefined, note: RequestNote, started: number, status: number) => {
    const seconds = (performance.now() - started) / 1000;
    // A registered route noted its template (http/register.ts); others (the provider's mount, no route) are matched again.
    const route = note.route ?? o.routeOf(req, env) ?? UNMATCHED;
    metrics.httpRequests.series(req.method, route, status).inc();
    metrics.httpDuration.series(req.method, route).observe(seconds);
    if (!o.logRequests) return;
    log.info('request', {
      method: req.method,
      path: loggedPath(req.url),
      status,
      ms: Math.round(seconds * 10_000) / 10,
      user: note.user ?? null,
      client: clientOf(req, env, o.trustProxy),
      traceId: traceIdOf(req),
    });
  };
  return (req, env, ctx) => {
    const started = performance.now();
    const note = noteRequest(req);
    const res = fetch(req, env, ctx);
    if (res instanceof Promise) {
      return res.then((r) => {
        done(req, env, note, started, r.status);
        return r;
      });
    }
    done(req, env, note, started, res.status);
    return res;
  };
}

/** The client's address: the socket's peer, or behind a trusted proxy the address it appended. */
function clientOf(req: Request, env: unknown, trustProxy: boolean): string | null {
  if (trustProxy) {
    const hops = requestHeader({ req, env }, 'x-forwarded-for')?.split(',').map((h) => h.trim()).filter(Boolean);
    if (hops?.length) return hops[hops.length - 1].slice(0, 64);
  }
  return (env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress ?? null;
}
