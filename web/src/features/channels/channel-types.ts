import { defineMessages, type MessageDescriptor } from 'react-intl';
import { ChannelType, channelDefaultBaseUrls, channelTypeValues } from '@aigw/contracts';

/** Channel type names, in the established console's wording. */
const typeNames = defineMessages({
  0: { id: 'pages.channels.type.unknown', defaultMessage: '未知类型' },
  1: { id: 'pages.channels.type.openai', defaultMessage: 'OpenAI' },
  2: { id: 'pages.channels.type.midjourney', defaultMessage: 'Midjourney Proxy' },
  3: { id: 'pages.channels.type.azure', defaultMessage: 'Azure OpenAI' },
  4: { id: 'pages.channels.type.ollama', defaultMessage: 'Ollama' },
  5: { id: 'pages.channels.type.midjourneyPlus', defaultMessage: 'Midjourney Proxy Plus' },
  6: { id: 'pages.channels.type.openaiMax', defaultMessage: 'OpenAIMax' },
  7: { id: 'pages.channels.type.ohmygpt', defaultMessage: 'OhMyGPT' },
  8: { id: 'pages.channels.type.custom', defaultMessage: '自定义渠道' },
  9: { id: 'pages.channels.type.ails', defaultMessage: 'AI.LS' },
  10: { id: 'pages.channels.type.aiproxy', defaultMessage: 'AI Proxy' },
  11: { id: 'pages.channels.type.palm', defaultMessage: 'Google PaLM2' },
  12: { id: 'pages.channels.type.api2gpt', defaultMessage: 'API2GPT' },
  13: { id: 'pages.channels.type.aigc2d', defaultMessage: 'AIGC2D' },
  14: { id: 'pages.channels.type.anthropic', defaultMessage: 'Anthropic Claude' },
  15: { id: 'pages.channels.type.baidu', defaultMessage: '百度文心千帆' },
  16: { id: 'pages.channels.type.zhipu', defaultMessage: '智谱 ChatGLM' },
  17: { id: 'pages.channels.type.ali', defaultMessage: '阿里通义千问' },
  18: { id: 'pages.channels.type.xunfei', defaultMessage: '讯飞星火认知' },
  19: { id: 'pages.channels.type.ai360', defaultMessage: '360 智脑' },
  20: { id: 'pages.channels.type.openrouter', defaultMessage: 'OpenRouter' },
  21: { id: 'pages.channels.type.aiproxyLibrary', defaultMessage: '知识库：AI Proxy' },
  22: { id: 'pages.channels.type.fastgpt', defaultMessage: '知识库：FastGPT' },
  23: { id: 'pages.channels.type.tencent', defaultMessage: '腾讯混元' },
  24: { id: 'pages.channels.type.gemini', defaultMessage: 'Google Gemini' },
  25: { id: 'pages.channels.type.moonshot', defaultMessage: 'Moonshot' },
  26: { id: 'pages.channels.type.zhipuV4', defaultMessage: '智谱 GLM-4V' },
  27: { id: 'pages.channels.type.perplexity', defaultMessage: 'Perplexity' },
  31: { id: 'pages.channels.type.lingyiwanwu', defaultMessage: '零一万物' },
  33: { id: 'pages.channels.type.aws', defaultMessage: 'AWS Claude' },
  34: { id: 'pages.channels.type.cohere', defaultMessage: 'Cohere' },
  35: { id: 'pages.channels.type.minimax', defaultMessage: 'MiniMax' },
  36: { id: 'pages.channels.type.suno', defaultMessage: 'Suno API' },
  37: { id: 'pages.channels.type.dify', defaultMessage: 'Dify' },
  38: { id: 'pages.channels.type.jina', defaultMessage: 'Jina' },
  39: { id: 'pages.channels.type.cloudflare', defaultMessage: 'Cloudflare' },
  40: { id: 'pages.channels.type.siliconflow', defaultMessage: 'SiliconCloud' },
  41: { id: 'pages.channels.type.vertex', defaultMessage: 'Vertex AI' },
  42: { id: 'pages.channels.type.mistral', defaultMessage: 'Mistral AI' },
  43: { id: 'pages.channels.type.deepseek', defaultMessage: 'DeepSeek' },
  44: { id: 'pages.channels.type.mokaai', defaultMessage: '嵌入模型：MokaAI M3E' },
  45: { id: 'pages.channels.type.volcengine', defaultMessage: '字节火山方舟、豆包通用' },
  46: { id: 'pages.channels.type.baiduV2', defaultMessage: '百度文心千帆V2' },
  47: { id: 'pages.channels.type.xinference', defaultMessage: 'Xinference' },
  48: { id: 'pages.channels.type.xai', defaultMessage: 'xAI' },
  49: { id: 'pages.channels.type.coze', defaultMessage: 'Coze' },
  50: { id: 'pages.channels.type.kling', defaultMessage: '可灵' },
  51: { id: 'pages.channels.type.jimeng', defaultMessage: '即梦' },
  52: { id: 'pages.channels.type.vidu', defaultMessage: 'Vidu' },
  53: { id: 'pages.channels.type.submodel', defaultMessage: 'SubModel' },
  54: { id: 'pages.channels.type.doubaoVideo', defaultMessage: '豆包视频' },
  55: { id: 'pages.channels.type.sora', defaultMessage: 'Sora' },
  56: { id: 'pages.channels.type.replicate', defaultMessage: 'Replicate' },
  57: { id: 'pages.channels.type.codex', defaultMessage: 'Codex (OpenAI OAuth)' },
}) satisfies Record<ChannelType, MessageDescriptor>;

export function channelTypeName(type: number): MessageDescriptor {
  return (typeNames as Record<number, MessageDescriptor>)[type] ?? typeNames[0];
}

/** The types an admin can choose (every known one but "unknown"). */
export const selectableChannelTypes = channelTypeValues.filter((type) => type !== ChannelType.Unknown);

export function defaultBaseUrl(type: number): string | undefined {
  return channelDefaultBaseUrls[type as ChannelType];
}

/** docs/product.md section 6: drawing types offer their drawing actions, Suno its music and lyrics tasks. */
const presetModels: Partial<Record<number, readonly string[]>> = {
  [ChannelType.Midjourney]: ['mj_imagine', 'mj_variation', 'mj_reroll', 'mj_blend', 'mj_upscale', 'mj_describe', 'mj_uploads'],
  [ChannelType.MidjourneyPlus]: [
    'swap_face',
    'mj_imagine',
    'mj_variation',
    'mj_reroll',
    'mj_blend',
    'mj_upscale',
    'mj_describe',
    'mj_zoom',
    'mj_shorten',
    'mj_modal',
    'mj_inpaint',
    'mj_custom_zoom',
    'mj_high_variation',
    'mj_low_variation',
    'mj_pan',
    'mj_uploads',
  ],
  [ChannelType.SunoAPI]: ['suno_music', 'suno_lyrics'],
};

/**
 * The models "fill related models" puts in for a type: the presets of the drawing and music
 * types, else what enabled channels of the type list (GET /api/models) and what the server
 * knows the type offers (GET /api/channel/models).
 */
export function relatedModels(
  type: number,
  byType: Record<string, string[]> | null | undefined,
  known: ReadonlyArray<{ id: string; channel_types: number[] }> | undefined,
): string[] {
  const preset = presetModels[type];
  if (preset) return [...preset];
  const fromChannels = byType?.[String(type)] ?? [];
  const fromCatalogue = (known ?? []).filter((model) => model.channel_types.includes(type)).map((model) => model.id);
  return [...new Set([...fromChannels, ...fromCatalogue])];
}
