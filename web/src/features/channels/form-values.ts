import type { ChannelView, CreateChannelBody, MultiKeyMode } from '@aigw/contracts';
import { rateLimitsFromForm, sameRateLimits, type RateLimitValues } from '../../components/RateLimitFields';

/** What the channel form edits; lists are arrays and the switch a boolean until they are sent. */
export interface ChannelFormValues {
  type: number;
  name: string;
  base_url: string;
  /** Per type: Azure API version, Spark version, knowledge base id, account id, Vertex region, custom extra settings. */
  other: string;
  key: string;
  openai_organization: string;
  groups: string[];
  models: string[];
  model_mapping: string;
  status_code_mapping: string;
  param_override: string;
  setting: string;
  test_model: string | undefined;
  auto_ban: boolean;
  tag: string;
  priority: number | string | null;
  weight: number | string | null;
  /** The channel may reach private networks (rule R2); off for a new channel. */
  allow_private_network: boolean;
  /**
   * Several keys: one channel holding them all, picked this way; '' makes one channel per key
   * (batch create). For a channel with many keys, how a request's key is picked.
   */
  multi_key_mode: MultiKeyMode | '';
  /** What a key typed into the editor of a channel with many keys does: replaces them all, or adds to them. */
  key_mode: 'replace' | 'append';
  /** At these limits routing skips the channel (blank = unlimited). */
  rate_limits: RateLimitValues;
}

/** The channel fields the form sends (the key and status aside). */
export type ChannelFields = Omit<CreateChannelBody, 'key' | 'status'>;

export const emptyChannelForm: ChannelFormValues = {
  type: 1,
  name: '',
  base_url: '',
  other: '',
  key: '',
  openai_organization: '',
  groups: ['default'],
  models: [],
  model_mapping: '',
  status_code_mapping: '',
  param_override: '',
  setting: '',
  test_model: undefined,
  auto_ban: true,
  tag: '',
  priority: 0,
  weight: 0,
  allow_private_network: false,
  multi_key_mode: '',
  key_mode: 'append',
  rate_limits: {},
};

/** A comma-separated list as its trimmed, non-empty items. */
export function splitModels(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** "Custom model" input: comma separated, trimmed, blanks and repeats dropped. */
export function parseCustomModels(text: string): string[] {
  return [...new Set(splitModels(text))];
}

export function formFromChannel(channel: ChannelView): ChannelFormValues {
  return {
    type: channel.type,
    name: channel.name,
    base_url: channel.base_url,
    other: channel.other,
    key: '',
    openai_organization: channel.openai_organization,
    groups: splitModels(channel.group),
    models: splitModels(channel.models),
    model_mapping: channel.model_mapping,
    status_code_mapping: channel.status_code_mapping,
    param_override: channel.param_override,
    setting: channel.setting,
    test_model: channel.test_model || undefined,
    auto_ban: channel.auto_ban !== 0,
    tag: channel.tag,
    priority: channel.priority,
    weight: channel.weight,
    allow_private_network: channel.allow_private_network,
    multi_key_mode: channel.multi_key?.mode ?? '',
    key_mode: 'append',
    rate_limits: { ...channel.rate_limits },
  };
}

/** docs/product.md section 6: priority and weight are parsed as integers ('' or text counts as 0). */
export function parseInteger(value: number | string | null | undefined): number {
  const parsed = Number.parseInt(String(value ?? ''), 10);
  return Number.isNaN(parsed) ? 0 : parsed;
}

export function fieldsFromForm(values: ChannelFormValues): ChannelFields {
  return {
    type: values.type,
    name: values.name.trim(),
    // The upstream paths are appended to the base URL, so a trailing slash would double them.
    base_url: values.base_url.trim().replace(/\/+$/, ''),
    other: values.other.trim(),
    openai_organization: values.openai_organization.trim(),
    group: values.groups.join(','),
    models: values.models.join(','),
    model_mapping: values.model_mapping.trim(),
    status_code_mapping: values.status_code_mapping.trim(),
    param_override: values.param_override.trim(),
    setting: values.setting.trim(),
    test_model: (values.test_model ?? '').trim(),
    auto_ban: values.auto_ban ? 1 : 0,
    tag: values.tag.trim(),
    priority: parseInteger(values.priority),
    weight: parseInteger(values.weight),
    allow_private_network: values.allow_private_network,
    rate_limits: rateLimitsFromForm(values.rate_limits),
  };
}

/** The fields whose value differs from the stored channel (an edit sends only these). */
export function changedFields(before: ChannelFields, after: ChannelFields): Partial<ChannelFields> {
  return Object.fromEntries(
    (Object.keys(after) as Array<keyof ChannelFields>)
      .filter((name) => (name === 'rate_limits' ? !sameRateLimits(after.rate_limits, before.rate_limits) : after[name] !== before[name]))
      .map((name) => [name, after[name]]),
  );
}

/** Whether text is empty or a JSON object (the form's JSON fields). */
export function isJsonObjectOrBlank(text: string | undefined): boolean {
  if (!text || text.trim() === '') return true;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
