import { ChannelStatus, joinKeys, msg, splitKeys, type ChannelKeyList, type MultiKeyManageBody } from '@aigw/contracts';
import { sealSecret, UserError } from '@aigw/platform';
import { channelKey } from './stored-key.js';
import type { ChannelsContext } from './context.js';
import type { ChannelEntity } from './entities/index.js';
import { changeChannels, getChannel, type ChannelChange } from './channels.js';
import { hashKey } from './domain/channel-key.js';
import { keyList, keyStates, liveKeys, reindexed, setKeyState, withKeyStates, type KeyStates } from './domain/multi-key.js';
import { nowSeconds, withStatusReason } from './domain/channel-fields.js';
import type { ChannelActor } from './private-network.js';

/**
 * The key a channel test uses and its index for a channel with many keys: the one asked for, else
 * the first live one (else the first: a test may bring an automatically disabled channel back).
 */
export function keyToTest(context: ChannelsContext, row: ChannelEntity, keyIndex?: number): { key: string; keyIndex?: number } {
  const text = channelKey(context, row);
  const states = keyStates(row.channel_info);
  if (!states) {
    if (keyIndex !== undefined && keyIndex > 0) throw new UserError(msg('multi_key.single_key'));
    return { key: text };
  }
  const keys = splitKeys(text);
  const index = keyIndex ?? Array.from({ length: states.size }, (_, at) => at).find((at) => !states.off.has(at)) ?? 0;
  const key = keys[index];
  if (key === undefined || index >= states.size) throw new UserError(indexRange(states));
  return { key, keyIndex: index };
}

/** The key indexes a test of every key covers: all but those disabled by hand. */
export function keysToSweep(row: ChannelEntity): number[] | null {
  const states = keyStates(row.channel_info);
  if (!states) return null;
  return Array.from({ length: states.size }, (_, index) => index).filter((index) => states.off.get(index)?.status !== ChannelStatus.ManuallyDisabled);
}

/** The key list of a channel with many keys, masked; a UserError naming channel_id for another channel. */
export async function listKeys(context: ChannelsContext, channelId: number): Promise<ChannelKeyList> {
  const row = await getChannel(context, channelId);
  return keyList(statesOf(row), splitKeys(channelKey(context, row)));
}

function statesOf(row: ChannelEntity): KeyStates {
  const states = keyStates(row.channel_info);
  if (!states) throw new UserError(msg('multi_key.not_multi', { id: String(row.id) }));
  return states;
}

/** The refusal of a key index the channel does not have: its range. */
const indexRange = (states: KeyStates) => msg('multi_key.index_range', { size: String(states.size), last: String(states.size - 1) });

function checkIndex(states: KeyStates, index: number | undefined): number {
  if (index === undefined) throw new UserError(msg('multi_key.index_required'));
  if (index >= states.size) throw new UserError(indexRange(states));
  return index;
}

/**
 * POST /api/channel/multi_key/manage: an admin turns keys on and off. A key turned on makes an
 * automatically disabled channel (all its keys were off) serve again; the last live key cannot be
 * turned off (disable the channel instead); removing the disabled keys keeps at least one.
 * Answers the key list as it is afterwards.
 */
export async function manageKeys(context: ChannelsContext, body: MultiKeyManageBody, actor: ChannelActor): Promise<ChannelKeyList> {
  if (body.action === 'get_key_status') return listKeys(context, body.channel_id);
  const changed = await changeChannels(context, { id: body.channel_id }, (row) => nextStates(context, row, statesOf(row), body), actor);
  if (changed.length === 0) await getChannel(context, body.channel_id); // the 404
  return listKeys(context, body.channel_id);
}

function nextStates(context: ChannelsContext, row: ChannelEntity, states: KeyStates, body: MultiKeyManageBody): ChannelChange | null {
  const enableChannel = (next: KeyStates): ChannelChange =>
    row.status === ChannelStatus.AutoDisabled && liveKeys(next) > 0
      ? { status: ChannelStatus.Enabled, other_info: withStatusReason(row.other_info, null, nowSeconds()) }
      : {};
  switch (body.action) {
    case 'enable_key': {
      const index = checkIndex(states, body.key_index);
      if (!states.off.has(index)) return null;
      const next = setKeyState(states, index, null);
      return { channel_info: withKeyStates(row.channel_info, next), ...enableChannel(next) };
    }
    case 'disable_key': {
      const index = checkIndex(states, body.key_index);
      if (states.off.get(index)?.status === ChannelStatus.ManuallyDisabled) return null;
      // not a console message: the key's status reason, recorded in channel_info.
      const next = setKeyState(states, index, { status: ChannelStatus.ManuallyDisabled, reason: 'disabled by an admin', time: nowSeconds() });
      if (liveKeys(next) === 0) throw new UserError(msg('multi_key.last_live_key'));
      return { channel_info: withKeyStates(row.channel_info, next) };
    }
    case 'enable_all_keys': {
      if (states.off.size === 0) return null;
      const next: KeyStates = { ...states, off: new Map() };
      return { channel_info: withKeyStates(row.channel_info, next), ...enableChannel(next) };
    }
    case 'delete_disabled_keys': {
      if (states.off.size === 0) return null;
      const keys = splitKeys(channelKey(context, row));
      const kept = keys.map((_, index) => index).filter((index) => index < states.size && !states.off.has(index));
      if (kept.length === 0) throw new UserError(msg('multi_key.all_disabled'));
      const text = joinKeys(kept.map((index) => keys[index]!));
      const next = reindexed(states, kept.length, kept);
      return { key_encrypted: sealSecret(text, context.keySecret), key_hash: hashKey(text), channel_info: withKeyStates(row.channel_info, next) };
    }
    default:
      return null;
  }
}
