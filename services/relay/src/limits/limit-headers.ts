import type { LimitState } from '@aigw/platform';
import type { LimitRule } from './limit-rules.js';

/**
 * OpenAI's rate-limit headers (`x-ratelimit-limit-requests`, `-remaining-requests`,
 * `-reset-requests`, and the same for `tokens`): for each measure the tightest of the request's
 * limits, the one with the least left. Its clients and SDKs read them; the reset is a Go-style
 * duration as OpenAI sends it (`1s`, `6m0s`, `250ms`).
 */
export function limitHeaders(rules: readonly LimitRule[], states: readonly LimitState[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const tightest = (measure: 'requests' | 'tokens') => {
    let best: LimitState | null = null;
    rules.forEach((rule, index) => {
      const tokens = rule.field === 'tpm' || rule.field === 'tpd';
      const requests = rule.field === 'rpm' || rule.field === 'rpd';
      if ((measure === 'tokens' && !tokens) || (measure === 'requests' && !requests)) return;
      const state = states[index]!;
      if (!best || state.limit - state.used < best.limit - best.used) best = state;
    });
    return best as LimitState | null;
  };
  for (const measure of ['requests', 'tokens'] as const) {
    const state = tightest(measure);
    if (!state) continue;
    headers[`x-ratelimit-limit-${measure}`] = String(state.limit);
    headers[`x-ratelimit-remaining-${measure}`] = String(Math.max(0, state.limit - state.used));
    headers[`x-ratelimit-reset-${measure}`] = goDuration(state.resetMs);
  }
  return headers;
}

/** Retry-After in whole seconds, at least 1 (a client must not retry at once). */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

/** A duration as Go prints it, which is how OpenAI's reset headers read: `1h2m3s`, `6m0s`, `1.5s`, `250ms`. */
export function goDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = (whole % 60_000) / 1000;
  const secondsText = `${Number.isInteger(seconds) ? seconds : seconds.toFixed(3).replace(/0+$/, '')}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}

/** A wait in words for a refusal's message ("12s", "3m20s"). */
export function describeWait(ms: number): string {
  return goDuration(Math.ceil(ms / 1000) * 1000);
}
