import { onEvent, param, queryRows, type Subscription } from '@aigw/platform';
import type { ChannelsContext } from './context.js';

/**
 * A channel's `used_quota` (the console's "used" column) follows the relay's usage records. It
 * is a statistic, not money (billing's ledger is): a rare double count on a redelivery after a
 * lost acknowledgement is accepted rather than keeping a ledger of request ids here too.
 */
export function subscribeUsage(context: ChannelsContext): Promise<Subscription> {
  const { bus, db, logger } = context;
  return onEvent(
    bus,
    'relay.usage.recorded',
    async ({ channel_id, quota }) => {
      if (channel_id <= 0 || quota <= 0) return;
      await queryRows(db, `UPDATE channels SET used_quota = used_quota + ${param(db, 1)} WHERE id = ${param(db, 2)} RETURNING id`, [quota, channel_id]);
    },
    { durable: 'channels-usage', logger },
  );
}
