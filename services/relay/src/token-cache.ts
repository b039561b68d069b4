import type { ResolvedToken } from '@aigw/contracts';
import { OperationalError, onEvent, requestTyped, tokenKeyHash, type Bus, type Logger, type Subscription } from '@aigw/platform';

/**
 * sk- tokens, resolved by billing once and then served from memory (docs/architecture.md section 5,
 * step 1). Keyed by the sha256 of the key (the key itself is never stored). Kept fresh by
 * `billing.token.updated/deleted` and `billing.account.updated` (owner status and group); a TTL
 * bounds staleness should an event be missed. Unknown keys are remembered briefly so a flood of
 * random keys does not become a flood of requests to billing. A lookup billing does not answer
 * (billing or NATS away) is an OperationalError: 503 with Retry-After, never remembered.
 */
export interface TokenCache {
  resolve(key: string): Promise<ResolvedToken | null>;
  close(): Promise<void>;
}

interface Entry {
  token: ResolvedToken | null;
  expiresAt: number;
}

export async function createTokenCache(options: { bus: Bus; logger: Logger; ttlMs?: number; maxEntries?: number }): Promise<TokenCache> {
  const { bus, logger } = options;
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const unknownTtlMs = Math.min(ttlMs, 10_000);
  const maxEntries = options.maxEntries ?? 100_000;
  const entries = new Map<string, Entry>();
  const hashesByUser = new Map<number, Set<string>>();
  const pending = new Map<string, Promise<ResolvedToken | null>>();

  const remember = (hash: string, token: ResolvedToken | null) => {
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(hash, { token, expiresAt: Date.now() + (token ? ttlMs : unknownTtlMs) });
    if (token) {
      const hashes = hashesByUser.get(token.user_id) ?? new Set<string>();
      hashes.add(hash);
      hashesByUser.set(token.user_id, hashes);
    }
  };

  const subscriptions: Subscription[] = await Promise.all([
    onEvent(
      bus,
      'billing.token.updated',
      async ({ key_hash, ...token }) => {
        if (entries.has(key_hash)) remember(key_hash, token);
      },
      { logger },
    ),
    onEvent(bus, 'billing.token.deleted', async ({ key_hash }) => void entries.set(key_hash, { token: null, expiresAt: Date.now() + unknownTtlMs }), {
      logger,
    }),
    onEvent(
      bus,
      'billing.account.updated',
      async ({ user_id, status, group, role }) => {
        for (const hash of hashesByUser.get(user_id) ?? []) {
          const entry = entries.get(hash);
          if (!entry?.token) continue;
          const ownGroup = entry.token.group === entry.token.owner_group;
          entry.token = Object.assign({}, entry.token, {
            owner_status: status,
            owner_group: group,
            owner_role: role,
            group: ownGroup ? group : entry.token.group,
          });
        }
      },
      { logger },
    ),
  ]);

  return {
    async resolve(key) {
      const hash = tokenKeyHash(key);
      const hit = entries.get(hash);
      if (hit && hit.expiresAt > Date.now()) return hit.token;
      // One request to billing per key at a time, however many requests race for it.
      let lookup = pending.get(hash);
      if (!lookup) {
        lookup = requestTyped(bus, 'billing.token.resolve', { key_hash: hash }, { timeoutMs: 3_000 })
          .then(
            ({ token }) => {
              remember(hash, token);
              return token;
            },
            (error: unknown) => {
              // Billing or the bus is away: the key can be neither accepted nor refused (503, try again).
              throw new OperationalError('billing did not answer the key lookup', 'billing_unavailable', 503, error);
            },
          )
          .finally(() => pending.delete(hash));
        pending.set(hash, lookup);
      }
      return lookup;
    },
    close: async () => void (await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()))),
  };
}
