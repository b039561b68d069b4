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

const AWS_REGION = /^[a-z]{2}(?:-[a-z]+)+-\d$/;
const parts = (key: string) => key.split('|').map((part) => part.trim());

/**
 * What is wrong with a key for its channel type, in the established product's formats (so
 * migrated rows keep working), or null: the relay could not call the upstream with it. Types
 * whose key is a plain token take anything.
 */
export function keyProblem(type: number, key: string, other: string): string | null {
  switch (type) {
    case 33: {
      const [access = '', secret = '', region = ''] = parts(key);
      if (!access || !secret || !AWS_REGION.test(region || other.trim())) {
        return 'key: an AWS Bedrock key is "access key|secret key|region" (a fourth part: a session token), or give the region in "other"';
      }
      return null;
    }
    case 41: {
      let account: Record<string, unknown> | null = null;
      try {
        account = JSON.parse(key) as Record<string, unknown>;
      } catch {
        // reported below
      }
      const fields = ['project_id', 'client_email', 'private_key'];
      if (!account || typeof account !== 'object' || !fields.every((field) => typeof account[field] === 'string' && account[field] !== '')) {
        return 'key: a Vertex AI key is a service-account JSON key with project_id, client_email and private_key';
      }
      return null;
    }
    case 15:
      return parts(key).length === 2 && parts(key).every(Boolean) ? null : 'key: a Baidu key is "API key|secret key"';
    case 16:
      return /^[^.\s]+\.[^.\s]+$/.test(key.trim()) ? null : 'key: a Zhipu v3 key is "id.secret"';
    case 18:
      return parts(key).length === 3 && parts(key).every(Boolean) ? null : 'key: an iFlytek Spark key is "APPID|APISecret|APIKey"';
    case 23:
      return parts(key).length === 3 && parts(key).every(Boolean) ? null : 'key: a Tencent Hunyuan key is "AppId|SecretId|SecretKey"';
    default:
      return null;
  }
}
