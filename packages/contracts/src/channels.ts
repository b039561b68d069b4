import { z } from 'zod';
import { multiKeyModeSchema, routingKeysSchema } from './channel-keys.js';
import { rateLimitsSchema } from './limits.js';
import { idSchema, pageQuerySchema } from './envelope.js';
import { MAX_MODEL_NAME_LENGTH } from './billing.js';
import { msg, type MessageId } from './messages/index.js';

/** Channel type numbers, exactly as the established product stores them (docs/compatibility.md section 2.1). */
export const ChannelType = {
  Unknown: 0,
  OpenAI: 1,
  Midjourney: 2,
  Azure: 3,
  Ollama: 4,
  MidjourneyPlus: 5,
  OpenAIMax: 6,
  OhMyGPT: 7,
  Custom: 8,
  AILS: 9,
  AIProxy: 10,
  PaLM: 11,
  API2GPT: 12,
  AIGC2D: 13,
  Anthropic: 14,
  Baidu: 15,
  Zhipu: 16,
  Ali: 17,
  Xunfei: 18,
  AI360: 19,
  OpenRouter: 20,
  AIProxyLibrary: 21,
  FastGPT: 22,
  Tencent: 23,
  Gemini: 24,
  Moonshot: 25,
  ZhipuV4: 26,
  Perplexity: 27,
  LingYiWanWu: 31,
  AWS: 33,
  Cohere: 34,
  MiniMax: 35,
  SunoAPI: 36,
  Dify: 37,
  Jina: 38,
  Cloudflare: 39,
  SiliconFlow: 40,
  VertexAI: 41,
  Mistral: 42,
  DeepSeek: 43,
  MokaAI: 44,
  VolcEngine: 45,
  BaiduV2: 46,
  Xinference: 47,
  XAI: 48,
  Coze: 49,
  Kling: 50,
  Jimeng: 51,
  Vidu: 52,
  Submodel: 53,
  DoubaoVideo: 54,
  Sora: 55,
  Replicate: 56,
  Codex: 57,
} as const;
export type ChannelType = (typeof ChannelType)[keyof typeof ChannelType];
export const channelTypeValues = Object.values(ChannelType) as ChannelType[];

/** Default base URLs where the established product has one (used when base_url is empty). */
export const channelDefaultBaseUrls: Partial<Record<ChannelType, string>> = {
  1: 'https://api.openai.com',
  2: 'https://oa.api2d.net',
  4: 'http://localhost:11434',
  5: 'https://api.openai-sb.com',
  6: 'https://api.openaimax.com',
  7: 'https://api.ohmygpt.com',
  9: 'https://api.caipacity.com',
  10: 'https://api.aiproxy.io',
  12: 'https://api.api2gpt.com',
  13: 'https://api.aigc2d.com',
  14: 'https://api.anthropic.com',
  15: 'https://aip.baidubce.com',
  16: 'https://open.bigmodel.cn',
  17: 'https://dashscope.aliyuncs.com',
  19: 'https://api.360.cn',
  20: 'https://openrouter.ai/api',
  21: 'https://api.aiproxy.io',
  22: 'https://fastgpt.run/api/openapi',
  23: 'https://hunyuan.tencentcloudapi.com',
  24: 'https://generativelanguage.googleapis.com',
  25: 'https://api.moonshot.cn',
  26: 'https://open.bigmodel.cn',
  27: 'https://api.perplexity.ai',
  31: 'https://api.lingyiwanwu.com',
  34: 'https://api.cohere.ai',
  35: 'https://api.minimax.chat',
  37: 'https://api.dify.ai',
  38: 'https://api.jina.ai',
  39: 'https://api.cloudflare.com',
  40: 'https://api.siliconflow.cn',
  42: 'https://api.mistral.ai',
  43: 'https://api.deepseek.com',
  44: 'https://api.moka.ai',
  45: 'https://ark.cn-beijing.volces.com',
  46: 'https://qianfan.baidubce.com',
  48: 'https://api.x.ai',
  49: 'https://api.coze.cn',
  50: 'https://api.klingai.com',
  51: 'https://visual.volcengineapi.com',
  52: 'https://api.vidu.cn',
  53: 'https://llm.submodel.ai',
  54: 'https://ark.cn-beijing.volces.com',
  55: 'https://api.openai.com',
  56: 'https://api.replicate.com',
  57: 'https://chatgpt.com',
};

/** Channel status: 1 enabled, 2 disabled by hand, 3 disabled automatically (reason and time kept). */
export const ChannelStatus = { Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;

const isJsonObject = (text: string) => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
};

/** JSON object text ('' for none), refused with the field's own message (`message` names the field). */
const jsonText = (message: MessageId) =>
  z
    .string()
    .max(65536)
    .refine((text) => text.trim() === '' || isJsonObject(text), msg(message));

