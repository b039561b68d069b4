import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf, versionedUrl } from '../shared/url.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export function anthropicUrl(context: Pick<ProviderContext, 'channel'>, path: '/messages' | '/models'): string {
  return versionedUrl(baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Anthropic]), '/v1', path);
}

export function anthropicHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION };
}
