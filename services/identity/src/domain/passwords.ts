import argon2 from 'argon2';
import bcrypt from 'bcryptjs';

/** The factory default root password; its use is flagged so the console can warn. */
export const DEFAULT_ROOT_PASSWORD = '123456';

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

/**
 * Verifies argon2id hashes, and bcrypt hashes carried over from the established product
 * (those are replaced with argon2id at the next successful login: see `needsRehash`).
 */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  if (hash.startsWith('$2')) return bcrypt.compare(password, hash);
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

export function needsRehash(hash: string): boolean {
  return !hash.startsWith('$argon2id$');
}

/** A hash to verify against when the user does not exist, so timing does not reveal usernames. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword('not-a-real-password');
  return dummyHash;
}
