import crypto from 'node:crypto';
import { keyFormatIssue, msg, type MessageId } from '@aigw/contracts';

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

/** The refusal of each type whose key has a format, stating it (contracts' keyFormatIssue decides). */
const formats: Partial<Record<number, MessageId>> = {
  33: 'channel_key.format_aws',
  41: 'channel_key.format_vertex',
  15: 'channel_key.format_baidu',
  16: 'channel_key.format_zhipu',
  18: 'channel_key.format_spark',
  23: 'channel_key.format_hunyuan',
  49: 'channel_key.format_coze',
  57: 'channel_key.format_codex',
};

/** The refusal that also names the fields a JSON key lacks (Vertex's format already names them all). */
const formatsWithMissing: Partial<Record<number, MessageId>> = { 57: 'channel_key.format_codex_missing' };

/**
 * What is wrong with a key for its channel type (a message from the catalogue), or null: the
 * relay could not call the upstream with it. Names the format, and the fields a JSON key lacks.
 */
export function keyProblem(type: number, key: string, other: string): string | null {
  const issue = keyFormatIssue(type, key, other);
  if (!issue) return null;
  const withMissing = formatsWithMissing[type];
  if (withMissing && issue.missing.length > 0) return msg(withMissing, { fields: issue.missing.join(', ') });
  return msg(formats[type] ?? 'channel_key.format_other');
}
