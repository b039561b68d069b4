import type { ChannelsContext } from './context.js';

/** Who changed a channel: the console's caller, or null for channels itself (the adoption at start). */
export interface ChannelActor {
  userId: number;
  username: string;
}

/** How a channel came to its flag; `unsaved`: a model list fetched for a channel being filled in. */
export type PrivateNetworkChange = 'created' | 'changed' | 'copied' | 'adopted' | 'unsaved';

/**
 * The audit of the private-network flag (rule R2): every time a channel is allowed private
 * networks, or loses that, one warn line names the channel, the value, how and who. This is the
 * hook for the general audit trail (who, target, before/after, IP) when it exists: replace or
 * extend this function; every path that sets the flag calls it after its change is committed.
 */
export function auditPrivateNetwork(context: ChannelsContext, actor: ChannelActor | null, channelId: number, allowed: boolean, how: PrivateNetworkChange): void {
  const who = actor ? `${actor.username} (#${actor.userId})` : 'channels at start';
  const what = channelId ? `channel ${channelId}` : 'an unsaved channel';
  context.logger.warn(
    { channelId, allow_private_network: allowed, change: how, actorId: actor?.userId ?? 0, actor: actor?.username ?? 'channels' },
    `${what} ${allowed ? 'may now reach' : 'may no longer reach'} private networks (${how} by ${who})`,
  );
}
