import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A secret kept in DATA_DIR/secrets/<name>, created on first use. For the all-in-one process
 * without configuration: restarts keep it, so data encrypted with it stays readable. Separate
 * processes must be given the same secret through their config instead.
 */
export function loadOrCreateSecret(dataDir: string, name: string, bytes = 32): string {
  const folder = path.join(dataDir, 'secrets');
  const file = path.join(folder, name);
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const secret = crypto.randomBytes(bytes).toString('base64url');
  try {
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  }
}

/** A 32-byte key derived from a configured secret of any length. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return crypto.createHash('sha256').update(`${purpose}\n${secret}`).digest();
}

/**
 * AES-256-GCM for secrets kept at rest (channel keys, API token keys: rule R4), with a random
 * 12-byte IV; stored as `iv.tag.ciphertext` in base64url.
 */
export function sealSecret(plaintext: string, key: Buffer): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('.');
}

/** Inverse of `sealSecret`; throws when the value was tampered with or the key differs. */
export function openSecret(sealed: string, key: Buffer): string {
  const [iv, tag, ciphertext] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !ciphertext || iv.length !== 12 || tag.length !== 16) throw new Error('malformed sealed secret');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}
