import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf, versionedUrl } from '../shared/url.js';

/**
 * `{base}/v3/chat`. The base is `https://api.coze.cn` unless the channel's base_url says otherwise
 * (`https://api.coze.com` for the international site); a base pasted with `/v3` does not get it twice.
 */
export function cozeChatUrl(context: Pick<ProviderContext, 'channel'>): string {
  return versionedUrl(baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Coze]), '/v3', '/chat');
}

/** The key is a Coze access token (a personal access token, `pat_...`), sent as Bearer; the answer is always a stream. */
export function cozeHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: `Bearer ${key}` };
}

/**
 * The bot that answers: the channel's `other` when set (where the established product keeps it, so
 * migrated channels keep working), else the model name sent upstream (a channel lists its bots as
 * models, and model mapping can name them).
 */
export function cozeBotId(context: Pick<ProviderContext, 'channel' | 'upstreamModel'>): string {
  return context.channel.other.trim() || context.upstreamModel;
}
