import type { EntityManager } from 'typeorm';
import { LogType, type TaskRefund } from '@aigw/contracts';
import { counterKeys, isUniqueViolation, onEvent, param, queryRows, type Subscription } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { AccountEntity, LedgerEntryEntity, LedgerKind, LogEntity } from './entities/index.js';
import { adjustLiveUser, applyToAccount, ensureAccount, formatQuota, storedLogMessage } from './ledger.js';
import { publishAccountUpdated } from './events.js';

/**
 * Refunds of failed async tasks: `relay.task.refunded` gives a Midjourney or Suno task's charge
 * back once it ended in FAILURE or timed out. What goes back is what this ledger recorded for the
 * task's charges (their request ids), never the relay's figure: a relay that died after storing a
 * task but before charging it left a record of nothing charged, and nothing is refunded. A charge
 * not recorded yet (its usage event still on the way) makes the refund wait: it is redelivered.
 * One transaction writes the refund ledger row (keyed by `refund_id`, unique), credits the balance
 * and takes the charge off used_quota, gives a limited token its quota back and writes a system
 * log; the event is acknowledged after the commit. As in the usage ledger, a redelivery finds the ledger row and is skipped, and two
 * replicas racing collide on the unique key, the loser skipping: a refund applies exactly once.
 * After the commit the live counters move by the refund, as after a top-up.
 */

/** A refund is money: it is never given up (1000 deliveries 5 s apart ride out an hour-long outage). */
const deliveryPolicy = { maxDeliver: 1000, retryDelayMs: 5_000 };

export type RefundOutcome = 'applied' | 'duplicate';

type RefundContext = Pick<BillingContext, 'db' | 'bus' | 'counters' | 'logger' | 'options'>;

/** What the committed refund changed, for the live counters. */
interface Refunded {
  /** What went back: the sum the ledger recorded for the task's charges. */
  amount: number;
  /** The token got its quota back and is limited, so its live counter (if loaded) moves too. */
  limitedToken: boolean;
}

export async function subscribeTaskRefunds(context: BillingContext): Promise<Subscription> {
  const { bus, logger } = context;
  return onEvent(
    bus,
    'relay.task.refunded',
    async (refund) => {
      if ((await applyTaskRefund(context, refund)) === 'duplicate')
        logger.debug({ refundId: refund.refund_id }, 'task refund already applied; redelivery skipped');
    },
    { durable: 'billing-task-refunds', logger, ...deliveryPolicy },
  );
}

/** Applies one refund in its own transaction; 'duplicate' when its refund id was applied before. */
export async function applyTaskRefund(context: RefundContext, refund: TaskRefund): Promise<RefundOutcome> {
  const { db, logger } = context;
  let refunded: Refunded | null;
  try {
    refunded = await db.transaction((manager) => refundInTransaction(context, manager, refund));
  } catch (error) {
    // On PostgreSQL the violation aborted the transaction: decide outside it. A unique violation
    // with the ledger row present means a concurrent delivery won; anything else is retried.
    if (isUniqueViolation(error) && (await db.manager.existsBy(LedgerEntryEntity, { request_id: refund.refund_id }))) return 'duplicate';
    throw error;
  }
  if (!refunded) return 'duplicate';
  // After the commit. The refund stands whatever happens here, and a redelivery would find it
  // applied, so a failure is logged rather than thrown. A counter left too low errs on the safe side.
  try {
    await adjustLiveUser(context.counters, refund.user_id, refunded.amount);
    // adjust: an unloaded counter stays unloaded, and seeds from the refunded row.
    if (refunded.limitedToken && refunded.amount > 0) await context.counters.adjust(counterKeys.token(refund.token_id), refunded.amount);
    await publishAccountUpdated(context, refund.user_id);
  } catch (error) {
    logger.error({ err: error, refundId: refund.refund_id }, 'task refund applied, but updating the live counters or publishing failed');
  }
  return 'applied';
}

