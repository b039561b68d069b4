import { MAX_MODEL_NAME_LENGTH, msg, parseRateLimits, type ChannelView, type RoutingChannel } from '@aigw/contracts';
import { keyStates, liveKeys, routingKeys, type KeyStates } from './multi-key.js';

/**
 * Conversions between the stored channel and what leaves the service: the admin view (a
 * whitelist, never the key: rule R4) and the routing row the relay caches. Pure functions.
 */

/** The stored columns these conversions read; the entity satisfies it (a null flag: a channel from before it, not yet adopted). */
export type StoredChannel = Omit<ChannelView, 'allow_private_network' | 'multi_key' | 'rate_limits'> & {
  rate_limits: string;
  version: number;
  allow_private_network: boolean | null;
  channel_info: string;
};

/** Longest group name (the abilities column's width) and model name (what the relay and the usage records take; the column is wider). */
export const GROUP_NAME_MAX = 64;
export const MODEL_NAME_MAX = MAX_MODEL_NAME_LENGTH;

/** `a, b,,a` -> ['a', 'b']. */
export function splitList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
}

/** A comma list as stored: trimmed, distinct, no blanks. Else the message (from the catalogue) naming the field: an item too long, or none. */
export function normaliseList(field: 'group' | 'models', text: string): { ok: true; value: string } | { ok: false; message: string } {
  const items = splitList(text);
  const max = field === 'group' ? GROUP_NAME_MAX : MODEL_NAME_MAX;
  const long = items.find((item) => item.length > max);
  if (long) return { ok: false, message: msg('channels.list_item_too_long', { field, item: long.slice(0, 40), max: String(max) }) };
  if (items.length === 0) return { ok: false, message: msg('channels.list_empty', { field }) };
  return { ok: true, value: items.join(',') };
}

/** Parses JSON text the contracts already checked is an object ('' is empty). */
export function parseObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A mapping of names (model_mapping, status_code_mapping): string values, numbers accepted as
 * their text (`{"400": 500}`). Anything else is a message (from the catalogue) naming the field.
 */
export function checkStringMap(field: string, text: string): string | null {
  for (const [name, value] of Object.entries(parseObject(text))) {
    if (typeof value !== 'string' && typeof value !== 'number') return msg('channels.mapping_value_string', { field, name });
  }
  return null;
}

export function toStringMap(text: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(parseObject(text)).flatMap(([name, value]) => (typeof value === 'string' || typeof value === 'number' ? [[name, String(value)]] : [])),
  );
}

export function toChannelView(row: StoredChannel): ChannelView {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    status: row.status,
    group: row.group,
    models: row.models,
    base_url: row.base_url,
    other: row.other,
    model_mapping: row.model_mapping,
    status_code_mapping: row.status_code_mapping,
    param_override: row.param_override,
    setting: row.setting,
    test_model: row.test_model,
    auto_ban: row.auto_ban,
    tag: row.tag,
    priority: row.priority,
    weight: row.weight,
    openai_organization: row.openai_organization,
    response_time: row.response_time,
    balance: row.balance,
    balance_updated_time: row.balance_updated_time,
    used_quota: row.used_quota,
    created_time: row.created_time,
    test_time: row.test_time,
    other_info: row.other_info,
    allow_private_network: row.allow_private_network === true,
    multi_key: multiKeyView(keyStates(row.channel_info)),
    rate_limits: parseRateLimits(row.rate_limits),
  };
}

function multiKeyView(states: KeyStates | null): ChannelView['multi_key'] {
  return states ? { mode: states.mode, size: states.size, live: liveKeys(states) } : null;
}

export function toRoutingRow(row: StoredChannel): RoutingChannel {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    status: row.status,
    groups: splitList(row.group),
    models: splitList(row.models),
    base_url: row.base_url,
    other: row.other,
    model_mapping: toStringMap(row.model_mapping),
    status_code_mapping: toStringMap(row.status_code_mapping),
    param_override: parseObject(row.param_override),
    setting: parseObject(row.setting),
    priority: row.priority,
    weight: row.weight,
    tag: row.tag,
    auto_ban: row.auto_ban,
    openai_organization: row.openai_organization,
    allow_private_network: row.allow_private_network === true,
    multi_key: routingKeys(keyStates(row.channel_info)),
    rate_limits: parseRateLimits(row.rate_limits),
    version: row.version,
  };
}

/** other_info with the status reason and time set (or, with reason null, removed). */
export function withStatusReason(otherInfo: string, reason: string | null, now: number): string {
  const { status_reason: _reason, status_time: _time, ...rest } = parseObject(otherInfo);
  return JSON.stringify(reason === null ? rest : { ...rest, status_reason: reason.slice(0, 512), status_time: now });
}

/** Longest channel name (the column). */
export const CHANNEL_NAME_MAX = 128;

/** The copy's name: the suffix appended, the base shortened so the whole still fits. */
export function copyName(name: string, suffix: string): string {
  return name.slice(0, Math.max(0, CHANNEL_NAME_MAX - suffix.length)) + suffix;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
