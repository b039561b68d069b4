import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { GeminiMethod, ProviderContext } from '../types.js';
import { baseUrlOf, versionedUrl } from '../shared/url.js';

/** Used when the channel's `other` (the API version) is empty. */
export const GEMINI_DEFAULT_VERSION = 'v1beta';

function versionBase(channel: ProviderContext['channel']): { base: string; versionPath: string } {
  return { base: baseUrlOf(channel, channelDefaultBaseUrls[ChannelType.Gemini]), versionPath: `/${channel.other.trim() || GEMINI_DEFAULT_VERSION}` };
}

/** `{base}/{version}/models/{model}:generateContent`, or the SSE flavour of the streaming call. */
export function geminiChatUrl(context: Pick<ProviderContext, 'channel' | 'upstreamModel' | 'stream'>): string {
  return geminiMethodUrl(context, context.stream ? 'streamGenerateContent' : 'generateContent');
}

/** `{base}/{version}/models/{model}:{method}`; a stream always as SSE (`alt=sse`). */
export function geminiMethodUrl(context: Pick<ProviderContext, 'channel' | 'upstreamModel'>, method: GeminiMethod): string {
  const { base, versionPath } = versionBase(context.channel);
  const model = encodeURIComponent(context.upstreamModel.replace(/^models\//, ''));
  return versionedUrl(base, versionPath, `/models/${model}:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`);
}

/** Google's OpenAI-compatible API: `/v1/embeddings` -> `{base}/v1beta/openai/embeddings`. */
export function geminiOpenAiUrl(context: Pick<ProviderContext, 'channel'>, path: string): string {
  return versionedUrl(baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Gemini]), '/v1beta/openai', path.slice('/v1'.length));
}

/** The model list, in one page (1,000 is the largest page size). */
export function geminiModelsUrl(context: Pick<ProviderContext, 'channel'>): string {
  const { base, versionPath } = versionBase(context.channel);
  return versionedUrl(base, versionPath, '/models?pageSize=1000');
}

/** The key goes in a header, never in the URL (`?key=` URLs end up in logs and error messages). */
export function geminiHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', 'x-goog-api-key': key };
}
