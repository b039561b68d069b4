import { ChannelStatus } from '@aigw/contracts';
import { NotFoundError, replyTyped, UserError, type Subscription } from '@aigw/platform';
import type { ChannelsContext } from './context.js';
import { ChannelEntity } from './entities/index.js';
import { enabledModelGroups } from './abilities.js';
import { toRoutingRow } from './domain/channel-fields.js';
import { channelKey } from './stored-key.js';

/**
 * Request-reply for the other services: the relay's start-up snapshot and its keys, billing's
 * pricing page. Registered while the plugin loads, so in the all-in-one process they answer
 * before the relay (mounted after channels) asks.
 */
export async function registerResponders(context: ChannelsContext): Promise<Subscription[]> {
  const { bus, db } = context;
  const channels = db.getRepository(ChannelEntity);
  return Promise.all([
    replyTyped(bus, 'channels.routing.snapshot', async () => ({
      channels: (await channels.find({ order: { id: 'ASC' } })).map(toRoutingRow),
    })),
    // The key of an enabled channel only: nothing routes to the others, and a key handed out is a key exposed.
    replyTyped(bus, 'channels.channel.key', async ({ channel_id }) => {
      const row = channel_id > 0 && channel_id <= 2_147_483_647 ? await channels.findOneBy({ id: channel_id }) : null;
      // not a console message: the relay's request, which it answers in its own words.
      if (!row) throw new NotFoundError(`channel ${channel_id} not found`);
      // not a console message: the relay's request, which it answers in its own words.
      if (row.status !== ChannelStatus.Enabled) throw new UserError(`channel ${channel_id} is not enabled`, 'channel_disabled');
      return { key: channelKey(context, row) };
    }),
    replyTyped(bus, 'channels.model.enabled', async () => ({ models: await enabledModelGroups(db) })),
  ]);
}
