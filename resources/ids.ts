// Resource IDs: 7 characters of [A-Za-z0-9] from the OS random source.
// Rejection sampling keeps every character equally likely (256 is not a
// multiple of 62, so bytes >= 248 are thrown away rather than folded in).
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 7;
const LIMIT = 256 - (256 % ALPHABET.length);

export function newId(): string {
  let id = '';
  while (id.length < ID_LENGTH) {
    for (const byte of randomBytes(16)) {
      if (byte >= LIMIT) continue;
      id += ALPHABET[byte % ALPHABET.length];
      if (id.length === ID_LENGTH) break;
    }
  }
  return id;
}
