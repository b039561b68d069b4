import type { Kv } from '@aigw/platform';

/**
 * Fixed-window per-IP limits on the Kv port (Redis when present, so every replica counts
 * together; in-memory otherwise, with expiring keys so memory stays bounded).
 */
export interface RateLimitRule {
  name: string;
  max: number;
  windowMs: number;
}

/** Returns true when the call is within the limit. */
export async function allow(kv: Kv, rule: RateLimitRule, client: string): Promise<boolean> {
  if (rule.max <= 0) return true;
  const count = await kv.increment(`ratelimit:${rule.name}:${client}`, { ttlMs: rule.windowMs });
  return count <= rule.max;
}

/** Login (password, second step, passkey), registration, verification, step-up, password reset and OAuth callbacks (the "critical" limit). */
const criticalPaths = new Set([
  '/api/user/login',
  '/api/user/register',
  '/api/verification',
  '/api/reset_password',
  '/api/user/reset',
  // Second factors: the 2FA step of a sign-in, passkey sign-in and the step-up before secrets.
  '/api/user/login/2fa',
  '/api/user/passkey/login/begin',
  '/api/user/passkey/login/finish',
  '/api/verify',
]);

export function isCriticalPath(path: string): boolean {
  return criticalPaths.has(path) || path.startsWith('/api/oauth/');
}

/**
 * Paths outside the global per-IP API limit: the payment gateway's notify. One gateway IP sends
 * the notifies of every order and retries them until it reads `success`; limiting it would
 * delay credits (complaint 12, docs/compatibility.md section 7). The route is cheap to refuse: a
 * signature check in memory.
 */
const unlimitedPaths = new Set(['/api/user/epay/notify', '/api/user/epay/notify/']);

export function isGloballyLimited(path: string): boolean {
  return path.startsWith('/api/') && !unlimitedPaths.has(path);
}
