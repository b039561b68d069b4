import { JobName, usageRecordSchema } from '@aigw/contracts';
import { leaseState, readCheckpoint, recordedJob, type LeaseState } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { PendingRequestEntity } from './entities/index.js';
import { applyUsage } from './usage-consumer.js';

/**
 * The pending sweep: requests the relay forwarded (`relay.request.started`) whose usage record
 * never came because their relay died. A row is finished by applying its own record (no usage,
 * nothing charged), or the stream's checkpoint when its relay kept one (what it had delivered,
 * charged: the same record the relay's hold sweeper publishes, so the counters and the ledger
 * agree whoever comes first), through the usage ledger, so it competes with a late real record
 * on the same unique request id and a request still ends with exactly one record.
 *
 * When is a relay dead? Its lease (kept in the Kv by the quota gate) names a newer incarnation
 * (the process restarted: at once), or has been missing for `confirmMs` across two sweeps (a
 * live relay re-creates a lease lost with Redis within a quarter of its ttl, so one missing
 * reading is not enough), or the request's own expiry passed (the relay cuts every answer before).
 */

export interface PendingSweepOptions {
  /** How often the sweep runs. */
  everyMs: number;
  /** How long a lease must stay missing before its requests are finished. */
  confirmMs: number;
}

export const defaultPendingSweep: PendingSweepOptions = { everyMs: 30_000, confirmMs: 15_000 };

/** Rows looked at per sweep, oldest first. */
const SWEEP_LIMIT = 500;

export interface PendingSweepResult {
  finished: number;
  waiting: number;
}

export async function sweepPendingRequests(context: BillingContext, confirmMs: number, now = Date.now()): Promise<PendingSweepResult> {
  const repository = context.db.getRepository(PendingRequestEntity);
  const rows = await repository.find({ order: { created_at: 'ASC' }, take: SWEEP_LIMIT });
  const owners = new Map<string, Promise<LeaseState>>();
  const stateOf = (owner: string) => {
    if (!owners.has(owner)) owners.set(owner, leaseState(context.kv, owner));
    return owners.get(owner)!;
  };
  let finished = 0;
  for (const row of rows) {
    const state = row.expires_at <= now ? 'expired' : await stateOf(row.owner);
    if (state === 'alive') {
      if (row.owner_missing_since !== 0) await repository.update({ request_id: row.request_id }, { owner_missing_since: 0 });
      continue;
    }
    if (state === 'missing' && (row.owner_missing_since === 0 || now - row.owner_missing_since < confirmMs)) {
      if (row.owner_missing_since === 0) await repository.update({ request_id: row.request_id }, { owner_missing_since: now });
      continue;
    }
    const checkpoint = await readCheckpoint(context.kv, row.request_id);
    const parsed = usageRecordSchema.safeParse(checkpoint ?? JSON.parse(row.record));
    if (!parsed.success) {
      context.logger.error({ requestId: row.request_id, issues: parsed.error.issues }, 'pending request with an unreadable record dropped');
      await repository.delete({ request_id: row.request_id });
      continue;
    }
    // Deletes the row in the same transaction; 'duplicate' when the real record won meanwhile.
    await applyUsage(context, parsed.data);
    finished += 1;
  }
  if (finished > 0) context.logger.warn({ finished }, 'pending requests of stopped relays recorded (what their checkpoints say, else without usage)');
  return { finished, waiting: rows.length - finished };
}

export async function registerPendingSweep(context: BillingContext, options: PendingSweepOptions): Promise<void> {
  await context.jobs.work(
    JobName.BillingPendingSweep,
    recordedJob(
      JobName.BillingPendingSweep,
      async () => {
        const { finished, waiting } = await sweepPendingRequests(context, options.confirmMs);
        // not a console message: a job's summary, recorded in the job run list as it is.
        return `${finished} request${finished === 1 ? '' : 's'} of stopped relays recorded, ${waiting} still in flight`;
      },
      { kv: context.kv, logger: context.logger },
    ),
  );
  await context.jobs.repeat(JobName.BillingPendingSweep, {}, { everyMs: options.everyMs });
}
