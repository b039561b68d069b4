import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf } from '../shared/url.js';

/** DashScope's endpoints the relay calls: chat and embeddings in its OpenAI-compatible mode, rerank in its native API. */
export type DashScopePath = '/compatible-mode/v1/chat/completions' | '/compatible-mode/v1/embeddings' | '/api/v1/services/rerank/text-rerank/text-rerank';

/**
 * `{base}{path}`. The base is the host (`https://dashscope.aliyuncs.com` unless the channel's
 * base_url says otherwise: the international `dashscope-intl` host, a workspace domain, a proxy);
 * a base pasted with `/compatible-mode/v1` or `/api/v1` loses it, since the paths carry theirs.
 */
export function dashScopeUrl(context: Pick<ProviderContext, 'channel'>, path: DashScopePath): string {
  const base = baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Ali]).replace(/\/(?:compatible-mode|api)\/v1$/, '');
  return `${base}${path}`;
}

/** Bearer auth (a Model Studio API key), JSON. */
export function dashScopeHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
}
