import { msg, TokenStatus } from '@aigw/contracts';

/**
 * Token status as users see it. Only 1 (enabled) and 2 (disabled) are stored, because they are
 * the owner's choice; expired (3) and exhausted (4) are facts about the expiry and the quota,
 * derived on every read so they end by themselves when the owner changes expiry or quota.
 */

export interface TokenStatusFields {
  /** Stored: 1 or 2. */
  status: number;
  /** Unix seconds, -1 for never. */
  expired_time: number;
  unlimited_quota: boolean;
  remain_quota: number;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function isExpired(token: TokenStatusFields, now = nowSeconds()): boolean {
  return token.expired_time !== -1 && token.expired_time <= now;
}

export function isExhausted(token: TokenStatusFields): boolean {
  return !token.unlimited_quota && token.remain_quota <= 0;
}

/** Disabled wins (the owner's explicit choice), then expired, then exhausted. */
export function effectiveStatus(token: TokenStatusFields, now = nowSeconds()): number {
  if (token.status !== TokenStatus.Enabled) return TokenStatus.Disabled;
  if (isExpired(token, now)) return TokenStatus.Expired;
  if (isExhausted(token)) return TokenStatus.Exhausted;
  return TokenStatus.Enabled;
}

export type EnableDecision = { allowed: true } | { allowed: false; message: string };

/**
 * Whether the owner may switch the token on, judged on the fields it will have after the
 * change: re-enabling is refused while it is expired or exhausted (docs/product.md section 7:
 * "cannot be enabled until expiry or quota is changed").
 */
export function canEnable(token: TokenStatusFields, now = nowSeconds()): EnableDecision {
  if (isExpired(token, now)) {
    return { allowed: false, message: `status: ${msg('tokens.expired_cannot_enable')}` };
  }
  if (isExhausted(token)) {
    return { allowed: false, message: `status: ${msg('tokens.exhausted_cannot_enable')}` };
  }
  return { allowed: true };
}
