import { ChannelStatus } from '@aigw/contracts';
import { onEvent, type Subscription } from '@aigw/platform';
import type { ChannelsContext } from './context.js';
import { changeChannels } from './channels.js';
import { publishDisabled } from './events.js';
import { decideDisable, decideEnable, slowTestFailure, type ChannelFailureFacts } from './domain/auto-disable.js';
import { nowSeconds, withStatusReason } from './domain/channel-fields.js';
import { keyStates, liveKeys, setKeyState, withKeyStates } from './domain/multi-key.js';
import type { ChannelEntity } from './entities/index.js';
import { observeAutoDisabled, observeAutoEnabled } from './metrics.js';

/**
 * Automatic disable and enable. The decision is domain/auto-disable.ts; here it is taken on the
 * locked row inside the transaction that applies it, so a manual change landing meanwhile is
 * never overwritten (a channel an admin just disabled stays status 2).
 */

/**
 * Disables the channel (status 3, with the reason and time) when the rules say so; true when it
 * did. For a channel with many keys the failing key (`key_index`) is what is disabled, and the
 * channel only when that was its last live key. After the commit, `channels.channel.disabled`
 * tells the notifier to alert root.
 */
export async function applyFailure(context: ChannelsContext, channelId: number, failure: ChannelFailureFacts & { key_index?: number }): Promise<boolean> {
  const { options, logger } = context;
  const automaticDisableEnabled = options.get('AutomaticDisableChannelEnabled');
  // Off: the rules would say no anyway, and a failure report then costs no query.
  if (!automaticDisableEnabled) return false;
  let disabled: { reason: string; time: number } | undefined;
  const changed = await changeChannels(context, { id: channelId }, (row) => {
    const decision = decideDisable({ failure, channel: row, automaticDisableEnabled, keywords: options.get('AutomaticDisableKeywords') });
    if (!decision.disable) return null;
    const time = nowSeconds();
    const states = keyStates(row.channel_info);
    if (states && failure.key_index !== undefined) {
      // A key already off (a late report, or an admin's disable) keeps its state and reason.
      if (failure.key_index >= states.size || states.off.has(failure.key_index)) return null;
      const next = setKeyState(states, failure.key_index, { status: ChannelStatus.AutoDisabled, reason: decision.reason, time });
      const channelInfo = withKeyStates(row.channel_info, next);
      if (liveKeys(next) > 0) {
        logger.warn({ channelId, keyIndex: failure.key_index }, 'channel key disabled automatically');
        return { channel_info: channelInfo };
      }
      disabled = { reason: `every key is disabled; the last: ${decision.reason}`.slice(0, 512), time };
      return { channel_info: channelInfo, status: ChannelStatus.AutoDisabled, other_info: withStatusReason(row.other_info, disabled.reason, time) };
    }
    disabled = { reason: decision.reason.slice(0, 512), time };
    return { status: ChannelStatus.AutoDisabled, other_info: withStatusReason(row.other_info, decision.reason, time) };
  });
  const channel = changed[0];
  // Committed: a key of a multi-key channel alone, or the channel.
  if (channel && !disabled) observeAutoDisabled(channelId, 'key');
  if (!channel || !disabled) return changed.length > 0;
  observeAutoDisabled(channelId, 'channel');
  logger.warn({ channelId, name: channel.name }, 'channel disabled automatically');
  await publishDisabled(context, channel, disabled);
  return true;
}

/**
 * Re-enables an automatically disabled channel after a success, when the option allows; true when
 * it did. For a channel with many keys, the key that succeeded (`keyIndex`, a test's) is enabled
 * again when it was disabled automatically, and with it the channel if all its keys were off.
 */
export async function applySuccess(context: ChannelsContext, channelId: number, keyIndex?: number): Promise<boolean> {
  const automaticEnableEnabled = context.options.get('AutomaticEnableChannelEnabled');
  // Off (the default): nothing to decide, and a success event costs no query.
  if (!automaticEnableEnabled) return false;
  const enable = (row: ChannelEntity) =>
    decideEnable({ status: row.status, automaticEnableEnabled })
      ? { status: ChannelStatus.Enabled, other_info: withStatusReason(row.other_info, null, nowSeconds()) }
      : {};
  const changed = await changeChannels(context, keyIndex === undefined ? { id: channelId, status: ChannelStatus.AutoDisabled } : { id: channelId }, (row) => {
    const states = keyStates(row.channel_info);
    if (!states || keyIndex === undefined) return Object.keys(enable(row)).length > 0 ? enable(row) : null;
    const state = states.off.get(keyIndex);
    if (!state || !decideEnable({ status: state.status, automaticEnableEnabled })) return null;
    context.logger.info({ channelId, keyIndex }, 'channel key enabled automatically');
    return { channel_info: withKeyStates(row.channel_info, setKeyState(states, keyIndex, null)), ...enable(row) };
  });
  if (changed[0]) {
    observeAutoEnabled(channelId, keyIndex === undefined ? 'channel' : 'key');
    context.logger.info({ channelId, name: changed[0].name }, 'channel enabled automatically');
  }
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
      async ({ channel_id, response_time_ms, test, key_index }) => {
        // A test that passed but too slowly is no reason to enable the channel again.
        if (test && slowTestFailure(response_time_ms, options.get('ChannelDisableThreshold'))) return;
        await applySuccess(context, channel_id, key_index);
      },
      { durable: 'channels-health', logger },
    ),
  ]);
}
