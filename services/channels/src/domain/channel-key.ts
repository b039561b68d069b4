import crypto from 'node:crypto';
import { keyFormatIssue } from '@aigw/contracts';

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

/** The format of each type whose key has one, as a refusal states it (contracts' keyFormatIssue decides). */
const formats: Partial<Record<number, string>> = {
  33: 'an AWS Bedrock key is "access key|secret key|region" (a fourth part: a session token), or give the region in "other"',
  41: 'a Vertex AI key is a service-account JSON key with project_id, client_email and private_key',
  15: 'a Baidu key is "API key|secret key"',
  16: 'a Zhipu v3 key is "id.secret"',
  18: 'an iFlytek Spark key is "APPID|APISecret|APIKey"',
  23: 'a Tencent Hunyuan key is "AppId|SecretId|SecretKey"',
  49: 'a Coze key is one access token (a personal access token, pat_...)',
  57: "a Codex key is the ChatGPT account's JSON with access_token and account_id (and refresh_token to renew the access token)",
};

/**
 * What is wrong with a key for its channel type, or null: the relay could not call the upstream
 * with it. Names the format, and the fields a JSON key lacks.
 */
export function keyProblem(type: number, key: string, other: string): string | null {
  const issue = keyFormatIssue(type, key, other);
  if (!issue) return null;
  const format = formats[type] ?? 'the key does not fit its channel type';
  // Vertex's message already names its fields.
  return issue.missing.length > 0 && type !== 41 ? `key: ${format}; missing ${issue.missing.join(' and ')}` : `key: ${format}`;
}
