// Access tokens of the basic backend: JWTs signed with the service's Ed25519
// key. Verification pins the algorithm, issuer and audience, requires `exp`,
// ignores any key named in the token header, and then checks the token against
// the user as stored now (deleted users and changed passwords revoke tokens).
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { ServiceError } from '../errors.ts';
import type { SigningKey } from './signing-key.ts';
import { SIGNING_ALG } from './signing-key.ts';
import type { Principal } from './types.ts';
import type { StoredUser, UserDirectory } from './users.ts';

const API_AUDIENCE = 'map-topology-service';

export interface TokenOptions {
  key: SigningKey;
  issuer: string;
  ttlSeconds: number;
  users: UserDirectory;
  now: () => Date;
  /** `now` in milliseconds without making a Date, when the clock has such a reading (default: now().getTime()). */
  nowMs?: () => number;
}

interface Claims {
  sub: string;
  uid: string;
  scope: string;
  pwv: number;
  exp: number;
}

export const invalidToken = (why: string) =>
  new ServiceError('invalid_token', `invalid bearer token: ${why}`, {
    headers: { 'WWW-Authenticate': `Bearer realm="map-topology-service", error="invalid_token", error_description="${why}"` },
  });

/** The why of a bearer credential that is no JWT at all: `Bearer null` from a shell whose login failed, say. */
export const NOT_A_TOKEN = 'not a token (did the login fail?)';

/**
 * Whether a bearer credential (RFC 6750 b64token) has the shape of a signed
 * JWT, RFC 7515 compact: three parts between dots. Every token either backend
 * accepts has it; anything else (null, undefined, a password, a word) is
 * answered NOT_A_TOKEN before any check.
 */
export const looksLikeJwt = (token: string) => /^[^.]+\.[^.]+\.[^.]+$/.test(token);

/** A token whose signature was verified, and the principal it gave for the user record it was checked against. */
interface Verified {
  claims: Claims;
  /** The stored user object the principal was derived from; the store replaces it on every change (store/doc-index.ts). */
  user?: StoredUser;
  principal?: Principal;
}

/** Verified tokens kept at most; a full cache starts again (a client sends the same token until it expires). */
const MAX_VERIFIED = 10_000;

export class TokenService {
  // Verified signatures, so a hot client does not pay for Ed25519 on every
  // request. Expiry and revocation are still checked on every request
  // against the user record as stored now.
  private verified = new Map<string, Verified>();

  /** The clock in milliseconds: read on every request, so a Date is not made for it when it can be avoided. */
  private readonly nowMs: () => number;

  constructor(private o: TokenOptions) {
    this.nowMs = o.nowMs ?? (() => o.now().getTime());
  }

  async issue(user: StoredUser, scopes: string[]) {
    const iat = Math.floor(this.o.now().getTime() / 1000);
    const token = await new SignJWT({ scope: scopes.join(' '), uid: user.id, pwv: user.passwordVersion })
      .setProtectedHeader({ alg: SIGNING_ALG, kid: this.o.key.kid, typ: 'at+jwt' })
      .setSubject(user.username)
      .setIssuer(this.o.issuer)
      .setAudience(API_AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.o.ttlSeconds)
      .sign(this.o.key.privateKey);
    return { access_token: token, token_type: 'Bearer', expires_in: this.o.ttlSeconds, scope: scopes.join(' ') };
  }

  /**
   * The principal a token speaks for. Synchronous when the token's signature
   * was verified before (so a cached GET needs no promise at all), a promise
   * otherwise. Expiry and revocation are checked on every call either way.
   */
  verify(token: string): Principal | Promise<Principal> {
    const known = this.verified.get(token);
    if (known) return this.principal(known);
    return this.verifySignature(token).then((claims) => {
      if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
      const fresh: Verified = { claims };
      this.verified.set(token, fresh);
      return this.principal(fresh);
    });
  }

  /**
   * The token's principal against the user as stored now: refused once
   * expired, once the user is gone or was created again, or once the
   * password changed; scopes narrowed to the user's current ones. The
   * principal is derived again whenever the stored user object is another
   * one (any change to the account replaces it), else reused.
   */
  private principal(known: Verified): Principal {
    const { claims } = known;
    if (claims.exp * 1000 <= this.nowMs()) throw invalidToken('token expired');
    const user = this.o.users.find(claims.sub);
    if (user !== undefined && user === known.user) return known.principal!;
    if (!user || user.id !== claims.uid) throw invalidToken('unknown user');
    if (user.passwordVersion !== claims.pwv) throw invalidToken('token revoked by a password change');
    const granted = claims.scope.split(' ').filter((s) => s && user.scope.includes(s));
    const principal: Principal = Object.freeze({ username: user.username, name: user.name, email: user.email, scopes: Object.freeze(granted) as string[] });
    known.user = user;
    known.principal = principal;
    return principal;
  }

  private async verifySignature(token: string): Promise<Claims> {
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.o.key.publicKey, {
        algorithms: [SIGNING_ALG],
        issuer: this.o.issuer,
        audience: API_AUDIENCE,
        requiredClaims: ['exp', 'sub'],
        currentDate: this.o.now(),
      });
      if (protectedHeader.kid !== this.o.key.kid) throw invalidToken('unknown key');
      if (typeof payload.scope !== 'string' || typeof payload.pwv !== 'number' || typeof payload.uid !== 'string') {
        throw invalidToken('missing claims');
      }
      return { sub: payload.sub!, uid: payload.uid, scope: payload.scope, pwv: payload.pwv, exp: payload.exp! };
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      if (e instanceof joseErrors.JWTExpired) throw invalidToken('token expired');
      throw invalidToken(e instanceof joseErrors.JOSEError ? 'signature or claims check failed' : 'malformed token');
    }
  }
}
