// Request authorization (RFC 6750): no credentials is 401 with a bare
// challenge, a bad token is 401 invalid_token, a good token without the
// needed scope is 403 insufficient_scope. Scopes are independent.
import type { MiddlewareHandler } from 'hono';
import { ServiceError } from '../errors.ts';
import { requestHeader } from './request-header.ts';
import type { AppEnv, Principal, ScopeKind } from './types.ts';

export const REALM = 'map-topology-service';

export type VerifyToken = (token: string) => Promise<Principal>;

export function scopeGuard(verify: VerifyToken, scopes: Record<ScopeKind, string>) {
  return (kind: ScopeKind): MiddlewareHandler<AppEnv> => async (c, next) => {
    const header = requestHeader(c, 'authorization');
    if (!header) {
      throw new ServiceError('unauthorized', 'authentication required: send Authorization: Bearer <token>', {
        headers: { 'WWW-Authenticate': `Bearer realm="${REALM}"` },
      });
    }
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    if (!match) {
      throw new ServiceError('invalid_token', 'the Authorization header must be "Bearer <token>"', {
        headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token"` },
      });
    }
    const principal = await verify(match[1]);
    const needed = scopes[kind];
    if (!principal.scopes.includes(needed)) {
      throw new ServiceError('insufficient_scope', `this request needs the scope ${needed}`, {
        headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${needed}"` },
      });
    }
    c.set('principal', principal);
    await next();
  };
}
