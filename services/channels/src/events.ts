import { publishEvent, type ServiceMessaging } from '@aigw/platform';
import type { ChannelsContext } from './context.js';
import type { ChannelEntity } from './entities/index.js';
import { toRoutingRow } from './domain/channel-fields.js';

/**
 * What channels says on the bus. It publishes through the functions below, always after the
 * change committed: the full routing row of every changed channel (state transfer; never the key,
 * which the relay fetches by request), the ids of deleted ones, automatic disables (audit records
 * through audit.ts, dead letters through platform's keepDeadLetters). It consumes the relay's outcomes (health.ts, usage.ts), answers in
 * responders.ts, and asks the relay to run tests and balance queries (operations.ts) and identity
 * whether a session stepped up (routes/channel-key.ts); the options come through platform's mirror.
 */
export const channelsMessaging = {
  publishes: ['channels.channel.updated', 'channels.channel.deleted', 'channels.channel.disabled', 'channels.audit.recorded', 'channels.dead_letter.recorded'],
  consumes: ['relay.channel.failed', 'relay.channel.succeeded', 'relay.usage.recorded', 'identity.option.updated'],
  answers: ['channels.routing.snapshot', 'channels.channel.key', 'channels.model.enabled'],
  asks: ['relay.channel.operate', 'identity.session.step-up', 'identity.option.snapshot'],
} as const satisfies ServiceMessaging;
export async function publishUpdated(context: Pick<ChannelsContext, 'bus'>, rows: ChannelEntity[]): Promise<void> {
  for (const row of rows) await publishEvent(context.bus, 'channels.channel.updated', toRoutingRow(row));
}

export async function publishDeleted(context: Pick<ChannelsContext, 'bus'>, ids: number[]): Promise<void> {
  for (const id of ids) await publishEvent(context.bus, 'channels.channel.deleted', { id });
}

/** An automatic disable, once: the event id carries the row version the disable wrote. */
export async function publishDisabled(
  context: Pick<ChannelsContext, 'bus'>,
  channel: ChannelEntity,
  disabled: { reason: string; time: number },
): Promise<void> {
  await publishEvent(
    context.bus,
    'channels.channel.disabled',
    { channel_id: channel.id, name: channel.name, ...disabled },
    `channel-disabled-${channel.id}-${channel.version}`,
  );
}
