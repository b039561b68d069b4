import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { affTransferBodySchema, LogType } from '@aigw/contracts';
import { requireAuth, UserError } from '@aigw/platform';
import type { BillingContext } from '../context.js';
import { AccountEntity, LedgerKind } from '../entities/index.js';
import { adjustLiveUser, applyToAccount, ensureAccount, formatQuota, writeLog } from '../ledger.js';
import { publishAccountUpdated } from '../events.js';

/** Moving invite earnings (aff_quota) into the spendable balance. */
export const accountRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app, { context }) => {
  const { db, options } = context;

  app.post('/api/user/aff_transfer', { schema: { body: affTransferBodySchema }, config: { access: 'user' } }, async (request) => {
    const userId = requireAuth(request).userId;
    const amount = request.body.quota;
    const perUnit = options.get('QuotaPerUnit');
    if (amount < perUnit) throw new UserError(`quota: minimum transfer amount is ${formatQuota(perUnit, perUnit)}`);
    await db.transaction(async (manager) => {
      await ensureAccount(manager, userId);
      // One conditional statement: two concurrent transfers cannot both spend the same earnings.
      const taken = await manager
        .createQueryBuilder()
        .update(AccountEntity)
        .set({ aff_quota: () => 'aff_quota - :amount' })
        .where('user_id = :userId AND aff_quota >= :amount', { userId, amount })
        .execute();
      if (!taken.affected) throw new UserError('quota: more than your pending invite earnings');
      await applyToAccount(manager, { userId, kind: LedgerKind.Transfer, amount });
      await writeLog(manager, {
        userId,
        type: LogType.System,
        quota: amount,
        content: `transferred invite earnings ${formatQuota(amount, perUnit)} to the balance`,
      });
    });
    await adjustLiveUser(context.counters, userId, amount);
    await publishAccountUpdated(context, userId);
    return { success: true, message: `transferred ${formatQuota(amount, perUnit)}` };
  });
};
