// Request authorization (RFC 6750): no credentials (or another scheme's) is
// 401 with a bare challenge, a bad token is 401 invalid_token, a good token without the
// needed scope is 403 insufficient_scope. Scopes are independent. With
// auth.basic.acceptHttpBasic (basic backend), `Authorization: Basic` is taken
// too (auth/http-basic.ts), and every 401 challenges with both schemes.
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import { ServiceError } from '../errors.ts';
import { requestNote } from '../log.ts';
import { requestHeader } from './request-header.ts';
import { invalidToken, looksLikeJwt, NOT_A_TOKEN } from './tokens.ts';
import type { AppEnv, Principal, ScopeKind } from './types.ts';

const REALM = 'map-topology-service';

/** RFC 7617's challenge: the realm, and that credentials are read as UTF-8. */
const BASIC_CHALLENGE = `Basic realm="${REALM}", charset="UTF-8"`;

/** A Bearer challenge (`Bearer` alone for the bare one) followed by the Basic one. */
export const basicAnd = (bearer: string) => `${bearer === 'Bearer' ? `Bearer realm="${REALM}"` : bearer}, ${BASIC_CHALLENGE}`;

export type VerifyToken = (token: string) => Principal | Promise<Principal>;

/** Checks an `Authorization: Basic …` header: its principal, or a 401/429 error. */
export type VerifyBasic = (c: Context, header: string) => Promise<Principal>;

/** Authorization headers remembered with their token at most; a full memory starts again. */
const MAX_PARSED = 10_000;

export function scopeGuard(verify: VerifyToken, scopes: Record<ScopeKind, string>, basic?: VerifyBasic) {
  // Authorization headers already read as `Bearer <token of JWT shape>` whose token verified, with
  // that token: a client sends the same header on every request, and the two pattern checks over a
  // long token are a measurable part of a GET answered from memory. Only the reading is remembered;
  // the token is checked again on every request (expiry, revocation, scopes).
  const parsed = new Map<string, string>();
  // The last such header of each connection: a keep-alive client repeats it, and comparing two
  // strings is cheaper than hashing a long one for the map above (a measurable share as well).
  const lastOfSocket = new WeakMap<object, { header: string; token: string }>();

  /** A 401 of the token check with the Basic challenge added when Basic is accepted; any other error as it is. */
  const challenged = (e: unknown): unknown => {
    const header = e instanceof ServiceError && e.status === 401 ? e.headers?.['WWW-Authenticate'] : undefined;
    if (!basic || !header) return e;
    const err = e as ServiceError;
    return new ServiceError(err.code, err.message, { headers: { ...err.headers, 'WWW-Authenticate': basicAnd(header) }, errors: err.errors, cause: err });
  };

  /** The principal of a request allowed `kind`, or the 401/403 error; sync when the token is known. */
  const authorize = (c: Context, kind: ScopeKind): Principal | Promise<Principal> => {
    const header = requestHeader(c, 'authorization');
    const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
    const last = socket && lastOfSocket.get(socket);
    if (last !== undefined && last.header === header) return checked(last.token, kind);
    const known = header === undefined ? undefined : parsed.get(header);
    if (known !== undefined) {
      if (socket) lastOfSocket.set(socket, { header: header!, token: known });
      return checked(known, kind);
    }
    if (basic && header && /^basic(?: |$)/i.test(header)) return basic(c, header).then((p) => allowed(p, kind));
    // RFC 6750 3.1: a request with no credentials, or with those of another
    // scheme (Basic, say), gets the bare challenge, with no error code.
    if (!header || !/^bearer(?: |$)/i.test(header)) {
      const schemes = basic ? 'Authorization: Bearer <token> or Authorization: Basic <credentials>' : 'Authorization: Bearer <token>';
      throw new ServiceError('unauthorized', header
        ? `this API takes ${schemes}; other authentication schemes are not accepted`
        : `authentication required: send ${schemes}`, {
        headers: { 'WWW-Authenticate': basic ? basicAnd('Bearer') : `Bearer realm="${REALM}"` },
      });
    }
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    // `Bearer` with nothing after it, `Bearer null`, `Bearer undefined`: what a client sends when its login failed.
    if (match ? !looksLikeJwt(match[1]) : header.slice(6).trim() === '') throw challenged(invalidToken(NOT_A_TOKEN));
    if (!match) {
      throw challenged(new ServiceError('invalid_token', 'the Authorization header must be "Bearer <token>"', {
        headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token"` },
      }));
    }
    // Remembered once the token verifies: only tokens the service signed (or its provider's), so of bounded length.
    const remember = (p: Principal) => {
      if (parsed.size >= MAX_PARSED) parsed.clear();
      parsed.set(header, match[1]);
      return p;
    };
    const principal = checked(match[1], kind);
    return principal instanceof Promise ? principal.then(remember) : remember(principal);
  };

  /** The principal of a token of the right shape, allowed `kind`, or the 401/403 error. */
  const checked = (token: string, kind: ScopeKind): Principal | Promise<Principal> => {
    let principal: Principal | Promise<Principal>;
    try {
      principal = verify(token);
    } catch (e) {
      throw challenged(e);
    }
    if (principal instanceof Promise) return principal.then((p) => allowed(p, kind), (e) => { throw challenged(e); });
    return allowed(principal, kind);
  };

  const allowed = (principal: Principal, kind: ScopeKind) => {
    const needed = scopes[kind];
    if (!principal.scopes.includes(needed)) {
      throw new ServiceError('insufficient_scope', `this request needs the scope ${needed}`, {
        headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${needed}"` },
      });
    }
    return principal;
  };

  /**
   * Handler form: the check and the handler as ONE handler. Hono runs a
   * route with a single handler without its (always async) middleware chain,
   * so a read with a known token answers synchronously, as fast as a bare route.
   */
  const guard = <R>(kind: ScopeKind, handler: (c: Context<AppEnv>) => R) => (c: Context<AppEnv>): R | Promise<Awaited<R>> => {
    const principal = authorize(c, kind);
    if (principal instanceof Promise) {
      return principal.then((p) => {
        admit(c, p);
        return handler(c) as Awaited<R>;
      });
    }
    admit(c, principal);
    return handler(c);
  };

  return { guard };
}

/** The caller, for the handler and for the request's log line. */
function admit(c: Context<AppEnv>, principal: Principal) {
  c.set('principal', principal);
  const note = requestNote(c.req.raw);
  if (note) note.user = principal.username;
}
