import type { EntityManager } from 'typeorm';
import { LogType, USAGE_LEDGER_CONSUMER, type EventPayload, type UsageRecord } from '@aigw/contracts';
import { isPostgres, isUniqueViolation, onEvent, param, queryRows, releaseCommitted, type Subscription } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { LedgerEntryEntity, LedgerKind } from './entities/index.js';
import { applyToAccount, ensureAccount } from './ledger.js';
import { recordUsageHour } from './usage-data.js';
import { publishBalanceDropped } from './events.js';

/**
 * The usage ledger: persists `relay.usage.recorded` exactly once per request id. Everything one
 * request changes (consume log, account balance + used_quota + request_count through a ledger
 * row, the token's remain/used, the hourly aggregate) is written in ONE transaction, and the
 * bus acknowledges the event only after it committed, so a crash can lose nothing and half-apply
 * nothing. The live counters are not moved: the relay settled them before publishing; after
 * commit each charge leaves the user's held counter (see the quota gate: spendable = database
 * balance - held, so a counter re-seeded from the database stays exact).
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
 * Pending requests: `relay.request.started` (published when the relay first forwards a request)
 * parks here too. Unless its usage record is in the same batch, it becomes a pending row, which
 * the transaction applying the record deletes; a record that arrived first makes it a no-op. The
 * pending sweep (pending-requests.ts) applies the row's own record when its relay died, through
 * `applyUsage`, so it competes with a late real record on the same unique key.
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

/** 'pending': a started request was kept until its record arrives. */
export type UsageOutcome = 'applied' | 'duplicate' | 'pending';

export type BalanceDrop = EventPayload<'billing.balance.dropped'>;

export type RequestStarted = EventPayload<'relay.request.started'>;

/** What the consumer parks: a usage record, or a request the relay has started. */
type Arrival = { kind: 'recorded'; usage: UsageRecord } | { kind: 'started'; started: RequestStarted };

export interface UsageBatcher {
  recorded(usage: UsageRecord): Promise<UsageOutcome>;
  started(started: RequestStarted): Promise<UsageOutcome>;
}

type UsageContext = Pick<BillingContext, 'db' | 'options' | 'counters'> & {
  /** Told after commit about each request that took its account below QuotaRemindThreshold. */
  onBalanceDropped?: (drop: BalanceDrop) => Promise<void>;
};

interface Applied {
  outcome: UsageOutcome;
  dropped?: BalanceDrop;
  /** The charge committed, to take off the user's held counter. */
  charge?: { userId: number; quota: number };
}

interface Parked {
  arrival: Arrival;
  resolve: (outcome: UsageOutcome) => void;
  reject: (error: unknown) => void;
}

export async function subscribeUsage(context: BillingContext): Promise<Subscription> {
  const { bus, logger } = context;
  const apply = createUsageBatcher({
    ...context,
    async onBalanceDropped(drop) {
      // The usage is committed either way; a redelivery would find it applied and not report
      // again, so a lost report is logged rather than retried (it is a courtesy mail, not money).
      await publishBalanceDropped(bus, drop).catch((error: unknown) =>
        logger.error({ err: error, userId: drop.user_id, requestId: drop.request_id }, 'low balance not reported'),
      );
    },
  });
  const subscriptions: Subscription[] = [];
  // One after the other: each subscribe creates or updates the same durable consumer.
  for (let index = 0; index < USAGE_PARALLEL_DELIVERIES; index++) {
    subscriptions.push(
      await onEvent(
        bus,
        'relay.usage.recorded',
        async (usage) => {
          if ((await apply.recorded(usage)) === 'duplicate') logger.debug({ requestId: usage.request_id }, 'usage already applied; redelivery skipped');
        },
        { durable: USAGE_LEDGER_CONSUMER, logger, ...deliveryPolicy },
      ),
    );
    subscriptions.push(
      await onEvent(
        bus,
        'relay.request.started',
        async (started) => {
          await apply.started(started);
        },
        { durable: USAGE_LEDGER_CONSUMER, logger, ...deliveryPolicy },
      ),
    );
  }
  return { unsubscribe: async () => void (await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()))) };
}

/** Parks events and applies them in serial transactions, each taking everything parked meanwhile. */
export function createUsageBatcher(context: UsageContext): UsageBatcher {
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

  const park = (arrival: Arrival) =>
    new Promise<UsageOutcome>((resolve, reject) => {
      parked.push({ arrival, resolve, reject });
      if (parked.length >= USAGE_PARALLEL_DELIVERIES) flushNow?.();
      if (draining) return;
      draining = true;
      void drain();
    });
  return {
    recorded: (usage) => park({ kind: 'recorded', usage }),
    started: (started) => park({ kind: 'started', started }),
  };
}

