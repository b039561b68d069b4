import { z } from 'zod';
import { idSchema } from './envelope.js';

/** Channel type numbers, exactly as the established product stores them (docs/compatibility.md section 2.1). */
export const ChannelType = {
  Unknown: 0, OpenAI: 1, Midjourney: 2, Azure: 3, Ollama: 4, MidjourneyPlus: 5, OpenAIMax: 6, OhMyGPT: 7, Custom: 8,
  AILS: 9, AIProxy: 10, PaLM: 11, API2GPT: 12, AIGC2D: 13, Anthropic: 14, Baidu: 15, Zhipu: 16, Ali: 17, Xunfei: 18,
  AI360: 19, OpenRouter: 20, AIProxyLibrary: 21, FastGPT: 22, Tencent: 23, Gemini: 24, Moonshot: 25, ZhipuV4: 26,
  Perplexity: 27, LingYiWanWu: 31, AWS: 33, Cohere: 34, MiniMax: 35, SunoAPI: 36, Dify: 37, Jina: 38, Cloudflare: 39,
  SiliconFlow: 40, VertexAI: 41, Mistral: 42, DeepSeek: 43, MokaAI: 44, VolcEngine: 45, BaiduV2: 46, Xinference: 47, XAI: 48,
} as const;
export type ChannelType = (typeof ChannelType)[keyof typeof ChannelType];
export const channelTypeValues = Object.values(ChannelType) as ChannelType[];

/** Default base URLs where the established product has one (used when base_url is empty). */
export const channelDefaultBaseUrls: Partial<Record<ChannelType, string>> = {
  1: 'https://api.openai.com', 2: 'https://oa.api2d.net', 4: 'http://localhost:11434', 5: 'https://api.openai-sb.com',
  6: 'https://api.openaimax.com', 7: 'https://api.ohmygpt.com', 9: 'https://api.caipacity.com', 10: 'https://api.aiproxy.io',
  12: 'https://api.api2gpt.com', 13: 'https://api.aigc2d.com', 14: 'https://api.anthropic.com', 15: 'https://aip.baidubce.com',
  16: 'https://open.bigmodel.cn', 17: 'https://dashscope.aliyuncs.com', 19: 'https://api.360.cn', 20: 'https://openrouter.ai/api',
  21: 'https://api.aiproxy.io', 22: 'https://fastgpt.run/api/openapi', 23: 'https://hunyuan.tencentcloudapi.com',
  24: 'https://generativelanguage.googleapis.com', 25: 'https://api.moonshot.cn', 26: 'https://open.bigmodel.cn',
  27: 'https://api.perplexity.ai', 31: 'https://api.lingyiwanwu.com', 34: 'https://api.cohere.ai', 35: 'https://api.minimax.chat',
  37: 'https://api.dify.ai', 38: 'https://api.jina.ai', 39: 'https://api.cloudflare.com', 40: 'https://api.siliconflow.cn',
  42: 'https://api.mistral.ai', 43: 'https://api.deepseek.com', 44: 'https://api.moka.ai', 45: 'https://ark.cn-beijing.volces.com',
  46: 'https://qianfan.baidubce.com', 48: 'https://api.x.ai',
};

/** Channel status: 1 enabled, 2 disabled by hand, 3 disabled automatically (reason and time kept). */
export const ChannelStatus = { Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;

const jsonText = (field: string) =>
  z.string().max(65536).refine((text) => {
    if (text.trim() === '') return true;
    try {
      const value = JSON.parse(text);
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    } catch {
      return false;
    }
  }, `${field} must be a JSON object`);

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
});
export type ChannelView = z.infer<typeof channelViewSchema>;

/** Every editable channel field, without defaults (PUT sends only what changed). */
const channelFields = {
  type: z.number().int().refine((type) => (channelTypeValues as number[]).includes(type), 'type is not a known channel type'),
  name: z.string().trim().min(1, 'name is required').max(128),
  /** Comma-separated groups. */
  group: z.string().trim().min(1, 'group is required').max(1024),
  /** Comma-separated models. */
  models: z.string().trim().min(1, 'models is required').max(65536),
  base_url: z.string().trim().max(2048),
  other: z.string().max(4096),
  model_mapping: jsonText('model_mapping'),
  status_code_mapping: jsonText('status_code_mapping'),
  param_override: jsonText('param_override'),
  setting: jsonText('setting'),
  test_model: z.string().trim().max(128),
  auto_ban: z.number().int().min(0).max(1),
  tag: z.string().trim().max(64),
  priority: z.number().int().min(-999).max(1_000_000),
  weight: z.number().int().min(0).max(1_000_000),
  openai_organization: z.string().trim().max(128),
  /** Let this channel reach private networks (rule R2); audit-logged when set. */
  allow_private_network: z.boolean({ error: 'allow_private_network must be true or false' }),
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
  status: z.union([z.literal(1), z.literal(2)]).default(1),
  key: z.string().trim().min(1, 'key is required').max(1_000_000),
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
});
export type UpdateChannelBody = z.infer<typeof updateChannelBodySchema>;

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
});

/** What the relay can do for channels with a channel's own credentials. */
export const channelOperationSchema = z.enum(['test', 'models', 'balance']);
