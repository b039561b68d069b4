import type { EntityManager } from 'typeorm';
import { LogType, type EventPayload, type UsageRecord } from '@aigw/contracts';
import { isPostgres, isUniqueViolation, onEvent, param, publishEvent, queryRows, type Subscription } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { LedgerEntryEntity, LedgerKind } from './entities/index.js';
import { applyToAccount, ensureAccount } from './ledger.js';
import { recordUsageHour } from './usage-data.js';

/**
 * The usage ledger: persists `relay.usage.recorded` exactly once per request id. Everything one
 * request changes (consume log, account balance + used_quota + request_count through a ledger
 * row, the token's remain/used, the hourly aggregate) is written in ONE transaction, and the
 * bus acknowledges the event only after it committed, so a crash can lose nothing and half-apply
 * nothing. The live counters are not touched: the relay settled them before publishing.
 *
 * Idempotency: the ledger row's request_id is unique. A redelivered event (or the same request
 * published under another event id) finds its ledger row and is skipped; two deliveries racing
 * on different replicas collide on the unique key, and the loser (its transaction rolled back)
 * checks the winner committed and skips too. No retry can apply twice.
 *
 * Batches (group commit): the Bus port acknowledges an event when its handler returns, so a
 * batch cannot be formed by acknowledging early. Instead the consumer subscribes several times
 * under one durable name (on NATS: parallel pull loops on the one JetStream consumer) and the
 * handlers park their events here; whatever arrived while the previous transaction ran is
 * applied in the next one, and each handler returns (acks) after that commit. If a batch fails,
 * its events are retried one transaction each, so only the failing event is redelivered. Usage
 * deltas commute, so giving up the per-subject order costs nothing. A batch is collected for a
 * short window (or until every delivery in flight is parked): one commit then covers many
 * requests, which is most of the saving, and in the all-in-one process the work leaves the
 * relay's requests alone in between. usage-ledger.test.ts logs the rates.
 *
 * Low balance: a request that took the account from at or above QuotaRemindThreshold to below it
 * is reported (`billing.balance.dropped`, for the notifier's warning) after its transaction
 * committed and before its event is acknowledged. The balance before is the balance after plus
 * the charge, read from the UPDATE itself, so requests of one user in one batch each see their
 * own step and only the one that crossed reports it.
 */

/** Deliveries in flight at once: the largest batch. */
export const USAGE_PARALLEL_DELIVERIES = 64;

/** How long a batch collects events before it is applied. */
export const USAGE_BATCH_WINDOW_MS = 20;

/**
 * Usage is money: an event is never given up after a few failures (the database may be away for
 * a while). 1000 deliveries 5 s apart ride out well over an hour of outage.
 */
const deliveryPolicy = { maxDeliver: 1000, retryDelayMs: 5_000 };

export type UsageOutcome = 'applied' | 'duplicate';

export type BalanceDrop = EventPayload<'billing.balance.dropped'>;

type UsageContext = Pick<BillingContext, 'db' | 'options'> & {
  /** Told after commit about each request that took its account below QuotaRemindThreshold. */
  onBalanceDropped?: (drop: BalanceDrop) => Promise<void>;
};

interface Applied {
  outcome: UsageOutcome;
  dropped?: BalanceDrop;
}

interface Parked {
  usage: UsageRecord;
  resolve(outcome: UsageOutcome): void;
  reject(error: unknown): void;
}

export async function subscribeUsage(context: BillingContext): Promise<Subscription> {
  const { bus, logger } = context;
  const apply = createUsageBatcher({
    ...context,
    async onBalanceDropped(drop) {
      // The usage is committed either way; a redelivery would find it applied and not report
      // again, so a lost report is logged rather than retried (it is a courtesy mail, not money).
      await publishEvent(bus, 'billing.balance.dropped', drop, `balance-dropped-${drop.request_id}`)
        .catch((error: unknown) => logger.error({ err: error, userId: drop.user_id, requestId: drop.request_id }, 'low balance not reported'));
    },
  });
  const subscriptions: Subscription[] = [];
  // One after the other: each subscribe creates or updates the same durable consumer.
  for (let index = 0; index < USAGE_PARALLEL_DELIVERIES; index++) {
    subscriptions.push(await onEvent(bus, 'relay.usage.recorded', async (usage) => {
      if ((await apply(usage)) === 'duplicate') logger.debug({ requestId: usage.request_id }, 'usage already applied; redelivery skipped');
    }, { durable: 'billing-usage', logger, ...deliveryPolicy }));
  }
  return { unsubscribe: async () => void (await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()))) };
}

/** Parks events and applies them in serial transactions, each taking everything parked meanwhile. */
export function createUsageBatcher(context: UsageContext): (usage: UsageRecord) => Promise<UsageOutcome> {
  let parked: Parked[] = [];
  let draining = false;

  let flushNow: (() => void) | undefined;

  async function drain(): Promise<void> {
    // Collect for a short window; a full batch goes at once.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, USAGE_BATCH_WINDOW_MS);
      flushNow = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    flushNow = undefined;
    while (parked.length > 0) {
      const batch = parked;
      parked = [];
      await applyParked(context, batch);
    }
    draining = false;
  }

  return (usage) => new Promise<UsageOutcome>((resolve, reject) => {
    parked.push({ usage, resolve, reject });
    if (parked.length >= USAGE_PARALLEL_DELIVERIES) flushNow?.();
    if (draining) return;
    draining = true;
    void drain();
  });
}