const userOf = (arrival: Arrival) => (arrival.kind === 'recorded' ? arrival.usage.user_id : arrival.started.record.user_id);

async function applyParked(context: UsageContext, batch: Parked[]): Promise<void> {
  if (batch.length > 1) {
    // Rows are locked in user order, so two replicas' batches cannot deadlock on each other's accounts.
    batch.sort((a, b) => userOf(a.arrival) - userOf(b.arrival));
    // A request started and recorded within one batch never needs its pending row.
    const recordedIds = batch.flatMap(({ arrival }) => (arrival.kind === 'recorded' ? [arrival.usage.request_id] : []));
    const recorded = new Set(recordedIds);
    let results: Applied[] | undefined;
    try {
      results = await context.db.transaction(async (manager) => {
        const applied: Applied[] = [];
        const started: RequestStarted[] = [];
        for (const { arrival } of batch) {
          if (arrival.kind === 'recorded') applied.push(await applyInTransaction(context, manager, arrival.usage));
          else if (recorded.has(arrival.started.record.request_id)) applied.push({ outcome: 'duplicate' });
          else {
            started.push(arrival.started);
            applied.push({ outcome: 'pending' });
          }
        }
        // Two statements per batch, whatever its size: the pending rows in, the finished ones out.
        const kept = await keepPending(manager, started);
        for (const [index, { arrival }] of batch.entries()) {
          if (arrival.kind === 'started' && applied[index]!.outcome === 'pending' && !kept.has(arrival.started.record.request_id))
            applied[index] = { outcome: 'duplicate' };
        }
        await deletePending(manager, recordedIds);
        return applied;
      });
    } catch {
      // Rolled back whole: one transaction each, so only the failing event is redelivered.
    }
    if (results) {
      const outcomes = await committed(context, results);
      for (const [index, entry] of batch.entries()) entry.resolve(outcomes[index]!);
      return;
    }
  }
  for (const { arrival, resolve, reject } of batch) {
    const applying = arrival.kind === 'recorded' ? applyUsage(context, arrival.usage) : keepStarted(context, arrival.started);
    await applying.then(resolve, reject);
  }
}

/**
 * After commit: takes the charges off the held counters and reports drops below the threshold,
 * then gives the outcomes. A held counter left too high (Redis away) only errs on the safe side:
 * a later re-seed lets the user spend less, never more.
 */
async function committed(context: UsageContext, results: Applied[]): Promise<UsageOutcome[]> {
  const charges = results.flatMap((applied) => (applied.charge ? [applied.charge] : []));
  await releaseCommitted(context.counters, charges).catch(() => undefined);
  for (const applied of results) if (applied.dropped) await context.onBalanceDropped?.(applied.dropped);
  return results.map((applied) => applied.outcome);
}

/**
 * Applies one usage record in its own transaction (its pending row goes with it); 'duplicate'
 * when its request id was applied before.
 */
export async function applyUsage(context: UsageContext, usage: UsageRecord): Promise<UsageOutcome> {
  const { db } = context;
  let applied: Applied;
  try {
    applied = await db.transaction(async (manager) => {
      const result = await applyInTransaction(context, manager, usage);
      await deletePending(manager, [usage.request_id]);
      return result;
    });
  } catch (error) {
    // On PostgreSQL the violation aborted the transaction: decide outside it. A unique violation
    // with the ledger row present means a concurrent delivery won; anything else is retried.
    if (isUniqueViolation(error) && (await db.manager.existsBy(LedgerEntryEntity, { request_id: usage.request_id }))) {
      await deletePending(db.manager, [usage.request_id]);
      return 'duplicate';
    }
    throw error;
  }
  return (await committed(context, [applied]))[0]!;
}

/** Keeps a started request as a pending row in its own transaction. */
async function keepStarted(context: UsageContext, started: RequestStarted): Promise<UsageOutcome> {
  const kept = await context.db.transaction((manager) => keepPending(manager, [started]));
  return kept.size > 0 ? 'pending' : 'duplicate';
}

/**
 * Pending rows for started requests, but those whose record was applied already (it arrived
 * first); returns the request ids kept. One query and one multi-row insert.
 */
