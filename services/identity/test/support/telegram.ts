import crypto from 'node:crypto';

/** Signs widget fields the way Telegram does, for tests. */
export function signTelegramFields(fields: Record<string, string>, botToken: string): Record<string, string> & { id: string; auth_date: string; hash: string } {
  const checkString = Object.keys(fields)
    .sort()
    .map((key) => `${key}=${fields[key]}`)
    .join('\n');
  const secret = crypto.createHash('sha256').update(botToken).digest();
  const hash = crypto.createHmac('sha256', secret).update(checkString).digest('hex');
  return { ...fields, hash } as Record<string, string> & { id: string; auth_date: string; hash: string };
}
