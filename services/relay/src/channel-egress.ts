import { msg, type RoutingChannel } from '@aigw/contracts';
import type { EgressRequestInit } from '@aigw/platform';

/** What lifts the address rule for a channel, quoted when its upstream is refused. */
export const CHANNEL_PRIVATE_NETWORK_REFUSAL = msg('egress.channel_private_network');

/**
 * The egress rule of a call to a channel's upstream (rule R2): the channel's own private-network
 * flag, never a global switch. Every relay call to an upstream (requests, tests, model lists,
 * balances) passes this with its request.
 */
export function channelEgress(channel: Pick<RoutingChannel, 'allow_private_network'>): Pick<EgressRequestInit, 'privateNetwork'> {
  return { privateNetwork: { allowed: channel.allow_private_network, refusal: CHANNEL_PRIVATE_NETWORK_REFUSAL } };
}
