import type { EntityManager } from 'typeorm';
import { USAGE_LEDGER_CONSUMER, type UsageRecord } from '@aigw/contracts';
import { onEvent, releaseCommitted, type Subscription } from '@aigw/platform';
import { currentTraceparent, inSpan } from '@aigw/platform/tracing';
import type { BillingContext } from './context.js';
import { applyBatch, type BalanceDrop, type RecordResult, type RequestStarted } from './usage-batch.js';
import { publishBalanceDropped } from './events.js';
import { measuredCommit, observeUsageEvent } from './metrics.js';

export type { BalanceDrop, RequestStarted } from './usage-batch.js';

/**
 * The usage ledger: persists `relay.usage.recorded` exactly once per request id. Everything one
 * request changes (consume log, account balance + used_quota + request_count through a ledger
 * row, the token's remain/used, the hourly aggregate) is written in ONE transaction (with the
 * rest of its batch, by a fixed number of multi-row statements: usage-batch.ts), and the
 * bus acknowledges the event only after it committed, so a crash can lose nothing and half-apply
 * nothing. The live counters are not moved: the relay settled them before publishing; after
 * commit each charge leaves the user's held counter (see the quota gate: spendable = database
 * balance - held, so a counter re-seeded from the database stays exact).
 *
 * Idempotency: the ledger row's request_id is unique, and the ledger row is inserted first with
 * ON CONFLICT DO NOTHING. A redelivered event (or the same request published under another event
 * id) finds its ledger row and changes nothing; of two deliveries racing on different replicas,
 * the later insert waits for the earlier transaction and skips the row once it committed. No
 * retry can apply twice, and nothing has to roll back to find out.
 *
 * Batches (group commit): the Bus port acknowledges an event when its handler returns, so a
 * batch cannot be formed by acknowledging early. Instead the consumer takes up to
 * USAGE_IN_FLIGHT events at once (`inFlight`) and the handlers park them here; whatever arrived
 * while the previous transaction ran is applied in the next one, and each handler returns (acks)
 * after that commit. The batch grows with the backlog: in the all-in-one process, where the
 * relay's requests share the event loop with these commits, a batch of 64 at most fell behind a
 * relay at full speed (3,400 events after 10 s of load); now one commit takes whatever waited.
 * If a batch fails, its events are retried one transaction each, so only the failing event is
 * redelivered. Usage deltas commute, so giving up the per-subject order costs nothing. A batch is
 * collected for a short window from its oldest event's arrival, after a commit too (or until
 * every delivery in flight is parked): one commit then covers many requests, which is most of
 * the saving, and in the all-in-one process the work leaves the relay's requests alone in
 * between. usage-ledger.test.ts logs the rates.
 *
 * Pending requests: `relay.request.started` (published when the relay first forwards a request)
 * parks here too. Unless its usage record is in the same batch, it becomes a pending row, which
 * the transaction applying the record deletes; a record that arrived first makes it a no-op. The
 * pending sweep (pending-requests.ts) applies the row's own record when its relay died, through
 * `applyUsage`, so it competes with a late real record on the same unique key.
 *
 * Low balance: a request that took the account from at or above QuotaRemindThreshold to below it
 * is reported (`billing.balance.dropped`, for the notifier's warning) after its transaction
 * committed and before its event is acknowledged. The balance before the batch is the balance
 * the UPDATE returned plus the batch's charges; each request of the user then takes its own step
 * in batch order, and only the one that crossed reports it.
 */

/** Deliveries in flight at once per subject: the most one commit waits for before it goes. */
export const USAGE_IN_FLIGHT = 500;

/** How long a batch collects events, from its oldest's arrival, before it is applied. */
export const USAGE_BATCH_WINDOW_MS = 20;

/**
 * The most events one transaction takes. The bus gives at most twice USAGE_IN_FLIGHT at once; a
 * caller parking more directly still stays far below the bound parameters a statement may have
 * (the log insert binds 17 per record; PostgreSQL allows 65,535).
 */
export const USAGE_MAX_BATCH = 1_000;

/**
 * Usage is money: an event is never given up after a few failures (the database may be away for
 * a while). 1000 deliveries 5 s apart ride out well over an hour of outage.
 */
const deliveryPolicy = { maxDeliver: 1000, retryDelayMs: 5_000 };

/** 'pending': a started request was kept until its record arrives. */
export type UsageOutcome = 'applied' | 'duplicate' | 'pending';

/** What the consumer parks: a usage record, or a request the relay has started. */
type Arrival = { kind: 'recorded'; usage: UsageRecord } | { kind: 'started'; started: RequestStarted };

export interface UsageBatcher {
  recorded(usage: UsageRecord): Promise<UsageOutcome>;
  started(started: RequestStarted): Promise<UsageOutcome>;
}

type UsageContext = Pick<BillingContext, 'db' | 'options' | 'counters'> & {
  /** Told after commit about each request that took its account below QuotaRemindThreshold. */
  onBalanceDropped?: (drop: BalanceDrop) => Promise<void>;
  /** Told when a batch's transaction failed and its events are applied one per transaction instead. */
  onBatchFailed?: (error: unknown, events: number) => void;
};

/** A record's result (with the charge to take off the held counter), or a started request's. */
type Applied = RecordResult | { outcome: 'pending' | 'duplicate' };

