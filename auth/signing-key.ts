// The key that signs access tokens of the basic backend: an Ed25519 key pair
// created on first start and kept in the private part of the data folder, so
// tokens survive restarts.
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/types.ts';

export const SIGNING_ALG = 'EdDSA';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

/** The key of the document in private/ (private/signing-key.json). */
export const SIGNING_KEY = 'signing-key';

export async function loadSigningKey(store: Store): Promise<SigningKey> {
  let doc = store.get<{ jwk: JWK }>('private', SIGNING_KEY);
  if (!doc) {
    doc = await store.update<{ jwk: JWK }>('private', SIGNING_KEY, async (current) => {
      if (current) return current;
      const { privateKey } = await generateKeyPair(SIGNING_ALG, { crv: 'Ed25519', extractable: true });
      const jwk = await exportJWK(privateKey);
      return { jwk: { ...jwk, kid: randomBytes(8).toString('hex'), alg: SIGNING_ALG, use: 'sig' } };
    });
  }
  const { d: _private, ...publicJwk } = doc.jwk;
  return {
    kid: doc.jwk.kid!,
    privateKey: (await importJWK(doc.jwk, SIGNING_ALG)) as CryptoKey,
    publicKey: (await importJWK(publicJwk, SIGNING_ALG)) as CryptoKey,
    publicJwk,
  };
}