/** The channel as admins see it: a whitelist, the key is never a field (rule R4). */
export const channelViewSchema = z.object({
  id: z.number().int(),
  type: z.number().int(),
  name: z.string(),
  status: z.number().int(),
  group: z.string(),
  models: z.string(),
  base_url: z.string(),
  other: z.string(),
  model_mapping: z.string(),
  status_code_mapping: z.string(),
  param_override: z.string(),
  setting: z.string(),
  test_model: z.string(),
  auto_ban: z.number().int(),
  tag: z.string(),
  priority: z.number().int(),
  weight: z.number().int(),
  openai_organization: z.string(),
  response_time: z.number().int(),
  balance: z.number(),
  balance_updated_time: z.number().int(),
  used_quota: z.number().int(),
  created_time: z.number().int(),
  test_time: z.number().int(),
  other_info: z.string(),
  /** The channel may reach loopback, private and link-local upstreams (rule R2); off unless an admin turned it on. */
  allow_private_network: z.boolean(),
  /** A channel with many keys: how they are picked, how many, how many are live; null for a channel with one key. */
  multi_key: z.object({ mode: multiKeyModeSchema, size: z.number().int(), live: z.number().int() }).nullable(),
  /** Requests and tokens per minute and day, requests at once: at its limit routing skips the channel. */
  rate_limits: rateLimitsSchema,
});
export type ChannelView = z.infer<typeof channelViewSchema>;

/**
 * A tag in the channel table's tag mode: one row for all the channels carrying the tag (listed as
 * its children) and what the table shows for them together.
 */
export const tagRowSchema = z.object({
  tag: z.string(),
  name: z.string(),
  /** The channels' type when they share one, else 0. */
  type: z.number().int(),
  /** 1 when any channel of the tag is enabled, else 2. */
  status: z.number().int(),
  channel_count: z.number().int(),
  enabled_count: z.number().int(),
  group: z.string(),
  models: z.string(),
  priority: z.number().int(),
  weight: z.number().int(),
  used_quota: z.number().int(),
  balance: z.number(),
  /** Mean of the tested channels' response times (ms). */
  response_time: z.number().int(),
  children: z.array(channelViewSchema),
});
export type TagRow = z.infer<typeof tagRowSchema>;

/** A row of GET /api/channel/ and /api/channel/search: a channel, or in tag mode also a tag. */
export type ChannelRow = ChannelView | TagRow;

/** Query flags as the console sends them: `true`/`false` (or 1/0); absent is false. */
const queryFlag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** GET /api/channel/: the page, ordered by priority (or by id with `id_sort`), tags folded with `tag_mode`. */
export const channelListQuerySchema = pageQuerySchema.extend({ id_sort: queryFlag, tag_mode: queryFlag });

/** GET /api/channel/search: the list's query and its filters. */
export const channelSearchQuerySchema = channelListQuerySchema.extend({
  /** An id, part of a name, or a whole key. */
  keyword: z.string().trim().max(1024).default(''),
  /** A group the channel serves. */
  group: z.string().trim().max(64).default(''),
  /** Part of a model name the channel lists. */
  model: z.string().trim().max(255).default(''),
});
export type ChannelSearchQuery = z.infer<typeof channelSearchQuerySchema>;

/** One entry of GET /api/channel/models: a model the channel editor offers. */
export const knownModelSchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  owned_by: z.string(),
  /** Channel types that offer it (built in, or listed by a channel of that type). */
  channel_types: z.array(z.number().int()),
});
export type KnownModel = z.infer<typeof knownModelSchema>;

/** The answer of POST /api/channel/: one channel per key line. */
export const createdChannelsSchema = z.object({ ids: z.array(z.number().int()) });
export type CreatedChannels = z.infer<typeof createdChannelsSchema>;

/** The answer of POST /api/channel/copy/:id: the copy's id. */
export const copiedChannelSchema = z.object({ id: z.number().int() });
export type CopiedChannel = z.infer<typeof copiedChannelSchema>;

/** The answer of POST /api/channel/test/:id: the upstream's response time in seconds. */
export const channelTestResultSchema = z.object({ time: z.number() });
export type ChannelTestResult = z.infer<typeof channelTestResultSchema>;

/** The answer of POST /api/channel/update_balance/:id: the balance the upstream reported. */
export const channelBalanceSchema = z.object({ balance: z.number() });
export type ChannelBalance = z.infer<typeof channelBalanceSchema>;

