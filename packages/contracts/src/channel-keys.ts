import { z } from 'zod';

/**
 * Channels with many keys (docs/architecture.md section 5.7): one channel, a list of upstream
 * keys, one picked per request at random or in turn, each disabled on its own. The stored key
 * text of such a channel is its keys as batch create takes them: one per line, or a JSON array
 * when the keys are JSON objects (Vertex AI service accounts). Pure functions shared by channels
 * (which stores them) and the relay (which picks one).
 */

/** How a request's key is picked: `random`, or `polling` (round robin shared by the relay's replicas). */
export const multiKeyModeSchema = z.enum(['random', 'polling']);
export type MultiKeyMode = z.infer<typeof multiKeyModeSchema>;

/** What routing knows of a channel's keys: how they are picked, how many, and which are off (indexes from 0). */
export const routingKeysSchema = z.object({
  mode: multiKeyModeSchema,
  size: z.number().int().min(1),
  disabled: z.array(z.number().int().min(0)),
});
export type RoutingKeys = z.infer<typeof routingKeysSchema>;

/**
 * The keys a key text stands for, in order, distinct: one per non-blank line; a JSON object is
 * one key however many lines it spans; a JSON array of objects is one key per object.
 */
export function splitKeys(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return [trimmed];
  if (trimmed.startsWith('[')) {
    try {
      const items: unknown = JSON.parse(trimmed);
      if (Array.isArray(items) && items.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))) {
        return [...new Set(items.map((item) => JSON.stringify(item)))];
      }
    } catch {
      // Not JSON after all: taken line by line below.
    }
  }
  return [
    ...new Set(
      trimmed
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean),
    ),
  ];
}

/** The key text of a list of keys: what splitKeys reads back as the same list. */
export function joinKeys(keys: readonly string[]): string {
  return keys.some((key) => key.startsWith('{')) ? `[${keys.join(',')}]` : keys.join('\n');
}

/** The indexes of the keys a request may use, in order. */
export function liveKeyIndexes(keys: RoutingKeys): number[] {
  const off = new Set(keys.disabled);
  const live: number[] = [];
  for (let index = 0; index < keys.size; index++) if (!off.has(index)) live.push(index);
  return live;
}

const AWS_REGION = /^[a-z]{2}(?:-[a-z]+)+-\d$/;
const parts = (key: string) => key.split('|').map((part) => part.trim());
const fields = (count: number) => (key: string) => parts(key).length === count && parts(key).every(Boolean);

function jsonObject(key: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(key);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The string fields of a JSON key that are absent or empty. */
const missingFields = (account: Record<string, unknown>, names: readonly string[]) =>
  names.filter((name) => {
    const value = account[name];
    return typeof value !== 'string' || value.trim() === '';
  });

/**
 * Whether one key fits its channel type's format, the established product's (so migrated rows
 * keep working): null when it does (types whose key is a plain token take anything), else the
 * fields a JSON key lacks (empty when the key is not of the shape at all). Shared by channels,
 * which refuses such a key, and the console, which says so as it is typed.
 */
export function keyFormatIssue(type: number, key: string, other: string): { missing: string[] } | null {
  const bad = { missing: [] };
  switch (type) {
    case 33: {
      // AWS Bedrock: access key|secret key|region (|session token), or the region in `other`.
      const [access = '', secret = '', region = ''] = parts(key);
      return access && secret && AWS_REGION.test(region || other.trim()) ? null : bad;
    }
    case 41: {
      // Vertex AI: a service-account JSON key.
      const account = jsonObject(key);
      if (!account) return bad;
      const missing = missingFields(account, ['project_id', 'client_email', 'private_key']);
      return missing.length === 0 ? null : { missing };
    }
    case 15:
      return fields(2)(key) ? null : bad; // Baidu: API key|secret key
    case 16:
      return /^[^.\s]+\.[^.\s]+$/.test(key.trim()) ? null : bad; // Zhipu v3: id.secret
    case 18: // iFlytek Spark: APPID|APISecret|APIKey
    case 23: // Tencent Hunyuan: AppId|SecretId|SecretKey
      return fields(3)(key) ? null : bad;
    case 49:
      return /^\S+$/.test(key.trim()) ? null : bad; // Coze: one access token
    case 57: {
      // Codex: the ChatGPT account's token JSON.
      const account = jsonObject(key);
      if (!account) return bad;
      const missing = missingFields(account, ['access_token', 'account_id']);
      return missing.length === 0 ? null : { missing };
    }
    default:
      return null;
  }
}
