import dayjs from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import { TokenStatus, type TokenView } from '@aigw/contracts';

dayjs.extend(customParseFormat);

/** The expiry format (docs/product.md section 7: yyyy-MM-dd HH:mm:ss) in dayjs tokens; also how times are shown. */
export const DATE_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';
/** expired_time for "never". */
export const NEVER = -1;
/** docs/product.md section 7: the token quota a new token starts with ($1). */
export const DEFAULT_TOKEN_QUOTA = 500_000;
/** docs/product.md section 7: quick quota options in units, labelled by their dollar value (500000 units = $1). */
export const QUICK_QUOTA_DOLLARS = [1, 10, 50, 100, 500, 1000] as const;
export const QUOTA_PER_DOLLAR = 500_000;
/** docs/product.md section 7: presets of the creation count. */
export const COUNT_PRESETS = [10, 20, 30, 100] as const;

/** Expiry shortcuts; a month is 30 days (docs/product.md section 7). */
export const EXPIRY_SHORTCUTS = { hour: 3600, day: 86_400, month: 30 * 86_400 } as const;
export type ExpiryShortcut = keyof typeof EXPIRY_SHORTCUTS | 'never';

/** The form's expiry text for a shortcut, counted from `now` (ms). */
export function expiryText(shortcut: ExpiryShortcut, now = Date.now()): string {
  if (shortcut === 'never') return '';
  return dayjs(now + EXPIRY_SHORTCUTS[shortcut] * 1000).format(DATE_TIME_FORMAT);
}

/**
 * The form's expiry text as expired_time: blank or -1 is never, else unix seconds of a
 * yyyy-MM-dd HH:mm:ss local time; null when it does not parse.
 */
export function parseExpiry(text: string | undefined): number | null {
  const value = (text ?? '').trim();
  if (value === '' || value === String(NEVER)) return NEVER;
  const parsed = dayjs(value, DATE_TIME_FORMAT, true);
  return parsed.isValid() ? parsed.unix() : null;
}

/** expired_time as the form shows it. */
export function expiryToText(expiredTime: number): string {
  return expiredTime === NEVER ? '' : dayjs.unix(expiredTime).format(DATE_TIME_FORMAT);
}

export function formatTime(seconds: number): string {
  return dayjs.unix(seconds).format(DATE_TIME_FORMAT);
}

/** A whole number typed in a form field (digits with an optional sign), or null. */
export function parseInteger(text: string | number | undefined | null): number | null {
  const value = String(text ?? '').trim();
  return /^[-+]?\d+$/.test(value) ? Number(value) : null;
}

/**
 * Why a token cannot be switched on, judged as the server does (on expiry and quota, whatever
 * the stored status): an expired or exhausted token stays off until they change.
 */
export function enableBlocker(token: TokenView, nowSeconds = Math.floor(Date.now() / 1000)): 'expired' | 'exhausted' | null {
  if (token.status === TokenStatus.Expired || (token.expired_time !== NEVER && token.expired_time <= nowSeconds)) return 'expired';
  if (token.status === TokenStatus.Exhausted || (!token.unlimited_quota && token.remain_quota <= 0)) return 'exhausted';
  return null;
}
