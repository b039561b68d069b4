import { ChannelType, PRODUCT_NAME, channelDefaultBaseUrls } from '@aigw/contracts';
import { openAiCompatible } from './compatible.js';
import { deepSeekBalance, openRouterBalance, siliconFlowBalance } from '../shared/balance.js';
import { OPENAI_FORMAT_OPERATIONS } from '../types.js';

/**
 * The OpenAI-compatible family (docs/compatibility.md sections 2.1 and 2.3): each upstream is its
 * base URL, its paths when they differ from `/v1/chat/completions`, and whether it reports stream
 * usage (`streamSupportedChannels`: only Ollama, VolcEngine and xAI among these).
 */
const base = (type: ChannelType) => channelDefaultBaseUrls[type];

export const ollamaProvider = openAiCompatible({ id: 'ollama', defaultBaseUrl: base(ChannelType.Ollama), streamUsage: true });
export const openAiMaxProvider = openAiCompatible({ id: 'openai-max', defaultBaseUrl: base(ChannelType.OpenAIMax), streamUsage: false });
export const ohMyGptProvider = openAiCompatible({ id: 'ohmygpt', defaultBaseUrl: base(ChannelType.OhMyGPT), streamUsage: false });
export const ailsProvider = openAiCompatible({ id: 'ails', defaultBaseUrl: base(ChannelType.AILS), streamUsage: false });
export const aiProxyProvider = openAiCompatible({ id: 'aiproxy', defaultBaseUrl: base(ChannelType.AIProxy), streamUsage: false });
export const api2GptProvider = openAiCompatible({ id: 'api2gpt', defaultBaseUrl: base(ChannelType.API2GPT), streamUsage: false });
export const aigc2dProvider = openAiCompatible({ id: 'aigc2d', defaultBaseUrl: base(ChannelType.AIGC2D), streamUsage: false });
export const ai360Provider = openAiCompatible({ id: '360', defaultBaseUrl: base(ChannelType.AI360), streamUsage: false });
export const openRouterProvider = openAiCompatible({
  id: 'openrouter',
  defaultBaseUrl: base(ChannelType.OpenRouter),
  // OpenRouter attributes traffic to an app by these two optional headers (its app rankings). The
  // product has no public site yet, so the referer is a reserved placeholder domain.
  extraHeaders: { 'HTTP-Referer': 'https://ai-gateway.invalid', 'X-Title': PRODUCT_NAME },
  streamUsage: false,
  balance: openRouterBalance(base(ChannelType.OpenRouter)),
});
export const fastGptProvider = openAiCompatible({ id: 'fastgpt', defaultBaseUrl: base(ChannelType.FastGPT), streamUsage: false });
export const moonshotProvider = openAiCompatible({ id: 'moonshot', defaultBaseUrl: base(ChannelType.Moonshot), streamUsage: false });
// Zhipu v4 also serves image generations (CogView, `/api/paas/v4/images/generations`, OpenAI's shape).
export const zhipuV4Provider = openAiCompatible({
  id: 'zhipu-v4',
  defaultBaseUrl: base(ChannelType.ZhipuV4),
  versionPath: '/api/paas/v4',
  streamUsage: false,
  operations: [...OPENAI_FORMAT_OPERATIONS, 'images'],
});
export const perplexityProvider = openAiCompatible({ id: 'perplexity', defaultBaseUrl: base(ChannelType.Perplexity), versionPath: '', streamUsage: false });
export const lingYiProvider = openAiCompatible({ id: 'lingyiwanwu', defaultBaseUrl: base(ChannelType.LingYiWanWu), streamUsage: false });
export const miniMaxProvider = openAiCompatible({
  id: 'minimax',
  defaultBaseUrl: base(ChannelType.MiniMax),
  chatPath: '/text/chatcompletion_v2',
  streamUsage: false,
});
// SiliconFlow and Xinference also serve rerank (`/v1/rerank`, Jina's shape).
const withRerank = [...OPENAI_FORMAT_OPERATIONS, 'rerank'] as const;
export const siliconFlowProvider = openAiCompatible({
  id: 'siliconflow',
  defaultBaseUrl: base(ChannelType.SiliconFlow),
  streamUsage: false,
  // Also image generations (`/v1/images/generations`: Kolors, FLUX, Qwen-Image; its own
  // `batch_size` counts the images, which the image pricing reads), and speech and
  // transcriptions (`/v1/audio/speech`, `/v1/audio/transcriptions`; no translations endpoint).
  operations: [...withRerank, 'images', 'audio-speech', 'audio-transcriptions'],
  balance: siliconFlowBalance(base(ChannelType.SiliconFlow)),
});
export const mistralProvider = openAiCompatible({ id: 'mistral', defaultBaseUrl: base(ChannelType.Mistral), streamUsage: false });
export const deepSeekProvider = openAiCompatible({
  id: 'deepseek',
  defaultBaseUrl: base(ChannelType.DeepSeek),
  streamUsage: false,
  balance: deepSeekBalance(base(ChannelType.DeepSeek)),
});
export const mokaAiProvider = openAiCompatible({ id: 'mokaai', defaultBaseUrl: base(ChannelType.MokaAI), streamUsage: false });
export const volcEngineProvider = openAiCompatible({
  id: 'volcengine',
  defaultBaseUrl: base(ChannelType.VolcEngine),
  versionPath: '/api/v3',
  streamUsage: true,
});
export const baiduV2Provider = openAiCompatible({ id: 'baidu-v2', defaultBaseUrl: base(ChannelType.BaiduV2), versionPath: '/v2', streamUsage: false });
// No default: Xinference is self-hosted, the channel must give its base_url. It serves OpenAI's
// audio APIs too (`/v1/audio/speech`, `/transcriptions`, `/translations`).
export const xinferenceProvider = openAiCompatible({
  id: 'xinference',
  streamUsage: false,
  operations: [...withRerank, 'audio-speech', 'audio-transcriptions', 'audio-translations'],
});
// SubModel (53): OpenAI-compatible; not a type the established product asks for stream usage, so a stream's usage is counted here.
export const submodelProvider = openAiCompatible({ id: 'submodel', defaultBaseUrl: base(ChannelType.Submodel), streamUsage: false });
// xAI serves image generations (`/v1/images/generations`, OpenAI's shape), not edits or variations.
export const xAiProvider = openAiCompatible({
  id: 'xai',
  defaultBaseUrl: base(ChannelType.XAI),
  streamUsage: true,
  operations: [...OPENAI_FORMAT_OPERATIONS, 'images'],
});
