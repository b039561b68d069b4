import { z } from 'zod';
import { ChannelStatus, multiKeyModeSchema, type ChannelKeyStatus, type MultiKeyMode, type RoutingKeys } from '@aigw/contracts';

/**
 * The key states of a channel with many keys, kept in `channel_info` under the established
 * product's names (`is_multi_key`, `multi_key_size`, `multi_key_mode`, `multi_key_status_list`,
 * `multi_key_disabled_reason`, `multi_key_disabled_time`), so migrated rows keep their states;
 * any other field stored there is kept as it is. A key without an entry is enabled. Pure
 * functions: no database, no keys (they stay sealed in the row; only their count is here).
 */

export interface KeyState {
  /** ChannelStatus.ManuallyDisabled or AutoDisabled. */
  status: number;
  reason: string;
  /** Epoch seconds. */
  time: number;
}

export interface KeyStates {
  mode: MultiKeyMode;
  size: number;
  /** The keys that are off, by index. */
  off: ReadonlyMap<number, KeyState>;
}

const indexMap = <T extends z.ZodType>(value: T) => z.record(z.string(), value).catch({});
const channelInfoSchema = z.looseObject({
  is_multi_key: z.boolean().catch(false).optional(),
  multi_key_size: z.number().int().min(0).catch(0).optional(),
  multi_key_mode: multiKeyModeSchema.catch('random').optional(),
  multi_key_status_list: indexMap(z.number().int()).optional(),
  multi_key_disabled_reason: indexMap(z.string()).optional(),
  multi_key_disabled_time: indexMap(z.number()).optional(),
});
type ChannelInfo = z.infer<typeof channelInfoSchema>;

function parseInfo(text: string): ChannelInfo {
  if (text.trim() === '') return {};
  try {
    const parsed = channelInfoSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** The key states in `channel_info`, or null for a channel with one key. */
export function keyStates(channelInfo: string): KeyStates | null {
  const info = parseInfo(channelInfo);
  const size = info.multi_key_size ?? 0;
  if (info.is_multi_key !== true || size < 1) return null;
  const off = new Map<number, KeyState>();
  for (const [name, status] of Object.entries(info.multi_key_status_list ?? {})) {
    const index = Number(name);
    if (!Number.isInteger(index) || index < 0 || index >= size || status === ChannelStatus.Enabled) continue;
    off.set(index, {
      status: status === ChannelStatus.ManuallyDisabled ? status : ChannelStatus.AutoDisabled,
      reason: info.multi_key_disabled_reason?.[name] ?? '',
      time: Math.trunc(info.multi_key_disabled_time?.[name] ?? 0),
    });
  }
  return { mode: info.multi_key_mode ?? 'random', size, off };
}

/** `channel_info` holding these states (null: a channel with one key), the other fields of `previous` kept. */
export function withKeyStates(previous: string, states: KeyStates | null): string {
  const {
    is_multi_key: _flag,
    multi_key_size: _size,
    multi_key_mode: _mode,
    multi_key_status_list: _list,
    multi_key_disabled_reason: _reasons,
    multi_key_disabled_time: _times,
    ...rest
  } = parseInfo(previous);
  if (!states) return Object.keys(rest).length === 0 ? '' : JSON.stringify(rest);
  const entries = [...states.off.entries()].sort(([a], [b]) => a - b);
  return JSON.stringify({
    ...rest,
    is_multi_key: true,
    multi_key_size: states.size,
    multi_key_mode: states.mode,
    multi_key_status_list: Object.fromEntries(entries.map(([index, state]) => [index, state.status])),
    multi_key_disabled_reason: Object.fromEntries(entries.map(([index, state]) => [index, state.reason])),
    multi_key_disabled_time: Object.fromEntries(entries.map(([index, state]) => [index, state.time])),
  });
}

/** New states: a key turned off (with why and when), or on again (state null). */
export function setKeyState(states: KeyStates, index: number, state: KeyState | null): KeyStates {
  const off = new Map(states.off);
  if (state) off.set(index, { ...state, reason: state.reason.slice(0, 512) });
  else off.delete(index);
  return { ...states, off };
}

export function liveKeys(states: KeyStates): number {
  return states.size - states.off.size;
}

/** What the relay routes by. */
export function routingKeys(states: KeyStates | null): RoutingKeys | null {
  return states ? { mode: states.mode, size: states.size, disabled: [...states.off.keys()].sort((a, b) => a - b) } : null;
}

/**
 * The states after the key list changed: all enabled after a replacement; after an append the
 * old keys keep theirs; after disabled keys were removed (`kept`: the old indexes that stay, in
 * order) each kept key keeps its state at its new index.
 */
export function reindexed(states: KeyStates, size: number, kept?: readonly number[]): KeyStates {
  const off = new Map<number, KeyState>();
  if (kept) kept.forEach((old, index) => states.off.has(old) && off.set(index, states.off.get(old)!));
  else for (const [index, state] of states.off) if (index < size) off.set(index, state);
  return { mode: states.mode, size, off };
}

/**
 * A key as admins see it in the key list (rule R4: never whole): a service account by its
 * e-mail, which is no secret; other keys by their first and last four characters.
 */
export function maskKey(key: string): string {
  if (key.startsWith('{')) {
    try {
      const account = JSON.parse(key) as { client_email?: unknown };
      // not a console message: the key list's `masked` field, a key shown by what names it.
      if (typeof account.client_email === 'string') return `service account ${account.client_email}`;
    } catch {
      // masked as text below
    }
  }
  return key.length <= 12 ? '****' : `${key.slice(0, 4)}****${key.slice(-4)}`;
}

/** The key list for admins, masked. */
export function keyList(states: KeyStates, keys: readonly string[]): { mode: MultiKeyMode; size: number; live: number; keys: ChannelKeyStatus[] } {
  return {
    mode: states.mode,
    size: states.size,
    live: liveKeys(states),
    keys: keys.slice(0, states.size).map((key, index) => {
      const state = states.off.get(index);
      return { index, masked: maskKey(key), status: state?.status ?? ChannelStatus.Enabled, reason: state?.reason ?? '', time: state?.time ?? 0 };
    }),
  };
}
