// Password hashing with scrypt from node:crypto: a per-user random salt, the
// parameters stored beside the hash so they can be raised later, and a
// constant-time comparison.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));

// N=2^15, r=8, p=1: OWASP's scrypt floor; about 32 MiB and tens of ms a hash.
// The cost is log2 N. Only tests pass a lower one (createApp's `passwordCost`):
// a hash records its own parameters, so checks follow whatever made it.
export const PASSWORD_COST = 15;
const PARAMS = { r: 8, p: 1 };
const KEYLEN = 32;
const maxmem = 64 * 1024 * 1024;

/** `scrypt$N$r$p$<salt b64>$<hash b64>` */
export async function hashPassword(password: string, cost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** cost;
  const key = await scrypt(password.normalize('NFC'), salt, KEYLEN, { N, ...PARAMS, maxmem });
  return ['scrypt', N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password.normalize('NFC'), Buffer.from(salt, 'base64'), expected.length,
    { N: Number(n), r: Number(r), p: Number(p), maxmem });
  return timingSafeEqual(key, expected);
}

/**
 * The password check the logins call (token endpoint, built-in provider's
 * form, HTTP Basic), as a property so tests can count the scrypt runs
 * (`mock.method(passwordChecks, 'verify')`).
 */
export const passwordChecks = { verify: verifyPassword };

let dummy: Promise<string> | undefined;
/**
 * A hash of a password nobody has, verified when the username is unknown so a
 * wrong username costs the same time as a wrong password. Made on first use
 * (at the cost of the directory's hashes), not when the module loads.
 */
export const dummyHash = (cost = PASSWORD_COST) => (dummy ??= hashPassword(randomBytes(18).toString('base64'), cost));

export const randomPassword = () => randomBytes(18).toString('base64url');
