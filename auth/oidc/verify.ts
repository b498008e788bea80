// Verifying access tokens of an OpenID issuer, built-in or external, with
// jose: only asymmetric algorithms, the issuer's keys (never one named or
// embedded in the token), `iss`, `aud`, `exp` (required) and `nbf` checked.
// Scopes come from `scope` (space-separated) or `scp` (array or string).
import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ServiceError } from '../../errors.ts';
import { invalidToken } from '../tokens.ts';

/** Every asymmetric JWS algorithm; HS* and none are never accepted. */
const ASYMMETRIC_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface JwtCheck {
  keys: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  algorithms?: string[];
  /** Required `typ` header (the built-in provider's tokens are at+jwt). */
  typ?: string;
  now: () => Date;
}

export const unavailable = (why: string, cause?: unknown) =>
  new ServiceError('identity_provider_unavailable', `cannot verify the token: ${why}`, { cause });

export async function verifyJwt(token: string, check: JwtCheck): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, check.keys, {
      algorithms: check.algorithms ?? ASYMMETRIC_ALGS,
      issuer: check.issuer,
      audience: check.audience,
      requiredClaims: ['exp', 'sub'],
      currentDate: check.now(),
      ...(check.typ ? { typ: check.typ } : {}),
    });
    return payload;
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    if (e instanceof joseErrors.JWTExpired) throw invalidToken('token expired');
    if (e instanceof joseErrors.JWKSNoMatchingKey) throw invalidToken('unknown key');
    if (e instanceof joseErrors.JWKSTimeout) throw unavailable('the issuer\'s key set did not answer in time', e);
    if (e instanceof joseErrors.JOSEError) throw invalidToken('signature or claims check failed');
    if (e instanceof TypeError && /fetch/i.test(e.message)) throw unavailable('the issuer\'s key set cannot be fetched', e);
    throw invalidToken('malformed token');
  }
}

/** The token's scopes from `scope` or `scp`. */
export function tokenScopes(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(' ') : [];
  return [...new Set(list.filter((s): s is string => typeof s === 'string' && s.length > 0))];
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** current_user from claims: preferred_username (else sub), name, email. */
export function claimsIdentity(payload: JWTPayload) {
  const username = str(payload.preferred_username) ?? payload.sub!;
  return { username, name: str(payload.name) ?? username, email: str(payload.email) ?? '' };
}