/** null: the refund was applied before. */
async function refundInTransaction(context: Pick<BillingContext, 'options'>, manager: EntityManager, refund: TaskRefund): Promise<Refunded | null> {
  const db = manager.connection;
  if (await manager.existsBy(LedgerEntryEntity, { request_id: refund.refund_id })) return null;
  const amount = await chargedFor(manager, refund);
  const account = await manager.findOneBy(AccountEntity, { user_id: refund.user_id });
  if (!account) await ensureAccount(manager, refund.user_id);

  // The refunded charge is no longer used: used_quota goes down by it, the request count stays.
  // A refund of nothing still writes its (zero) row: the refund id is then known as applied.
  await applyToAccount(manager, {
    userId: refund.user_id,
    kind: LedgerKind.Refund,
    amount,
    requestId: refund.refund_id,
    usage: { used: 0 - amount, requests: 0 },
  });

  let token: { name: string; limited: boolean } | undefined;
  if (refund.token_id > 0) {
    // As the charge did: remain_quota only for a limited token, and only a token of this user.
    const rows = await queryRows<{ name: string; unlimited_quota: boolean | number }>(
      manager,
      `UPDATE tokens SET remain_quota = CASE WHEN unlimited_quota THEN remain_quota ELSE remain_quota + ${param(db, 1)} END, ` +
        `used_quota = used_quota - ${param(db, 2)} WHERE id = ${param(db, 3)} AND user_id = ${param(db, 4)} RETURNING name, unlimited_quota`,
      [amount, amount, refund.token_id, refund.user_id],
    );
    // SQLite answers the flag as 0 or 1.
    if (rows[0]) token = { name: rows[0].name, limited: !rows[0].unlimited_quota };
  }

  const { task } = refund;
  const reason = refund.reason ? `: ${refund.reason}` : '';
  await manager.insert(LogEntity, {
    request_id: refund.refund_id,
    user_id: refund.user_id,
    username: account?.username ?? '',
    created_at: refund.created_at,
    type: LogType.System,
    ...storedLogMessage({
      id: amount > 0 ? 'task.refunded' : 'task.not_charged',
      params: {
        task_id: task.task_id,
        platform: task.platform,
        action: task.action,
        reason,
        ...(amount > 0 ? { quota: formatQuota(amount, context.options.get('QuotaPerUnit')) } : {}),
      },
    }),
    token_id: refund.token_id,
    token_name: token?.name ?? '',
    quota: amount,
  });
  return { amount, limitedToken: token?.limited ?? false };
}

/** A charge of the task is not in the ledger yet: the refund waits for it (the event is redelivered). */
export class ChargeNotRecordedError extends Error {
  constructor(readonly requestId: string) {
    super(`the charge ${requestId} is not recorded yet; the refund waits for it`);
    this.name = 'ChargeNotRecordedError';
  }
}

/**
 * What the ledger recorded for the task's charges (usage entries of this user by request id,
 * negative amounts): the refund gives back exactly that. Throws ChargeNotRecordedError while one is
 * missing: every forwarded request gets exactly one usage record, so it comes.
 */
async function chargedFor(manager: EntityManager, refund: TaskRefund): Promise<number> {
  const db = manager.connection;
  const charges = [...new Set(refund.charges)];
  const placeholders = charges.map((_, index) => param(db, index + 3)).join(', ');
  const rows = await queryRows<{ request_id: string; amount: number | string }>(
    manager,
    `SELECT request_id, amount FROM ledger_entries WHERE user_id = ${param(db, 1)} AND kind = ${param(db, 2)} AND request_id IN (${placeholders})`,
    [refund.user_id, LedgerKind.Usage, ...charges],
  );
  const recorded = new Set(rows.map((row) => row.request_id));
  const missing = charges.find((requestId) => !recorded.has(requestId));
  if (missing) throw new ChargeNotRecordedError(missing);
  return rows.reduce((sum, row) => sum - Number(row.amount), 0);
}
