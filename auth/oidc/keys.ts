// Keys of the built-in provider, kept in the private part of the data folder
// (`private/oidc-keys.json`) so tokens and login cookies survive restarts:
// RSA signing keys (RS256, the algorithm every OIDC client supports; newest
// first, the first one signs, the others still verify) and cookie keys.
// Rotation (accounts CLI `rotate-keys`) puts a new key in front and keeps the
// previous ones for verification until their tokens have expired.
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/types.ts';

export const OIDC_KEYS = 'oidc-keys';
export const OIDC_SIGNING_ALG = 'RS256';
/** Keys kept after a rotation: the signing one and two predecessors. */
const KEEP = 3;

export interface OidcKeys {
  keys: JWK[];
  cookieKeys: string[];
}

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(OIDC_SIGNING_ALG, { modulusLength: 2048, extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomBytes(9).toString('base64url'), alg: OIDC_SIGNING_ALG, use: 'sig' };
}

/** The provider's keys, created on first use. */
export async function loadOidcKeys(store: Store): Promise<OidcKeys> {
  const existing = store.get<OidcKeys>('private', OIDC_KEYS);
  if (existing?.keys?.length && existing.cookieKeys?.length) return existing;
  return store.update<OidcKeys>('private', OIDC_KEYS, async (current) => ({
    keys: current?.keys?.length ? current.keys : [await newSigningKey()],
    cookieKeys: current?.cookieKeys?.length ? current.cookieKeys : [randomBytes(32).toString('base64url')],
  }));
}

/** A new signing key in front; returns its kid. Run with the service stopped (it owns the folder). */
export async function rotateOidcKeys(store: Store): Promise<string> {
  const key = await newSigningKey();
  await store.update<OidcKeys>('private', OIDC_KEYS, (current) => ({
    keys: [key, ...(current?.keys ?? [])].slice(0, KEEP),
    cookieKeys: current?.cookieKeys?.length ? current.cookieKeys : [randomBytes(32).toString('base64url')],
  }));
  return key.kid!;
}

/** The public half of each key, as served at the JWKS endpoint. */
export const publicJwks = (keys: OidcKeys) => ({
  keys: keys.keys.map(({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use }) as JWK),
});
