import { publishEvent } from '@aigw/platform';
import type { ChannelsContext } from './context.js';
import type { ChannelEntity } from './entities/index.js';
import { toRoutingRow } from './domain/channel-fields.js';

/**
 * What channels publishes, always after the change committed: the full routing row of every
 * changed channel (state transfer; never the key, which the relay fetches by request) and the
 * ids of deleted ones. What it consumes is in health.ts, what it answers in responders.ts.
 */
export async function publishUpdated(context: Pick<ChannelsContext, 'bus'>, rows: ChannelEntity[]): Promise<void> {
  for (const row of rows) await publishEvent(context.bus, 'channels.channel.updated', toRoutingRow(row));
}

export async function publishDeleted(context: Pick<ChannelsContext, 'bus'>, ids: number[]): Promise<void> {
  for (const id of ids) await publishEvent(context.bus, 'channels.channel.deleted', { id });
}
