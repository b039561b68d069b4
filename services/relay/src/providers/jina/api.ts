import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf, versionedUrl } from '../shared/url.js';

/** `/v1/embeddings` -> `{base}/v1/embeddings`, the base `https://api.jina.ai` unless the channel's base_url says otherwise. */
export function jinaUrl(context: Pick<ProviderContext, 'channel'>, path: '/v1/embeddings' | '/v1/rerank'): string {
  return versionedUrl(baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Jina]), '/v1', path.slice('/v1'.length));
}

/** Bearer auth, JSON. */
export function jinaHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
}
