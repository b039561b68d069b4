import crypto from 'node:crypto';

/** Fields the Telegram login widget sends; `hash` signs the others. */
export interface TelegramAuth {
  id: string;
  auth_date: string;
  hash: string;
  [field: string]: string;
}

/** A login widget answer older than this is refused (replay). */
export const TELEGRAM_MAX_AGE_SECONDS = 24 * 3600;

/**
 * Checks the widget's signature: HMAC-SHA256 over the sorted `key=value` lines of every field
 * but `hash`, keyed with SHA-256 of the bot token; and that it is recent.
 */
export function verifyTelegramAuth(fields: TelegramAuth, botToken: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  if (!botToken || !/^[0-9a-f]{64}$/.test(fields.hash)) return false;
  const checkString = Object.keys(fields)
    // `lang` is added by the console, not signed by Telegram.
    .filter((key) => key !== 'hash' && key !== 'lang')
    .sort()
    .map((key) => `${key}=${fields[key]}`)
    .join('\n');
  const secret = crypto.createHash('sha256').update(botToken).digest();
  const expected = crypto.createHmac('sha256', secret).update(checkString).digest();
  const given = Buffer.from(fields.hash, 'hex');
  if (!crypto.timingSafeEqual(expected, given)) return false;
  const age = nowSeconds - Number(fields.auth_date);
  return Number.isFinite(age) && age >= -60 && age <= TELEGRAM_MAX_AGE_SECONDS;
}
