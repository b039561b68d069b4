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

/** Login, registration, verification, password reset and OAuth callbacks (the "critical" limit). */
const criticalPaths = new Set([
  '/api/user/login', '/api/user/register', '/api/verification', '/api/reset_password', '/api/user/reset',
]);

export function isCriticalPath(path: string): boolean {
  return criticalPaths.has(path) || path.startsWith('/api/oauth/');
}
