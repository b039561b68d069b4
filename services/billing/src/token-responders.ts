import { replyTyped, type Subscription } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { AccountEntity, TokenEntity } from './entities/index.js';
import { resolveToken } from './tokens.js';

/**
 * `billing.token.resolve`: the relay hashes the sk- key it received and asks for the token
 * behind it (never the key itself, which billing does not keep in plaintext). It caches the
 * answer and refreshes it from `billing.token.updated/deleted`.
 */
export async function registerTokenResponders(context: BillingContext): Promise<Subscription[]> {
  return [
    await replyTyped(context.bus, 'billing.token.resolve', async ({ key_hash }) => ({ token: await resolveToken(context, key_hash) })),
    // The dashboards' figures: the persisted ones (what the ledger committed), not the live counters.
    await replyTyped(context.bus, 'billing.token.figures', async ({ token_id, user_id }) => {
      const token = await context.db.getRepository(TokenEntity).findOneBy({ id: token_id, user_id });
      const account = await context.db.getRepository(AccountEntity).findOneBy({ user_id });
      return {
        token: token && {
          remain_quota: token.remain_quota,
          used_quota: token.used_quota,
          unlimited_quota: token.unlimited_quota,
          expired_time: token.expired_time,
        },
        account: account && { quota: account.quota, used_quota: account.used_quota },
      };
    }),
  ];
}
