import type { AuthPrincipal } from '@aigw/contracts';
import { onEvent, requestTyped, type Bus, type Logger, type Subscription } from '@aigw/platform';
import crypto from 'node:crypto';

/**
 * Resolves console credentials (session cookie or system access token) to their user, by
 * request-reply to identity, with a bounded local cache. The cache is dropped per user on
 * `identity.session.revoked`, `identity.user.updated` and `identity.user.deleted`, so logout,
 * bans, role changes and password changes take effect on every gateway replica at once; the
 * TTL bounds staleness should an event be missed.
 */
export interface CredentialResolver {
  resolve(kind: 'session' | 'access_token', secret: string): Promise<AuthPrincipal | null>;
  close(): Promise<void>;
}

interface Entry {
  principal: AuthPrincipal | null;
  expiresAt: number;
}

export interface CredentialResolverOptions {
  bus: Bus;
  logger: Logger;
  ttlMs?: number;
  maxEntries?: number;
}

const sha256 = (value: string) => crypto.createHash('sha256').update(value).digest('hex');

export async function createCredentialResolver(options: CredentialResolverOptions): Promise<CredentialResolver> {
  const { bus, logger } = options;
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const cache = new Map<string, Entry>();
  const keysByUser = new Map<number, Set<string>>();

  const forget = (key: string) => {
    const entry = cache.get(key);
    cache.delete(key);
    if (entry?.principal) keysByUser.get(entry.principal.user_id)?.delete(key);
  };
  const forgetUser = (userId: number) => {
    for (const key of keysByUser.get(userId) ?? []) cache.delete(key);
    keysByUser.delete(userId);
  };
  const remember = (key: string, principal: AuthPrincipal | null) => {
    if (cache.size >= maxEntries) forget(cache.keys().next().value!);
    cache.set(key, { principal, expiresAt: Date.now() + (principal ? ttlMs : Math.min(ttlMs, 5_000)) });
    if (principal) {
      const keys = keysByUser.get(principal.user_id) ?? new Set<string>();
      keys.add(key);
      keysByUser.set(principal.user_id, keys);
    }
  };

  const subscriptions: Subscription[] = await Promise.all([
    onEvent(
      bus,
      'identity.session.revoked',
      async ({ user_id, session_hash }) => {
        if (session_hash) forget(`session:${session_hash}`);
        else forgetUser(user_id);
      },
      { logger },
    ),
    onEvent(bus, 'identity.user.updated', async ({ user_id }) => forgetUser(user_id), { logger }),
    onEvent(bus, 'identity.user.deleted', async ({ user_id }) => forgetUser(user_id), { logger }),
  ]);

  return {
    async resolve(kind, secret) {
      // Keyed like identity stores them: sha256 of the secret, so a revocation names the entry.
      const key = `${kind}:${sha256(secret)}`;
      const hit = cache.get(key);
      if (hit && hit.expiresAt > Date.now()) return hit.principal;
      const { principal } = await requestTyped(bus, 'identity.auth.resolve', { kind, secret }, { timeoutMs: 3_000 });
      remember(key, principal);
      return principal;
    },
    async close() {
      await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
    },
  };
}