interface Parked {
  arrival: Arrival;
  /** The delivery's trace (tracing on): the batch's span continues the first and links the rest. */
  trace: string | undefined;
  /** When it parked (epoch ms): its batch goes at most USAGE_BATCH_WINDOW_MS later, unless a commit runs. */
  at: number;
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
    // Nothing is lost (each event then gets its own transaction), but a batch should not fail.
    onBatchFailed: (error, events) => logger.warn({ err: error, events }, 'usage batch failed; applying its events one per transaction'),
  });
  const subscribeOptions = { durable: USAGE_LEDGER_CONSUMER, logger, ...deliveryPolicy, inFlight: USAGE_IN_FLIGHT };
  const subscriptions = [
    await onEvent(
      bus,
      'relay.usage.recorded',
      async (usage, event) => {
        const outcome = await apply.recorded(usage);
        observeUsageEvent('recorded', outcome, event.time);
        if (outcome === 'duplicate') logger.debug({ requestId: usage.request_id }, 'usage already applied; redelivery skipped');
      },
      subscribeOptions,
    ),
    await onEvent(
      bus,
      'relay.request.started',
      async (started, event) => observeUsageEvent('started', await apply.started(started), event.time),
      subscribeOptions,
    ),
  ];
  return { unsubscribe: async () => void (await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()))) };
}

/** Parks events and applies them in serial transactions, each taking everything parked meanwhile. */
export function createUsageBatcher(context: UsageContext): UsageBatcher {
  const parked: Parked[] = [];
  let draining = false;

  let flushNow: (() => void) | undefined;

  /** Waits until `ms` passed or every delivery in flight is parked (flushNow). */
  const collect = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      flushNow = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (flushNow = undefined));

  async function drain(): Promise<void> {
    while (parked.length > 0) {
      // Collected for a window from the oldest event's arrival, after a commit too: under a light
      // load a commit otherwise took whatever parked while the last one ran, every few
      // milliseconds (the all-in-one process at one request in flight: a commit of ~10 events
      // every 6.6 ms). A backlog goes at once: its oldest already waited the window.
      const waited = Date.now() - parked[0]!.at;
      if (waited < USAGE_BATCH_WINDOW_MS && parked.length < USAGE_IN_FLIGHT) await collect(USAGE_BATCH_WINDOW_MS - waited);
      const batch = parked.splice(0, USAGE_MAX_BATCH);
      // Traced: a span under the first delivery's, linked to the others'.
      const traces = batch.map((entry) => entry.trace);
      await inSpan('billing usage batch', 'internal', { 'aigw.batch.size': batch.length }, () => applyParked(context, batch), traces[0], traces.slice(1));
      // One turn of the event loop lets the deliveries just acknowledged park their next events
      // (promise chains), so a backlog's next batch is all of them rather than the first few.
      await new Promise((resolve) => setImmediate(resolve));
    }
    draining = false;
  }

  const park = (arrival: Arrival) =>
    new Promise<UsageOutcome>((resolve, reject) => {
      parked.push({ arrival, resolve, reject, trace: currentTraceparent(), at: Date.now() });
      if (parked.length >= USAGE_IN_FLIGHT) flushNow?.();
      if (draining) return;
      draining = true;
      void drain();
    });
  return {
    recorded: (usage) => park({ kind: 'recorded', usage }),
    started: (started) => park({ kind: 'started', started }),
  };
}

async function applyParked(context: UsageContext, batch: Parked[]): Promise<void> {
  if (batch.length > 1) {
    const arrivals = batch.map(({ arrival }) => arrival);
    let results: Applied[] | undefined;
    try {
      results = await measuredCommit(batch.length, () => context.db.transaction((manager) => applyArrivals(context, manager, arrivals)));
    } catch (error) {
      // Rolled back whole: one transaction each, so only the failing event is redelivered.
      context.onBatchFailed?.(error, batch.length);
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

/** A batch in one transaction (usage-batch.ts): the results in the arrivals' order. */
async function applyArrivals(context: UsageContext, manager: EntityManager, arrivals: Arrival[]): Promise<Applied[]> {
  const records = arrivals.flatMap((arrival) => (arrival.kind === 'recorded' ? [arrival.usage] : []));
  const started = arrivals.flatMap((arrival) => (arrival.kind === 'started' ? [arrival.started] : []));
  const result = await applyBatch(manager, context.options, records, started);
  let next = 0;
  return arrivals.map((arrival) => {
    if (arrival.kind === 'recorded') return result.records[next++]!;
    return { outcome: result.pending.has(arrival.started.record.request_id) ? 'pending' : 'duplicate' };
  });
}

/**
 * After commit: takes the charges off the held counters and reports drops below the threshold,
 * then gives the outcomes. A held counter left too high (Redis away) only errs on the safe side:
 * a later re-seed lets the user spend less, never more.
 */
async function committed(context: UsageContext, results: Applied[]): Promise<UsageOutcome[]> {
  const charges = results.flatMap((applied) => (applied.outcome === 'applied' ? [applied.charge] : []));
  await releaseCommitted(context.counters, charges).catch(() => undefined);
  for (const applied of results) if (applied.outcome === 'applied' && applied.dropped) await context.onBalanceDropped?.(applied.dropped);
  return results.map((applied) => applied.outcome);
}

/**
 * Applies one usage record in its own transaction (its pending row goes with it); 'duplicate'
 * when its request id was applied before, or by a concurrent delivery that committed first.
 */
export async function applyUsage(context: UsageContext, usage: UsageRecord): Promise<UsageOutcome> {
  const applied = await measuredCommit(1, () =>
    context.db.transaction(async (manager) => (await applyBatch(manager, context.options, [usage], [])).records[0]!),
  );
  return (await committed(context, [applied]))[0]!;
}

/** Keeps a started request as a pending row in its own transaction. */
async function keepStarted(context: UsageContext, started: RequestStarted): Promise<UsageOutcome> {
  const kept = await measuredCommit(1, () => context.db.transaction(async (manager) => (await applyBatch(manager, context.options, [], [started])).pending));
  return kept.size > 0 ? 'pending' : 'duplicate';
}
