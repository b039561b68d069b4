import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf } from '../shared/url.js';

/** Cohere's endpoints: chat, embed and rerank are v2; the model list is still v1. */
export type CoherePath = '/v2/chat' | '/v2/embed' | '/v2/rerank' | '/v1/models';

/**
 * `{base}{path}`. The base is the host (`https://api.cohere.ai` unless the channel's base_url says
 * otherwise); a base pasted with a version (`.../v1`, `.../v2`) loses it, since the paths carry theirs.
 */
export function cohereUrl(context: Pick<ProviderContext, 'channel'>, path: CoherePath): string {
  const base = baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Cohere]).replace(/\/v[12]$/, '');
  return `${base}${path}`;
}

/** Bearer auth, JSON. */
export function cohereHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
}