async function applyParked(context: UsageContext, batch: Parked[]): Promise<void> {
  if (batch.length > 1) {
    // Rows are locked in user order, so two replicas' batches cannot deadlock on each other's accounts.
    batch.sort((a, b) => a.usage.user_id - b.usage.user_id);
    let results: Applied[] | undefined;
    try {
      results = await context.db.transaction(async (manager) => {
        const applied: Applied[] = [];
        for (const { usage } of batch) applied.push(await applyInTransaction(context, manager, usage));
        return applied;
      });
    } catch {
      // Rolled back whole: one transaction each, so only the failing event is redelivered.
    }
    if (results) {
      for (const [index, entry] of batch.entries()) entry.resolve(await committed(context, results[index]!));
      return;
    }
  }
  for (const entry of batch) await applyUsage(context, entry.usage).then(entry.resolve, entry.reject);
}

/** After commit: reports a drop below the threshold, then gives the outcome. */
async function committed(context: UsageContext, applied: Applied): Promise<UsageOutcome> {
  if (applied.dropped) await context.onBalanceDropped?.(applied.dropped);
  return applied.outcome;
}

/** Applies one usage record in its own transaction; 'duplicate' when its request id was applied before. */
export async function applyUsage(context: UsageContext, usage: UsageRecord): Promise<UsageOutcome> {
  const { db } = context;
  let applied: Applied;
  try {
    applied = await db.transaction((manager) => applyInTransaction(context, manager, usage));
  } catch (error) {
    // On PostgreSQL the violation aborted the transaction: decide outside it. A unique violation
    // with the ledger row present means a concurrent delivery won; anything else is retried.
    if (isUniqueViolation(error) && (await db.manager.existsBy(LedgerEntryEntity, { request_id: usage.request_id }))) return 'duplicate';
    throw error;
  }
  return committed(context, applied);
}

async function applyInTransaction(context: Pick<BillingContext, 'options'>, manager: EntityManager, usage: UsageRecord): Promise<Applied> {
  const { options } = context;
  const db = manager.connection;
  // Raw statements throughout: this runs once per relayed request (the query builder's overhead
  // was most of the cost, and it runs on the event loop in the all-in-one process).
  if ((await queryRows(manager, `SELECT 1 AS found FROM ledger_entries WHERE request_id = ${param(db, 1)}`, [usage.request_id])).length > 0) return { outcome: 'duplicate' };
  let account = (await queryRows<{ username: string }>(manager, `SELECT username FROM accounts WHERE user_id = ${param(db, 1)}`, [usage.user_id]))[0];
  if (!account) {
    // Usage may outrun the registration event; the identity event fills in the profile later.
    await ensureAccount(manager, usage.user_id);
    account = { username: '' };
  }
  const quota = usage.quota;

  if (options.get('LogConsumeEnabled')) {
    const values = [
      usage.request_id, usage.user_id, account.username, usage.created_at, LogType.Consume, usage.content, usage.token_id, usage.token_name,
      usage.model_name, quota, usage.prompt_tokens, usage.completion_tokens, Math.floor(usage.use_time_ms / 1000), usage.is_stream,
      usage.channel_id, usage.group, JSON.stringify(usage.other),
    ];
    await queryRows(manager,
      `INSERT INTO logs (request_id, user_id, username, created_at, type, content, token_id, token_name, model_name, quota, prompt_tokens, ` +
      `completion_tokens, use_time, is_stream, channel_id, "group", other) VALUES (${values.map((_, index) => param(db, index + 1)).join(', ')})`,
      values.map((value) => (typeof value === 'boolean' && !isPostgres(db) ? Number(value) : value)));
  }

  // No floor: the relay already admitted the request; a charge above its hold is the bounded overdraft.
  // `0 - quota` rather than `-quota`: a free request must store 0, not -0.
  const balance = await applyToAccount(manager, {
    userId: usage.user_id, kind: LedgerKind.Usage, amount: 0 - quota, requestId: usage.request_id, usage: { used: quota, requests: 1 },
  });
  const threshold = options.get('QuotaRemindThreshold');
  const dropped = balance !== null && balance < threshold && balance + quota >= threshold
    ? { user_id: usage.user_id, quota: balance, threshold, request_id: usage.request_id }
    : undefined;

  if (usage.token_id > 0) {
    // remain_quota only moves for limited tokens; the owner check keeps a forged token id harmless.
    await queryRows(manager,
      `UPDATE tokens SET remain_quota = CASE WHEN unlimited_quota THEN remain_quota ELSE remain_quota - ${param(db, 1)} END, ` +
      `used_quota = used_quota + ${param(db, 2)}, accessed_time = ${param(db, 3)} WHERE id = ${param(db, 4)} AND user_id = ${param(db, 5)} RETURNING id`,
      [quota, quota, Math.floor(Date.now() / 1000), usage.token_id, usage.user_id]);
  }

  if (options.get('DataExportEnabled')) {
    await recordUsageHour(manager, {
      userId: usage.user_id, username: account.username, modelName: usage.model_name, createdAt: usage.created_at,
      quota, tokens: usage.prompt_tokens + usage.completion_tokens,
    });
  }
  return { outcome: 'applied', dropped };
}
