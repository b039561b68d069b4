import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf, versionedUrl } from '../shared/url.js';

/**
 * `{base}/v1/chat-messages`. The base is `https://api.dify.ai` unless the channel's base_url says
 * otherwise (a self-hosted Dify); a base pasted as Dify shows it, with `/v1`, does not get it twice.
 */
export function difyChatUrl(context: Pick<ProviderContext, 'channel'>): string {
  return versionedUrl(baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Dify]), '/v1', '/chat-messages');
}

/** Bearer auth with the Dify app's API key (the app, not the model name, decides what answers), JSON. */
export function difyHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
}
