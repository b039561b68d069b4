import { groupCommit, onEvent, param, queryRows, type Subscription } from '@aigw/platform';
import type { ChannelsContext } from './context.js';

/**
 * Deliveries taken at once, so one statement covers what arrived while the last one ran. Sixteen
 * capped a group at 16 every 50 ms, about 300 records/s: at that rate the consumer fell behind, each
 * record waited seconds in its backlog (long enough to leave V8's young generation: most of what
 * the all-in-one process promoted), and beyond it the in-process bus dropped the oldest.
 */
const IN_FLIGHT = 500;
/**
 * How long a group of charges collects before it is written. Each waiting record is held by its
 * delivery until the statement commits, and what is held at a young-generation collection is
 * copied by it: at 50 ms the all-in-one process at one request in flight (1,550 requests/s) kept
 * some 75 records waiting, and each scavenge copied 252-256 KB and paused 1.31-1.33 ms; at 20 ms,
 * 216-218 KB and 1.20-1.30 ms (`--trace-gc-nvp`, two runs each), for 30 more one-row statements a second.
 */
const WINDOW_MS = 20;

/**
 * A channel's `used_quota` (the console's "used" column) follows the relay's usage records. It
 * is a statistic, not money (billing's ledger is): a rare double count on a redelivery after a
 * lost acknowledgement is accepted rather than keeping a ledger of request ids here too.
 *
 * One UPDATE per record cost the all-in-one process more than the relay's own work on a busy
 * channel (measured: a statement per request, 1,347 of them in 7 s of the bench). So charges are
 * group-committed: summed per channel over a short window, one statement for the group, and the
 * events acknowledged after it.
 */
export async function subscribeUsage(context: ChannelsContext): Promise<Subscription> {
  const { bus, db, logger } = context;
  const charges = groupCommit<{ channel: number; quota: number }>(
    async (items) => {
      const sums = new Map<number, number>();
      for (const { channel, quota } of items) sums.set(channel, (sums.get(channel) ?? 0) + quota);
      const rows = [...sums];
      const values = rows.map((_, index) => `(CAST(${param(db, 2 * index + 1)} AS INTEGER), CAST(${param(db, 2 * index + 2)} AS BIGINT))`).join(', ');
      await queryRows(
        db,
        `WITH charged (id, quota) AS (VALUES ${values}) UPDATE channels SET used_quota = channels.used_quota + charged.quota FROM charged WHERE channels.id = charged.id RETURNING channels.id`,
        rows.flat(),
      );
    },
    { windowMs: WINDOW_MS, maxItems: IN_FLIGHT },
  );
  return onEvent(
    bus,
    'relay.usage.recorded',
    async ({ channel_id, quota }) => {
      if (channel_id > 0 && quota > 0) await charges.add({ channel: channel_id, quota });
    },
    { durable: 'channels-usage', logger, inFlight: IN_FLIGHT },
  );
}