async function keepPending(manager: EntityManager, started: RequestStarted[]): Promise<Set<string>> {
  if (started.length === 0) return new Set();
  const db = manager.connection;
  const ids = started.map((entry) => entry.record.request_id);
  const applied = await queryRows<{ request_id: string }>(
    manager,
    `SELECT request_id FROM ledger_entries WHERE request_id IN (${ids.map((_, index) => param(db, index + 1)).join(', ')})`,
    ids,
  );
  const done = new Set(applied.map((row) => row.request_id));
  const rows = started.filter((entry) => !done.has(entry.record.request_id));
  if (rows.length === 0) return new Set();
  const now = Date.now();
  const values = rows.flatMap(({ record, owner, expires_at }) => [record.request_id, record.user_id, owner, expires_at, JSON.stringify(record), now]);
  const tuples = rows.map((_, row) => `(${Array.from({ length: 6 }, (_, column) => param(db, row * 6 + column + 1)).join(', ')})`);
  await queryRows(
    manager,
    `INSERT INTO pending_requests (request_id, user_id, owner, expires_at, record, created_at) VALUES ${tuples.join(', ')} ON CONFLICT (request_id) DO NOTHING`,
    values,
  );
  return new Set(rows.map((entry) => entry.record.request_id));
}

/** Drops the pending rows of requests whose records are applied (in the same transaction). */
async function deletePending(manager: EntityManager, requestIds: string[]): Promise<void> {
  if (requestIds.length === 0) return;
  const db = manager.connection;
  await queryRows(manager, `DELETE FROM pending_requests WHERE request_id IN (${requestIds.map((_, index) => param(db, index + 1)).join(', ')})`, requestIds);
}

async function applyInTransaction(context: Pick<BillingContext, 'options'>, manager: EntityManager, usage: UsageRecord): Promise<Applied> {
  const { options } = context;
  const db = manager.connection;
  // Raw statements throughout: this runs once per relayed request (the query builder's overhead
  // was most of the cost, and it runs on the event loop in the all-in-one process).
  if ((await queryRows(manager, `SELECT 1 AS found FROM ledger_entries WHERE request_id = ${param(db, 1)}`, [usage.request_id])).length > 0)
    return { outcome: 'duplicate' };
  let account = (await queryRows<{ username: string }>(manager, `SELECT username FROM accounts WHERE user_id = ${param(db, 1)}`, [usage.user_id]))[0];
  if (!account) {
    // Usage may outrun the registration event; the identity event fills in the profile later.
    await ensureAccount(manager, usage.user_id);
    account = { username: '' };
  }
  const quota = usage.quota;

  if (options.get('LogConsumeEnabled')) {
    const values = [
      usage.request_id,
      usage.user_id,
      account.username,
      usage.created_at,
      LogType.Consume,
      usage.content,
      usage.token_id,
      usage.token_name,
      usage.model_name,
      quota,
      usage.prompt_tokens,
      usage.completion_tokens,
      Math.floor(usage.use_time_ms / 1000),
      usage.is_stream,
      usage.channel_id,
      usage.group,
      JSON.stringify(usage.other),
    ];
    await queryRows(
      manager,
      `INSERT INTO logs (request_id, user_id, username, created_at, type, content, token_id, token_name, model_name, quota, prompt_tokens, ` +
        `completion_tokens, use_time, is_stream, channel_id, "group", other) VALUES (${values.map((_, index) => param(db, index + 1)).join(', ')})`,
      values.map((value) => (typeof value === 'boolean' && !isPostgres(db) ? Number(value) : value)),
    );
  }

  // No floor: the relay already admitted the request; a charge above its hold is the bounded overdraft.
  // `0 - quota` rather than `-quota`: a free request must store 0, not -0.
  const balance = await applyToAccount(manager, {
    userId: usage.user_id,
    kind: LedgerKind.Usage,
    amount: 0 - quota,
    requestId: usage.request_id,
    usage: { used: quota, requests: 1 },
  });
  const threshold = options.get('QuotaRemindThreshold');
  const dropped =
    balance !== null && balance < threshold && balance + quota >= threshold
      ? { user_id: usage.user_id, quota: balance, threshold, request_id: usage.request_id }
      : undefined;

  if (usage.token_id > 0) {
    // remain_quota only moves for limited tokens; the owner check keeps a forged token id harmless.
    await queryRows(
      manager,
      `UPDATE tokens SET remain_quota = CASE WHEN unlimited_quota THEN remain_quota ELSE remain_quota - ${param(db, 1)} END, ` +
        `used_quota = used_quota + ${param(db, 2)}, accessed_time = ${param(db, 3)} WHERE id = ${param(db, 4)} AND user_id = ${param(db, 5)} RETURNING id`,
      [quota, quota, Math.floor(Date.now() / 1000), usage.token_id, usage.user_id],
    );
  }

  if (options.get('DataExportEnabled')) {
    await recordUsageHour(manager, {
      userId: usage.user_id,
      username: account.username,
      modelName: usage.model_name,
      createdAt: usage.created_at,
      quota,
      tokens: usage.prompt_tokens + usage.completion_tokens,
    });
  }
  return { outcome: 'applied', dropped, charge: { userId: usage.user_id, quota } };
}
