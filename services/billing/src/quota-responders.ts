import { counterKeys, replyTyped, type Subscription } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { AccountEntity, TokenEntity } from './entities/index.js';
import { ensureAccount } from './ledger.js';

/**
 * `billing.quota.seed`: the quota gate asks for this when a live counter is missing (first use
 * since Redis or the process started). The counters are loaded from the database with SET NX,
 * so a counter that is already live (and may carry holds the database does not know about) is
 * never overwritten; a user's counter is loaded as the balance less what is held against it
 * (open holds and charges not committed yet: see the quota gate). The reply is what the
 * counters hold afterwards.
 *
 * Known window: a top-up committed between our read and the SET NX finds no counter to adjust,
 * and the seed then stores the older balance. That errs on the safe side (the user can spend
 * less, never more) and the next reseed (e.g. after a Redis restart) corrects it.
 */
export function registerQuotaResponders(context: BillingContext): Promise<Subscription> {
  const { bus, db, counters } = context;
  return replyTyped(bus, 'billing.quota.seed', async ({ user_id, token_id }) => {
    await ensureAccount(db.manager, user_id);
    const account = await db.getRepository(AccountEntity).findOneByOrFail({ user_id });
    const user = await counters.seed(counterKeys.user(user_id), account.quota, counterKeys.userHeld(user_id));
    let token: number | null = null;
    if (token_id > 0) {
      // Only the owner's limited token has a counter; an unknown or unlimited one answers null.
      const row = await db.getRepository(TokenEntity).findOneBy({ id: token_id, user_id });
      if (row && !row.unlimited_quota) token = await counters.seed(counterKeys.token(token_id), row.remain_quota);
    }
    return { user, token };
  });
}
