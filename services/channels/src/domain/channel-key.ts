import crypto from 'node:crypto';

/**
 * Channel keys at rest (rule R4): sealed with `sealSecret` (AES-256-GCM, platform) so the relay can be given the key, and a sha256
 * so an admin can find the channel a key belongs to without anything being decrypted.
 * Pure functions: no database, no Fastify.
 */

/** sha256 hex of the key as stored (trimmed). */
export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key.trim(), 'utf8').digest('hex');
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
  return [
    ...new Set(
      trimmed
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean),
    ),
  ];
}
