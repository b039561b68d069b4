import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf, versionedUrl } from '../shared/url.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export function anthropicUrl(context: Pick<ProviderContext, 'channel'>, path: '/messages' | '/models'): string {
  return versionedUrl(baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Anthropic]), '/v1', path);
}

export function anthropicHeaders(key: string, forwarded?: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION };
  // A Messages API client's own version and beta features (prompt caching, 1M context) go with its request.
  if (forwarded?.['anthropic-version']) headers['anthropic-version'] = forwarded['anthropic-version'];
  if (forwarded?.['anthropic-beta']) headers['anthropic-beta'] = forwarded['anthropic-beta'];
  return headers;
}
