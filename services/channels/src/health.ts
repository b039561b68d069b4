import { ChannelStatus } from '@aigw/contracts';
import { onEvent, type Subscription } from '@aigw/platform';
import type { ChannelsContext } from './context.js';
import { changeChannels } from './channels.js';
import { publishDisabled } from './events.js';
import { decideDisable, decideEnable, slowTestFailure, type ChannelFailureFacts } from './domain/auto-disable.js';
import { nowSeconds, withStatusReason } from './domain/channel-fields.js';

/**
 * Automatic disable and enable. The decision is domain/auto-disable.ts; here it is taken on the
 * locked row inside the transaction that applies it, so a manual change landing meanwhile is
 * never overwritten (a channel an admin just disabled stays status 2).
 */

/**
 * Disables the channel (status 3, with the reason and time) when the rules say so; true when it
 * did. After the commit, `channels.channel.disabled` tells the notifier to alert root.
 */
export async function applyFailure(context: ChannelsContext, channelId: number, failure: ChannelFailureFacts): Promise<boolean> {
  const { options, logger } = context;
  const automaticDisableEnabled = options.get('AutomaticDisableChannelEnabled');
  // Off: the rules would say no anyway, and a failure report then costs no query.
  if (!automaticDisableEnabled) return false;
  let disabled: { reason: string; time: number } | undefined;
  const changed = await changeChannels(context, { id: channelId }, (row) => {
    const decision = decideDisable({ failure, channel: row, automaticDisableEnabled, keywords: options.get('AutomaticDisableKeywords') });
    if (!decision.disable) return null;
    disabled = { reason: decision.reason.slice(0, 512), time: nowSeconds() };
    return { status: ChannelStatus.AutoDisabled, other_info: withStatusReason(row.other_info, decision.reason, disabled.time) };
  });
  const channel = changed[0];
  if (!channel || !disabled) return false;
  logger.warn({ channelId, name: channel.name }, 'channel disabled automatically');
  await publishDisabled(context, channel, disabled);
  return true;
}

/** Re-enables an automatically disabled channel after a success, when the option allows; true when it did. */
export async function applySuccess(context: ChannelsContext, channelId: number): Promise<boolean> {
  const automaticEnableEnabled = context.options.get('AutomaticEnableChannelEnabled');
  // Off (the default): nothing to decide, and a success event costs no query.
  if (!automaticEnableEnabled) return false;
  const changed = await changeChannels(context, { id: channelId, status: ChannelStatus.AutoDisabled }, (row) =>
    decideEnable({ status: row.status, automaticEnableEnabled })
      ? { status: ChannelStatus.Enabled, other_info: withStatusReason(row.other_info, null, nowSeconds()) }
      : null,
  );
  if (changed[0]) context.logger.info({ channelId, name: changed[0].name }, 'channel enabled automatically');
  return changed.length > 0;
}

/** The relay's reports about upstream attempts (and its own tests): one durable consumer shared by replicas. */
export async function subscribeHealth(context: ChannelsContext): Promise<Subscription[]> {
  const { bus, logger, options } = context;
  return Promise.all([
    onEvent(
      bus,
      'relay.channel.failed',
      async (failure) => {
        await applyFailure(context, failure.channel_id, failure);
      },
      { durable: 'channels-health', logger },
    ),
    onEvent(
      bus,
      'relay.channel.succeeded',
      async ({ channel_id, response_time_ms, test }) => {
        // A test that passed but too slowly is no reason to enable the channel again.
        if (test && slowTestFailure(response_time_ms, options.get('ChannelDisableThreshold'))) return;
        await applySuccess(context, channel_id);
      },
      { durable: 'channels-health', logger },
    ),
  ]);
}