/** Every editable channel field, without defaults (PUT sends only what changed). */
const channelFields = {
  type: z
    .number()
    .int()
    .refine((type) => (channelTypeValues as number[]).includes(type), msg('channels.type_unknown')),
  name: z.string().trim().min(1, msg('channels.name_required')).max(128),
  /** Comma-separated groups. */
  group: z.string().trim().min(1, msg('channels.group_required')).max(1024),
  /** Comma-separated models. */
  models: z.string().trim().min(1, msg('channels.models_required')).max(65536),
  base_url: z.string().trim().max(2048),
  other: z.string().max(4096),
  model_mapping: jsonText('channels.model_mapping_json'),
  status_code_mapping: jsonText('channels.status_code_mapping_json'),
  param_override: jsonText('channels.param_override_json'),
  setting: jsonText('channels.setting_json'),
  test_model: z.string().trim().max(MAX_MODEL_NAME_LENGTH),
  auto_ban: z.number().int().min(0).max(1),
  tag: z.string().trim().max(64),
  priority: z.number().int().min(-999).max(1_000_000),
  weight: z.number().int().min(0).max(1_000_000),
  openai_organization: z.string().trim().max(128),
  /** Let this channel reach private networks (rule R2); audit-logged when set. */
  allow_private_network: z.boolean(),
  rate_limits: rateLimitsSchema,
};

/**
 * POST /api/channel/: a key per line creates one channel per key (batch). Without
 * `allow_private_network` a channel takes root's AllowPrivateNetworkUpstreams as it is then.
 */
export const createChannelBodySchema = z.object({
  ...channelFields,
  allow_private_network: channelFields.allow_private_network.optional(),
  base_url: channelFields.base_url.default(''),
  other: channelFields.other.default(''),
  model_mapping: channelFields.model_mapping.default(''),
  status_code_mapping: channelFields.status_code_mapping.default(''),
  param_override: channelFields.param_override.default(''),
  setting: channelFields.setting.default(''),
  test_model: channelFields.test_model.default(''),
  auto_ban: channelFields.auto_ban.default(1),
  tag: channelFields.tag.default(''),
  priority: channelFields.priority.default(0),
  weight: channelFields.weight.default(0),
  openai_organization: channelFields.openai_organization.default(''),
  rate_limits: channelFields.rate_limits.default({}),
  status: z.union([z.literal(1), z.literal(2)], { error: msg('validation.enabled_or_disabled') }).default(1),
  key: z.string().trim().min(1, msg('channel_key.required')).max(1_000_000),
  /** Several keys make ONE channel holding them all, picked this way per request; absent: one channel per key (batch create). */
  multi_key_mode: multiKeyModeSchema.optional(),
});
export type CreateChannelBody = z.infer<typeof createChannelBodySchema>;

/** PUT /api/channel/: the id and only the changed fields; an empty or absent key keeps the stored one. */
export const updateChannelBodySchema = z.object({
  id: idSchema,
  ...(Object.fromEntries(Object.entries(channelFields).map(([name, schema]) => [name, schema.optional()])) as {
    [K in keyof typeof channelFields]: z.ZodOptional<(typeof channelFields)[K]>;
  }),
  status: z.number().int().min(1).max(3).optional(),
  key: z.string().trim().max(1_000_000).optional(),
  /** A channel with many keys: how a request's key is picked. */
  multi_key_mode: multiKeyModeSchema.optional(),
  /** What a new `key` does to a channel with many keys: replaces them all (the default), or adds to them. */
  key_mode: z.enum(['replace', 'append']).optional(),
});
export type UpdateChannelBody = z.infer<typeof updateChannelBodySchema>;

/** Blank inputs mean "no change" in the tag editor; numbers may arrive as text from a form. */
const blankToUndefined = (value: unknown) => {
  if (value === '' || value === null) return undefined;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return value;
};
const optionalInteger = (id: MessageId, min: number) => {
  const message = msg(id);
  return z.preprocess(blankToUndefined, z.number({ error: message }).int(message).min(min, message).max(1_000_000).optional()).optional();
};

/** A tag name in a tag operation's body, with the console's message. */
const tagRequired = msg('channels.tag_required');
export const tagNameSchema = z.string({ error: tagRequired }).trim().min(1, tagRequired).max(64);

/** PUT /api/channel/tag: every channel of `tag`; blank fields are left out (no change), with the console's messages (docs/product.md section 6, tag operations). */
export const tagEditBodySchema = z.object({
  tag: tagNameSchema,
  /** Renames the tag; '' dissolves it. */
  new_tag: z
    .string()
    .trim()
    .max(64)
    .nullish()
    .transform((value) => value ?? undefined)
    .optional(),
  model_mapping: z
    .string()
    .trim()
    .max(65536)
    .nullish()
    .refine((value) => !value || isJsonObject(value), msg('channels.model_mapping_json'))
    .transform((value) => value || undefined)
    .optional(),
  /** Comma-separated groups. */
  groups: z
    .string()
    .trim()
    .max(1024)
    .nullish()
    .transform((value) => value || undefined)
    .optional(),
  /** Comma-separated models. */
  models: z
    .string()
    .trim()
    .max(65536)
    .nullish()
    .transform((value) => value || undefined)
    .optional(),
  priority: optionalInteger('channels.priority_integer', -999),
  weight: optionalInteger('channels.weight_integer', 0),
});
export type TagEditBody = z.infer<typeof tagEditBodySchema>;

