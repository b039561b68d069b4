import { ChannelType } from '@aigw/contracts';
import type { ProviderDefinition } from './types.js';
import type { OperationName } from '../operations/types.js';
import { aliProvider } from './ali/index.js';
import { anthropicProvider } from './anthropic/index.js';
import { azureProvider } from './azure/index.js';
import { vertexProvider } from './vertex/index.js';
import { baiduProvider } from './baidu/index.js';
import { bedrockProvider } from './bedrock/index.js';
import { jinaProvider } from './jina/index.js';
import { cloudflareProvider } from './cloudflare/index.js';
import { cohereProvider } from './cohere/index.js';
import { codexProvider } from './codex/index.js';
import { cozeProvider } from './coze/index.js';
import { customProvider } from './custom/index.js';
import { difyProvider } from './dify/index.js';
import { geminiProvider } from './gemini/index.js';
import { openAiProvider } from './openai/index.js';
import { tencentProvider } from './tencent/index.js';
import { zhipuProvider } from './zhipu/index.js';
import { xunfeiProvider } from './xunfei/index.js';
import * as family from './openai/family.js';
import type { TaskPlatformDefinition } from '../tasks/platform.js';
import { midjourneyPlatform } from '../tasks/midjourney.js';
import { sunoPlatform } from '../tasks/suno.js';

/**
 * Every channel type and the provider that serves it in the chat relay (style rule 11,
 * CONTRIBUTING.md). The `satisfies` makes a new ChannelType a compile error until it is listed
 * here. `null` is an explicit "not supported yet": the native protocols not built (PaLM,
 * AIProxyLibrary), and the task channel types, which `taskPlatforms` below serves instead.
 * The video and image task platforms (Kling 50, Jimeng 51, Vidu 52, Doubao video 54, Sora 55, and
 * Replicate 56's image predictions) are neither chat, embeddings nor rerank, and no task platform
 * of theirs is built: their channels load and list, and routing sends them nothing.
 */
export const providers = {
  [ChannelType.Unknown]: null,
  [ChannelType.OpenAI]: openAiProvider,
  [ChannelType.Midjourney]: null,
  [ChannelType.Azure]: azureProvider,
  [ChannelType.Ollama]: family.ollamaProvider,
  [ChannelType.MidjourneyPlus]: null,
  [ChannelType.OpenAIMax]: family.openAiMaxProvider,
  [ChannelType.OhMyGPT]: family.ohMyGptProvider,
  [ChannelType.Custom]: customProvider,
  [ChannelType.AILS]: family.ailsProvider,
  [ChannelType.AIProxy]: family.aiProxyProvider,
  [ChannelType.PaLM]: null,
  [ChannelType.API2GPT]: family.api2GptProvider,
  [ChannelType.AIGC2D]: family.aigc2dProvider,
  [ChannelType.Anthropic]: anthropicProvider,
  [ChannelType.Baidu]: baiduProvider,
  [ChannelType.Zhipu]: zhipuProvider,
  [ChannelType.Ali]: aliProvider,
  [ChannelType.Xunfei]: xunfeiProvider,
  [ChannelType.AI360]: family.ai360Provider,
  [ChannelType.OpenRouter]: family.openRouterProvider,
  [ChannelType.AIProxyLibrary]: null,
  [ChannelType.FastGPT]: family.fastGptProvider,
  [ChannelType.Tencent]: tencentProvider,
  [ChannelType.Gemini]: geminiProvider,
  [ChannelType.Moonshot]: family.moonshotProvider,
  [ChannelType.ZhipuV4]: family.zhipuV4Provider,
  [ChannelType.Perplexity]: family.perplexityProvider,
  [ChannelType.LingYiWanWu]: family.lingYiProvider,
  [ChannelType.AWS]: bedrockProvider,
  [ChannelType.Cohere]: cohereProvider,
  [ChannelType.MiniMax]: family.miniMaxProvider,
  [ChannelType.SunoAPI]: null,
  [ChannelType.Dify]: difyProvider,
  [ChannelType.Jina]: jinaProvider,
  [ChannelType.Cloudflare]: cloudflareProvider,
  [ChannelType.SiliconFlow]: family.siliconFlowProvider,
  [ChannelType.VertexAI]: vertexProvider,
  [ChannelType.Mistral]: family.mistralProvider,
  [ChannelType.DeepSeek]: family.deepSeekProvider,
  [ChannelType.MokaAI]: family.mokaAiProvider,
  [ChannelType.VolcEngine]: family.volcEngineProvider,
  [ChannelType.BaiduV2]: family.baiduV2Provider,
  [ChannelType.Xinference]: family.xinferenceProvider,
  [ChannelType.XAI]: family.xAiProvider,
  [ChannelType.Coze]: cozeProvider,
  [ChannelType.Kling]: null,
  [ChannelType.Jimeng]: null,
  [ChannelType.Vidu]: null,
  [ChannelType.Submodel]: family.submodelProvider,
  [ChannelType.DoubaoVideo]: null,
  [ChannelType.Sora]: null,
  [ChannelType.Replicate]: null,
  [ChannelType.Codex]: codexProvider,
} as const satisfies Record<ChannelType, ProviderDefinition | null>;

const typeNames = new Map<number, string>(Object.entries(ChannelType).map(([name, type]) => [type, name]));

/** A channel whose type the chat relay cannot serve. Raised when the channel is loaded, never mid-request. */
export class UnsupportedChannelTypeError extends Error {
  readonly code = 'unsupported_channel_type';
  constructor(readonly channelType: number) {
    const name = typeNames.get(channelType);
    super(name === undefined ? `channel type ${channelType} is unknown` : `channel type ${channelType} (${name}) is not supported by the chat relay`);
    this.name = 'UnsupportedChannelTypeError';
  }
}

function isChannelType(type: number): type is ChannelType {
  return typeNames.has(type);
}

/** The provider of a channel type; throws UnsupportedChannelTypeError for unknown or unsupported types. */
export function providerFor(type: number): ProviderDefinition {
  const provider = isChannelType(type) ? providers[type] : null;
  if (!provider) throw new UnsupportedChannelTypeError(type);
  return provider;
}

/**
 * The channel types of the async task relays (tasks/) and the platform protocol each speaks; a
 * channel of these types serves its platform's operation ('midjourney', 'suno') and nothing else.
 */
export const taskPlatforms: Partial<Record<ChannelType, TaskPlatformDefinition>> = {
  [ChannelType.Midjourney]: midjourneyPlatform,
  [ChannelType.MidjourneyPlus]: midjourneyPlatform,
  [ChannelType.SunoAPI]: sunoPlatform,
};

/** The task platform of a channel type, or null when the type is no task channel. */
export function taskPlatformFor(type: number): TaskPlatformDefinition | null {
  return (isChannelType(type) ? taskPlatforms[type] : undefined) ?? null;
}

const served = new Map<number, ReadonlySet<OperationName>>(
  Object.entries(providers).map(([type, provider]) => {
    const platform = taskPlatformFor(Number(type));
    return [Number(type), new Set<OperationName>(platform ? [platform.platform] : (provider?.operations ?? []))];
  }),
);

/** Whether channels of this type can serve the operation (routing considers no other). */
export function servesOperation(type: number, operation: OperationName): boolean {
  return served.get(type)?.has(operation) ?? false;
}

/** Whether the chat relay can serve this channel type (for filtering without an exception). */
export function isSupportedChannelType(type: number): boolean {
  return isChannelType(type) && providers[type] !== null;
}
