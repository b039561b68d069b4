import type { ChannelsContext } from './context.js';
import { channelTarget, publishChannelAudit, type ChannelActor } from './audit.js';

export type { ChannelActor } from './audit.js';

/** How a channel came to its flag; `unsaved`: a model list fetched for a channel being filled in. */
export type PrivateNetworkChange = 'created' | 'changed' | 'copied' | 'adopted' | 'unsaved';

/**
 * The audit of the private-network flag (rule R2): every time a channel is allowed private
 * networks, or loses that, one warn line names the channel, the value, how and who, and an
 * admin's change is an audit record (`channel.private_network_set`) beside the channel's own.
 * Every path that sets the flag calls it after its change is committed.
 */
export async function auditPrivateNetwork(
  context: ChannelsContext,
  actor: ChannelActor | null,
  channel: { id: number; name: string } | null,
  allowed: boolean,
  how: PrivateNetworkChange,
): Promise<void> {
  const channelId = channel?.id ?? 0;
  // not a console message: the words of the warn line below, logged only.
  const who = actor ? `${actor.actor.username} (#${actor.actor.user_id})` : 'channels at start';
  // not a console message: the words of the warn line below, logged only.
  const what = channelId ? `channel ${channelId}` : 'an unsaved channel';
  context.logger.warn(
    { channelId, allow_private_network: allowed, change: how, actorId: actor?.actor.user_id ?? 0, actor: actor?.actor.username ?? 'channels', ip: actor?.ip },
    `${what} ${allowed ? 'may now reach' : 'may no longer reach'} private networks (${how} by ${who})`,
  );
  if (channel && channelId) {
    await publishChannelAudit(context, actor, {
      action: 'channel.private_network_set',
      target: channelTarget(channel),
      before: { allow_private_network: !allowed },
      after: { allow_private_network: allowed },
    });
  }
}
