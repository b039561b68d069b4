import crypto from 'node:crypto';

/**
 * sk- token keys: generation, the sha256 the database looks them up by (rule R5), AES-256-GCM
 * so the owner can reveal a key again on purpose, and the masked form every list shows.
 * Pure functions: no database, no Fastify.
 */

export const KEY_LENGTH = 48;
export const KEY_PREFIX = 'sk-';
/** Characters of the key shown at each end of the masked form. */
export const VISIBLE_CHARS = 4;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// 248 = 4 × 62: bytes at or above it are dropped so every character is equally likely.
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

/** `length` characters from [A-Za-z0-9], uniformly, from the CSPRNG. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length)) {
      if (byte < UNBIASED_LIMIT && out.length < length) out += ALPHABET[byte % ALPHABET.length];
    }
  }
  return out;
}

/** A new 48-character key (without sk-). */
export function generateKey(): string {
  return randomAlphanumeric(KEY_LENGTH);
}

/** sha256 hex of the key without sk-: the column tokens are found by (shared with the relay's lookups). */
export { tokenKeyHash as hashKey } from '@aigw/platform';

/**
 * What `key_prefix` stores: the first and the last 4 characters (8 of 48, which leaves 238
 * random bits unknown). Keeping both ends lets lists mask without decrypting anything, so a
 * read never needs the encryption secret.
 */
export function visibleChars(key: string): string {
  return key.slice(0, VISIBLE_CHARS) + key.slice(-VISIBLE_CHARS);
}

/** `sk-abcd**********wxyz` from the stored visible characters. */
export function maskKey(visible: string): string {
  return `${KEY_PREFIX}${visible.slice(0, VISIBLE_CHARS)}**********${visible.slice(VISIBLE_CHARS)}`;
}