/**
 * POST /api/channel/fetch_models: the models an upstream lists, for a channel not saved yet (the
 * editor's type, base URL and key).
 */
export const fetchModelsBodySchema = z.object({
  type: channelFields.type,
  base_url: z.string().trim().max(2048).default(''),
  key: z.string().trim().min(1, msg('channel_key.required')).max(1_000_000),
  /** The editor's private-network switch; absent: what a new channel would take (AllowPrivateNetworkUpstreams). */
  allow_private_network: channelFields.allow_private_network.optional(),
});
/** The body as the console sends it (`base_url` and the switch may be left out). */
export type FetchModelsBody = z.input<typeof fetchModelsBodySchema>;

/** The routing facts of a channel, as the relay caches them (no key: it is fetched by request). */
export const routingChannelSchema = z.object({
  id: z.number().int(),
  type: z.number().int(),
  name: z.string(),
  status: z.number().int(),
  groups: z.array(z.string()),
  models: z.array(z.string()),
  base_url: z.string(),
  other: z.string(),
  model_mapping: z.record(z.string(), z.string()),
  status_code_mapping: z.record(z.string(), z.string()),
  param_override: z.record(z.string(), z.unknown()),
  setting: z.record(z.string(), z.unknown()),
  priority: z.number().int(),
  weight: z.number().int(),
  tag: z.string(),
  auto_ban: z.number().int(),
  openai_organization: z.string(),
  /** The upstream may be on a private network (the channel's own flag, rule R2); absent from an older publisher: no. */
  allow_private_network: z.boolean().default(false),
  /** A channel with many keys (its key text holds them all): how one is picked and which are off; null for one key. */
  multi_key: routingKeysSchema.nullable().default(null),
  /** Its usage limits; absent from an older publisher: none. */
  rate_limits: rateLimitsSchema.default({}),
  /** Grows with every change, so a late event never overwrites a newer row. */
  version: z.number().int(),
});
export type RoutingChannel = z.infer<typeof routingChannelSchema>;

/** What the relay reports about a failed upstream attempt (channels decides on auto-disable). */
export const channelFailureSchema = z.object({
  channel_id: z.number().int(),
  request_id: z.string().max(64),
  status_code: z.number().int(),
  error_code: z.string().max(256).default(''),
  error_type: z.string().max(256).default(''),
  message: z.string().max(2048).default(''),
  /** True when it came from a channel test (a slow but successful test also counts as a failure). */
  test: z.boolean().default(false),
  /** Which of a multi-key channel's keys failed (its index): that key, not the channel, is what a disable rule disables. */
  key_index: z.number().int().min(0).optional(),
});

/** What the relay can do for channels with a channel's own credentials. */
export const channelOperationSchema = z.enum(['test', 'models', 'balance']);

/** POST /api/channel/multi_key/manage: the key list of a channel with many keys, and its keys turned on and off (the established product's route). */
export const multiKeyManageBodySchema = z.object({
  channel_id: z.number().int().min(1),
  action: z.enum(['get_key_status', 'enable_key', 'disable_key', 'enable_all_keys', 'delete_disabled_keys']),
  /** The key's index (from 0), for enable_key and disable_key. */
  key_index: z.number().int().min(0).optional(),
});
export type MultiKeyManageBody = z.infer<typeof multiKeyManageBodySchema>;

/** One key of a channel with many keys, as admins see it: masked, never whole (rule R4). */
export const channelKeyStatusSchema = z.object({
  index: z.number().int(),
  /** The key's first and last few characters. */
  masked: z.string(),
  /** 1 enabled, 2 disabled by hand, 3 disabled automatically. */
  status: z.number().int(),
  /** Why it was disabled, and when (epoch seconds); '' and 0 for an enabled key. */
  reason: z.string(),
  time: z.number().int(),
});
export type ChannelKeyStatus = z.infer<typeof channelKeyStatusSchema>;

/** The answer of get_key_status (and of every other action: the list as it is after it). */
export const channelKeyListSchema = z.object({
  mode: multiKeyModeSchema,
  size: z.number().int(),
  live: z.number().int(),
  keys: z.array(channelKeyStatusSchema),
});
export type ChannelKeyList = z.infer<typeof channelKeyListSchema>;
