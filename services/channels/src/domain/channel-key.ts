import crypto from 'node:crypto';

/**
 * Channel keys at rest (rule R4): AES-256-GCM so the relay can be given the key, and a sha256
 * so an admin can find the channel a key belongs to without anything being decrypted.
 * Pure functions: no database, no Fastify.
 */

/** sha256 hex of the key as stored (trimmed). */
export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key.trim(), 'utf8').digest('hex');
}

/** AES-256-GCM with a random 12-byte IV; stored as `iv.tag.ciphertext` in base64url. */
export function encryptKey(key: string, secret: Buffer): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', secret, iv);
  const ciphertext = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('.');
}

/** Inverse of `encryptKey`; throws when the value was tampered with or the secret differs. */
export function decryptKey(stored: string, secret: Buffer): string {
  const [iv, tag, ciphertext] = stored.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !ciphertext || iv.length !== 12 || tag.length !== 16) throw new Error('malformed encrypted key');
  const decipher = crypto.createDecipheriv('aes-256-gcm', secret, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}

/** Most channels one batch create may make. */
export const MAX_BATCH_KEYS = 1000;

/**
 * The keys a create body stands for: one per non-blank line (batch create), distinct, in order.
 * A JSON key (a Vertex AI service account) spans lines but is one key.
 */
export function splitKeys(key: string): string[] {
  const trimmed = key.trim();
  if (trimmed.startsWith('{')) return [trimmed];
  return [...new Set(trimmed.split(/\r?\n/).map((line) => line.trim()).filter(Boolean))];
}
