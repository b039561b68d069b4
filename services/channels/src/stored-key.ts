import { msg } from '@aigw/contracts';
import { openSecret, UserError } from '@aigw/platform';
import type { ChannelsContext } from './context.js';
import type { ChannelEntity } from './entities/index.js';

/** The stored key text of a channel, opened (all its keys for a channel with many). */
export function channelKey(context: ChannelsContext, row: ChannelEntity): string {
  try {
    return openSecret(row.key_encrypted, context.keySecret);
  } catch (error) {
    context.logger.error({ err: error, channelId: row.id }, 'a stored channel key does not decrypt (was CHANNEL_KEY_SECRET changed?)');
    throw new UserError(msg('channel_key.unreadable'));
  }
}
